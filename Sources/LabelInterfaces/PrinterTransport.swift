import LabelCore
import Synchronization

/// A printer fault met while sending, in the protocol's terms. Each transport maps its own
/// errors (IPP states, libusb codes, status bytes) to one of these in exactly one table.
package struct TransportError: Error, Sendable, Equatable {
  package var reason: Reason
  package var message: String
  /// What the printer's alert says beside its reason, where the transport knows more than
  /// the reason ("the job is for 12 mm tape but 24 mm tape is loaded"); nil for most.
  package var detail: String?

  package init(reason: Reason, message: String, detail: String? = nil) {
    self.reason = reason
    self.message = message
    self.detail = detail
  }
}

/// What became of one copy: what `PrinterTransport.print` returns.
package enum PrintOutcome: Sendable, Equatable {
  /// The printer has it printed, as far as its family can confirm: the page reported, the
  /// status read back clean, the CUPS job completed (a printer that can say nothing:
  /// accepted).
  case printed
  /// Not printed: the fault that stopped it. The queue holds the job until the printer's
  /// status says it cleared and sends the copy again, or ends the job for a fault that
  /// aborts it.
  case stopped(TransportError)

  /// Runs the body of a transport's `print`: returning is `printed`, a `TransportError`
  /// the fault that stopped the copy, cancellation stays cancellation, and any other error
  /// (one a transport's table missed) is an `unknown` fault with its words, shown to the
  /// user and never taken for a cancellation.
  package static func of(_ body: () async throws -> Void) async throws(CancellationError)
    -> PrintOutcome
  {
    do {
      try await body()
      return .printed
    } catch let fault as TransportError {
      return .stopped(fault)
    } catch {
      if error is CancellationError || Task.isCancelled { throw CancellationError() }
      return .stopped(TransportError(reason: .unknown, message: "\(error)"))
    }
  }
}

/// How bytes reach one printer, whatever carries them: the simulator, CUPS queues, USB
/// devices, network printers. The scheduler owns the queue, the fault state and the alerts;
/// a transport sends, and tells what it learns through two doors only: the copy's
/// `PrintOutcome`, and its printer's state through the `PrinterStatusSink` it is given.
package protocol PrinterTransport: Sendable {
  /// The printer as discovered or configured (state and reasons are the queue's).
  var descriptor: Printer { get }

  /// Prints one copy of a job's output: `printed` once the printer has it printed, or the
  /// fault that stopped it; throws only when cancelled. What it learns of the printer on
  /// the way (a fault that holds the label in the printer's buffer, the media loaded, the
  /// labels left) goes to `status`, the same sink `monitor` is given: the one way a
  /// printer's state reaches its queue. `cancel` says whether a client asked to cancel the
  /// job (its queue's record of it).
  func print(
    _ bytes: [UInt8], job: Int, copy: Int, cancel: CancelRequest, status: any PrinterStatusSink
  ) async throws(CancellationError) -> PrintOutcome

  /// How rendered labels are set up for this printer (darkness, finishing).
  var labelSettings: LabelSettings { get }

  /// Checks, at submit time, that the printer takes new jobs now: 1002 when it refuses them
  /// (a CUPS queue rejecting), 1001 when it no longer exists.
  func admit() async throws(RPCError)

  /// Follows the printer's own status for as long as the queue runs, telling `sink` its
  /// faults (empty when it is fine) whenever they may have changed, and when only its
  /// description changed (loaded media). This is the one way a transport reports what it
  /// learns outside `print`. Returns when cancelled; transports without a status channel
  /// return at once.
  func monitor(_ sink: any PrinterStatusSink) async

  /// A client cancelled `job` while it was printing: stop it at the printer too. (Stopping
  /// labeld cancels the task in `print` but must not cancel the printer's job.)
  func cancel(job: Int) async
}

/// A client's request to cancel a job, as the job's queue holds it: the one place that fact
/// lives. The queue hands it to `print`; a transport that finds its printer's job ended as
/// cancelled asks it whether labeld did that (a cancel from elsewhere is a fault).
package final class CancelRequest: Sendable {
  private let requested = Atomic<Bool>(false)

  package init() {}

  package var isRequested: Bool { requested.load(ordering: .acquiring) }

  package func request() { requested.store(true, ordering: .releasing) }
}

/// Where a transport reports what it learns of its printer: the printer's queue, which
/// alone turns that state into alerts (through `PrinterAlerts`). Transports get it as an
/// argument of `monitor` and `print`; only injected faults (`InjectedFaults`) keep
/// `monitor`'s, to deliver what `printers.simulate` sets.
package protocol PrinterStatusSink: AnyObject, Sendable {
  /// The printer's faults now (empty: it is fine); nil when only the printer's description
  /// changed (loaded media, accepting): it is published again.
  func update(faults: [Reason]?) async
  /// The faults the queue holds now: reported, or met while printing.
  var heldFaults: [Reason] { get }
  /// No job is printing or waiting.
  var isIdle: Bool { get async }
}

/// A transport whose faults are injected (`printers.simulate`): the simulator.
package protocol FaultInjecting: Sendable {
  /// Sets the printer's faults (empty: none); they reach the queue through `monitor`
  /// before this returns.
  func inject(_ faults: [Reason]) async
}

extension PrinterTransport {
  package var labelSettings: LabelSettings { LabelSettings() }

  package func admit() async throws(RPCError) {
    let printer = descriptor
    guard printer.accepting else {
      throw .printerNotAccepting(printer.id, reason: "disabled by configuration")
    }
  }

  package func monitor(_ sink: any PrinterStatusSink) async {}

  package func cancel(job: Int) async {}
}
