import LabelCore

/// A printer fault met while sending, in the protocol's terms. Each transport maps its own
/// errors (IPP states, libusb codes, status bytes) to one of these in exactly one table.
struct TransportError: Error, Sendable, Equatable {
  var reason: Reason
  var message: String
}

/// How bytes reach one printer, whatever carries them: the simulator, CUPS queues, and
/// USB devices later. The scheduler owns the queue and the fault state; a transport only
/// sends, and reports what went wrong as a `TransportError`.
protocol PrinterTransport: Sendable {
  /// The printer as discovered or configured (state and reasons are the queue's).
  var descriptor: Printer { get }

  /// Prints one copy of a job's output and returns once the printer has it printed.
  /// Throws `TransportError` for printer faults and `CancellationError` when cancelled.
  func print(_ bytes: [UInt8], job: Int, copy: Int) async throws

  /// True for printers that accept injected faults (`printers.simulate`).
  var isSimulated: Bool { get }

  /// How rendered labels are set up for this printer (darkness, finishing).
  var labelSettings: LabelSettings { get }

  /// Checks, at submit time, that the printer takes new jobs now: 1002 when it refuses them
  /// (a CUPS queue rejecting), 1001 when it no longer exists.
  func admit() async throws(RPCError)

  /// Follows the printer's own status for as long as the queue runs, calling `report` with
  /// its faults (empty when it is fine) whenever they may have changed. Returns when
  /// cancelled; transports without a status channel return at once.
  func monitor(_ report: @escaping @Sendable ([Reason]) async -> Void) async

  /// A client cancelled `job` while it was printing: stop it at the printer too. (Stopping
  /// labeld cancels the task in `print` but must not cancel the printer's job.)
  func cancel(job: Int) async
}

/// Per-printer settings that rendered labels carry.
struct LabelSettings: Sendable, Equatable {
  var darkness: Int?
  /// "tear", "cut" or "peel".
  var finish: String?
  /// The driver model raster labels are encoded for (Brother QL: "QL-820NWB").
  var model: String?

  /// The Brother QL model a printer is taken to be when nothing says otherwise.
  static let defaultBrotherQLModel = "QL-820NWB"
}

extension PrinterTransport {
  var labelSettings: LabelSettings { LabelSettings() }

  func admit() async throws(RPCError) {
    let printer = descriptor
    guard printer.accepting else {
      throw .printerNotAccepting(printer.id, reason: "disabled by configuration")
    }
  }

  func monitor(_ report: @escaping @Sendable ([Reason]) async -> Void) async {}

  func cancel(job: Int) async {}
}
