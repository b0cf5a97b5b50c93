import LabelCore
import Synchronization

/// A printer fault met while sending, in the protocol's terms. Each transport maps its own
/// errors (IPP states, libusb codes, status bytes) to one of these in exactly one table.
package struct TransportError: Error, Sendable, Equatable {
  package var reason: Reason
  package var message: String

  package init(reason: Reason, message: String) {
    self.reason = reason
    self.message = message
  }
}

/// How bytes reach one printer, whatever carries them: the simulator, CUPS queues, and
/// USB devices later. The scheduler owns the queue and the fault state; a transport only
/// sends, and reports what went wrong as a `TransportError`.
package protocol PrinterTransport: Sendable {
  /// The printer as discovered or configured (state and reasons are the queue's).
  var descriptor: Printer { get }

  /// Prints one copy of a job's output and returns once the printer has it printed.
  /// Throws `TransportError` for printer faults and `CancellationError` when cancelled.
  /// `cancel` says whether a client asked to cancel the job (its queue's record of it).
  func print(_ bytes: [UInt8], job: Int, copy: Int, cancel: CancelRequest) async throws

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

/// Where a transport reports what it learns of its printer: the printer's queue.
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
