import FoundationEssentials
import LabelCUPS
import LabelConcurrency
import LabelCore
import LabelInterfaces
import LabelLog
import LabelPOSIX
import Synchronization

/// Finds the CUPS server's queues and adopts each as a `cups:QUEUE` printer.
///
/// The server is libcups' (`CUPS_SERVER` first). When it does not answer, labeld runs
/// without CUPS printers, says so once, and keeps trying; queues appear when it answers.
package final class CUPSDiscovery: PrinterSource {
  /// Short timeouts: the first discovery runs before labeld starts serving.
  private let client = CUPSClient(label: "discovery", connectTimeoutMS: 1000, ioTimeout: 5)
  private let pins: [String: PrinterLanguage]
  private let instance: String
  private let registry = Mutex<(any PrinterAdopter)?>(nil)
  private let log: Logger
  /// Whether the server answered at least once, and whether it answered last time.
  private let reached = Mutex<(ever: Bool, last: Bool?)>((false, nil))

  /// How often queues are looked for again (new queues appear without a restart).
  package static let interval: Duration = .seconds(15)

  package init(pins: [String: PrinterLanguage], stateDirectory: String, log: Logger) {
    self.pins = pins
    instance = Self.instanceID(stateDirectory, log: log)
    self.log = log
  }

  /// Whether the server has answered since start-up.
  package var everReached: Bool { reached.withLock { $0.ever } }

  /// A token naming this installation in CUPS job names, kept in the state directory so
  /// that jobs sent before a restart are found again (and only this labeld's).
  private static func instanceID(_ directory: String, log: Logger) -> String {
    let path = "\(directory)/cups-instance"
    if let bytes = try? PlainFile.read(path, limit: 4096),
      case let id = String(decoding: bytes, as: UTF8.self).trimmed, !id.isEmpty
    {
      return id
    }
    let id = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    do {
      try PlainFile.replace(path, with: Array(id.utf8))
    } catch {
      log.warning("cannot keep \(path): \(error); CUPS jobs cannot be followed across restarts")
    }
    return id
  }

  /// No server answered this round: said once, when it answered (or nothing was known)
  /// the round before.
  private func noAnswer(_ message: String) {
    let was = reached.withLock { r in
      defer { r.last = false }
      return r.last
    }
    if was != false { log.notice("\(message), looking again every \(Self.interval)") }
  }

  /// Looks for queues once and adopts the new ones. Returns how many were added; none when
  /// the server did not answer.
  @discardableResult
  private func discover() async -> Int {
    guard let registry = registry.withLock({ $0 }) else { return 0 }
    // No server in sight and libcups never needed: it stays unloaded.
    if !everReached, let why = await CUPSServerPresence.absence() {
      noAnswer("CUPS: no server to ask (\(why)); no CUPS printers until one answers")
      return 0
    }
    let names: [String]
    do {
      names = try await client.queueNames()
    } catch {
      noAnswer(
        "CUPS: the server \(CUPSClient.server) does not answer (\(error.message)); no CUPS "
          + "printers until it does")
      return 0
    }
    let was = reached.withLock { r in
      defer { r = (true, true) }
      return r.last
    }
    var added = 0
    for name in names where !registry.contains(CUPSPrinterModel.idPrefix + name) {
      let attributes: CUPSQueue
      do {
        attributes = try await client.queue(name)
      } catch {
        log.warning("CUPS: queue \(name): \(error)")
        continue
      }
      let printer = CUPSPrinter(
        queue: attributes, pin: pins[name], instance: instance, log: log)
      guard await registry.adopt(printer) else { continue }
      added += 1
      let p = printer.descriptor
      log.info(
        "CUPS: printer \(p.id) (\(p.model)), language \(p.languageName)"
          + (pins[name] != nil
            ? " (pinned)"
            : p.language == nil
              ? " (unknown: pin it with --cups-language \(name)=LANGUAGE, one of \(PrinterLanguage.spokenList))"
              : ""))
    }
    if was != true || added > 0 {
      log.notice("CUPS: server \(CUPSClient.server): \(names.count) queue(s), \(added) new")
    }
    for pin in pins.keys where !names.contains(pin) && was != true {
      log.warning("CUPS: --cups-language names queue \(pin), which the server does not have")
    }
    return added
  }

  // MARK: PrinterSource

  /// Adopts the queues there now.
  package func start(into registry: any PrinterAdopter) async {
    self.registry.withLock { $0 = registry }
    await discover()
  }

  /// Looks again every `interval`: new queues appear without a restart (the registry
  /// resumes and starts them).
  package var service: (any Service)? {
    LoopService("CUPS discovery") { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: Self.interval)
        guard let self, !Task.isCancelled else { return }
        await self.discover()
      }
    }
  }

  /// One discovery now (`printers.refresh`).
  package func refresh() async { await discover() }

  /// A `cups:` printer that is not here may come: the server may not have answered yet,
  /// or the queue may be added back.
  package func absence(of printer: String) -> Absence? {
    guard printer.hasPrefix(CUPSPrinterModel.idPrefix) else { return nil }
    return everReached
      ? Absence(
        reason: .notFound,
        phrase: "the CUPS server has no such queue (add it back, or cancel the job)")
      : Absence(reason: .offline, phrase: "the CUPS server does not answer")
  }
}
