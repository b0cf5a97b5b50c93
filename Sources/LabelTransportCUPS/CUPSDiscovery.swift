import Foundation
import LabelCUPS
import LabelCore
import Synchronization

/// Finds the CUPS server's queues and adds each as a `cups:QUEUE` printer.
///
/// The server is libcups' (`CUPS_SERVER` first). When it does not answer, labeld runs
/// without CUPS printers, says so once, and keeps trying; queues appear when it answers.
final class CUPSDiscovery: Sendable {
  /// Short timeouts: the first discovery runs before labeld starts serving.
  private let client = CUPSClient(label: "discovery", connectTimeoutMS: 1000, ioTimeout: 5)
  private let pins: [String: PrinterLanguage]
  private let instance: String
  private let registry: PrinterRegistry
  private let jobs: JobStore
  private let channel: EventChannel
  private let policy: InterruptedJobPolicy
  private let log: Logger
  /// Whether the server answered at least once, and whether it answered last time.
  private let reached = Mutex<(ever: Bool, last: Bool?)>((false, nil))

  /// How often queues are looked for again (new queues appear without a restart).
  static let interval: Duration = .seconds(15)

  init(
    pins: [String: PrinterLanguage], stateDirectory: URL, registry: PrinterRegistry,
    jobs: JobStore, channel: EventChannel, policy: InterruptedJobPolicy, log: Logger
  ) {
    self.pins = pins
    instance = Self.instanceID(stateDirectory, log: log)
    self.registry = registry
    self.jobs = jobs
    self.channel = channel
    self.policy = policy
    self.log = log
  }

  /// Whether the server has answered since start-up.
  var everReached: Bool { reached.withLock { $0.ever } }

  /// A token naming this installation in CUPS job names, kept in the state directory so
  /// that jobs sent before a restart are found again (and only this labeld's).
  private static func instanceID(_ directory: URL, log: Logger) -> String {
    let url = directory.appendingPathComponent("cups-instance")
    if let text = try? String(contentsOf: url, encoding: .utf8),
      case let id = text.trimmingCharacters(in: .whitespacesAndNewlines), !id.isEmpty
    {
      return id
    }
    let id = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    do {
      try Data(id.utf8).write(to: url, options: .atomic)
    } catch {
      log.warning("cannot keep \(url.path): \(error); CUPS jobs cannot be followed across restarts")
    }
    return id
  }

  /// Looks for queues once and adds the new ones (not started: `start` resumes and starts
  /// them). Returns the queues added; empty when the server did not answer.
  func discover() async -> [PrinterQueue] {
    let names: [String]
    do {
      names = try await client.queueNames()
    } catch {
      let was = reached.withLock { r in
        defer { r.last = false }
        return r.last
      }
      if was != false {
        log.notice(
          "CUPS: the server \(CUPSClient.server) does not answer (\(error.message)); no CUPS printers until it does, retrying every \(Self.interval)"
        )
      }
      return []
    }
    let was = reached.withLock { r in
      defer { r = (true, true) }
      return r.last
    }
    var added: [PrinterQueue] = []
    for name in names where registry.queue("cups:\(name)") == nil {
      let attributes: CUPSQueue
      do {
        attributes = try await client.queue(name)
      } catch {
        log.warning("CUPS: queue \(name): \(error)")
        continue
      }
      let printer = CUPSPrinter(
        queue: attributes, pin: pins[name], instance: instance, log: log)
      let queue = PrinterQueue(transport: printer, jobs: jobs, channel: channel, log: log)
      registry.add(queue)
      added.append(queue)
      let p = printer.descriptor
      log.info(
        "CUPS: printer \(p.id) (\(p.model)), language \(p.languageName)"
          + (pins[name] != nil
            ? " (pinned)"
            : p.language == nil
              ? " (unknown: pin it with --cups-language \(name)=zpl|brother-ql)" : ""))
    }
    if was != true || !added.isEmpty {
      log.notice("CUPS: server \(CUPSClient.server): \(names.count) queue(s), \(added.count) new")
    }
    for pin in pins.keys where !names.contains(pin) && was != true {
      log.warning("CUPS: --cups-language names queue \(pin), which the server does not have")
    }
    return added
  }

  /// Looks again every `interval`; queues found later resume their unfinished jobs and
  /// start.
  func run() async {
    while !Task.isCancelled {
      try? await Task.sleep(for: Self.interval)
      await refresh()
    }
  }

  /// One discovery whose new queues start at once (`printers.refresh`, the periodic look).
  func refresh() async {
    for queue in await discover() {
      await queue.resume(jobs.unfinished(printer: queue.id), policy: policy)
      await queue.start()
    }
  }
}
