import LabelCore

/// A printer fault met while sending, in the protocol's terms. Each transport maps its own
/// errors (IPP states, libusb codes, status bytes) to one of these in exactly one table.
struct TransportError: Error, Sendable, Equatable {
  var reason: Reason
  var message: String
}

/// How bytes reach one printer, whatever carries them: the simulator now, CUPS queues and
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
}
