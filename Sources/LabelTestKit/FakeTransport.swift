import LabelCore
import LabelInterfaces
import LabelLanguages
import LabelScheduler
import Synchronization

/// A printer for unit tests of the scheduler and the dispatcher, at the scheduler's wire:
/// it keeps every copy it is given (the bytes, in order), fails copies as a test scripts,
/// can hold a copy "printing" until released, and reports faults the way every transport
/// does: through the sink `monitor` is given.
package final class FakeTransport: PrinterTransport, FaultInjecting {
  /// One copy as it reached the printer.
  package struct Copy: Sendable, Equatable {
    package var job: Int
    package var copy: Int
    package var bytes: [UInt8]

    package init(job: Int, copy: Int, bytes: [UInt8]) {
      self.job = job
      self.copy = copy
      self.bytes = bytes
    }
  }

  private struct State {
    var printer: Printer
    var copies: [Copy] = []
    /// Outcomes for the next copies, first first: a transport error instead of printing.
    var failures: [TransportError] = []
    /// While set, a copy waits here before it is printed (a label in progress).
    var held = false
    var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Waits cancelled before they began.
    var cancelledWaits: Set<Int> = []
    var nextWait = 0
    /// Copies that have started (reached `print`), printed or not.
    var started = 0
    var cancelled: [Int] = []
  }
  private let state: Mutex<State>
  private let faults = InjectedFaults()

  package init(id: String = "fake:one", language: PrinterLanguage = .zpl, accepting: Bool = true) {
    state = Mutex(
      State(
        printer: Printer(
          id: id, name: id, transport: .sim, model: "Fake printer", language: language,
          dpi: language.profile.defaultDPI,
          media: Media(widthMM: 50.8, lengthMM: 25.4, kind: "labels"), uri: id,
          accepting: accepting)))
  }

  package var descriptor: Printer { state.withLock { $0.printer } }

  /// Every copy printed so far, in order.
  package var copies: [Copy] { state.withLock { $0.copies } }
  /// How many copies reached `print` (including one held, or failed).
  package var started: Int { state.withLock { $0.started } }
  /// Jobs `cancel(job:)` was called for.
  package var cancelled: [Int] { state.withLock { $0.cancelled } }

  /// The next copy fails with `error` (one call per copy to fail); `detail` is what the
  /// transport says of the fault beyond its reason.
  package func failNext(
    _ reason: Reason, _ message: String = "scripted failure", detail: String? = nil
  ) {
    state.withLock {
      $0.failures.append(TransportError(reason: reason, message: message, detail: detail))
    }
  }

  /// Copies wait before printing until `release()`.
  package func hold() { state.withLock { $0.held = true } }

  package func release() {
    let waiting = state.withLock { s in
      s.held = false
      defer { s.waiting = [:] }
      return Array(s.waiting.values)
    }
    for c in waiting { c.resume() }
  }

  package func print(
    _ bytes: [UInt8], job: Int, copy: Int, cancel _: CancelRequest, status _: any PrinterStatusSink
  ) async throws(CancellationError) -> PrintOutcome {
    try await PrintOutcome.of { try await take(bytes, job: job, copy: copy) }
  }

  /// Takes one copy: a failure queued with `failNext`, or (while held) a wait until
  /// released.
  private func take(_ bytes: [UInt8], job: Int, copy: Int) async throws {
    let (failure, wait) = state.withLock { s in
      s.started += 1
      s.nextWait += 1
      return (s.failures.isEmpty ? nil : s.failures.removeFirst(), s.held ? s.nextWait : nil)
    }
    if let failure { throw failure }
    if let wait {
      // Held until released, or until the send is cancelled (a job cancelled mid-label).
      await withTaskCancellationHandler {
        await withCheckedContinuation { c in
          let resumeNow = state.withLock { s in
            guard s.held, s.cancelledWaits.remove(wait) == nil else { return true }
            s.waiting[wait] = c
            return false
          }
          if resumeNow { c.resume() }
        }
      } onCancel: {
        let c = state.withLock { s in
          guard let c = s.waiting.removeValue(forKey: wait) else {
            s.cancelledWaits.insert(wait)
            return nil as CheckedContinuation<Void, Never>?
          }
          return c
        }
        c?.resume()
      }
    }
    try Task.checkCancellation()
    state.withLock { $0.copies.append(Copy(job: job, copy: copy, bytes: bytes)) }
  }

  package func monitor(_ sink: any PrinterStatusSink) async { await faults.attach(sink) }

  /// The printer's status changes to `faults`; it reaches the queue through the sink.
  package func inject(_ faults: [Reason]) async { await self.faults.set(faults) }

  package func cancel(job: Int) async {
    state.withLock { $0.cancelled.append(job) }
  }
}
