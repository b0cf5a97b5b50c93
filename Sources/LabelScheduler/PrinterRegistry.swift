import LabelCore
import LabelEvents
import LabelInterfaces
import LabelLog
import Synchronization

/// Every printer the daemon knows, by id, in the order they were added, and the one place
/// a printer's queue is made: `adopt` creates, resumes and starts a queue for a transport
/// of any kind (configured, discovered at start-up, plugged in or found later).
package final class PrinterRegistry: PrinterAdopter {
  private struct State {
    var queues: [PrinterQueue] = []
    /// Set by `open`: unfinished jobs have been handed out; a printer adopted from now on
    /// takes back its own at once and starts.
    var policy: InterruptedJobPolicy?
  }
  private let state = Mutex(State())
  private let jobs: any JobStoring
  private let channel: EventChannel
  private let log: Logger

  package init(jobs: any JobStoring, channel: EventChannel, log: Logger) {
    self.jobs = jobs
    self.channel = channel
    self.log = log
  }

  /// Makes `transport`'s queue and lists it, with the faults it is known to have (a USB
  /// printer's first status: it is listed as it is). Before `open` the queue waits;
  /// after, it takes back the unfinished jobs stored for it and starts. False when a
  /// printer with the same id is here already.
  @discardableResult
  package func adopt(_ transport: any PrinterTransport, faults: [Reason]) async -> Bool {
    await adoptQueue(transport, faults: faults) != nil
  }

  package func contains(_ id: String) -> Bool { queue(id) != nil }

  /// `adopt`, returning the queue made.
  @discardableResult
  package func adoptQueue(_ transport: any PrinterTransport, faults: [Reason] = []) async
    -> PrinterQueue?
  {
    guard self.queue(transport.descriptor.id) == nil else { return nil }
    let made = PrinterQueue(transport: transport, jobs: jobs, channel: channel, log: log)
    if !faults.isEmpty { await made.update(faults: faults) }
    let policy: InterruptedJobPolicy?? = state.withLock { s in
      guard !s.queues.contains(where: { $0.id == made.id }) else { return .none }
      s.queues.append(made)
      return .some(s.policy)
    }
    guard case .some(let opened) = policy else { return nil }
    if let opened { await begin(made, policy: opened, announce: true) }
    return made
  }

  /// Hands every printer here now its unfinished jobs (oldest first, `policy` for the one
  /// that was printing) and starts it; printers adopted later do the same themselves.
  package func open(policy: InterruptedJobPolicy) async {
    let queues = state.withLock { s in
      s.policy = policy
      return s.queues
    }
    for queue in queues { await begin(queue, policy: policy, announce: false) }
  }

  private func begin(_ queue: PrinterQueue, policy: InterruptedJobPolicy, announce: Bool) async {
    let leftovers = jobs.unfinished(printer: queue.id)
    if announce && !leftovers.isEmpty {
      log.notice("printer \(queue.id) takes back \(leftovers.count) job(s) left from before")
    }
    await queue.resume(leftovers, policy: policy)
    await queue.start()
    // A printer that appears while labeld runs is announced even if nothing changed.
    if announce { await queue.republish(force: true) }
  }

  package func queue(_ id: String) -> PrinterQueue? {
    state.withLock { s in s.queues.first { $0.id == id } }
  }

  package var all: [PrinterQueue] { state.withLock { $0.queues } }

  package var printers: [Printer] { all.map(\.snapshot) }
}
