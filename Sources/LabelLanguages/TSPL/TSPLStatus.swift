import LabelCore

/// The one-byte answer to TSPL's immediate status request `<ESC>!?` (TSC TSPL/TSPL2
/// Programming Manual, "Status Polling Commands": the command is answered at once, even
/// while the printer is in an error state). 0 is ready; each bit is a condition.
///
/// Bits 6 and 7 are options ("cover opened", "environment temperature over range") in the
/// manual and its TSPL-compatible clones; some clone manuals call bit 7 "other error". All
/// are faults here, each with its own reason.
public struct TSPLStatus: Sendable, Equatable {
  /// `<ESC>!?`: ESC, "!", "?".
  public static let request: [UInt8] = [0x1B, 0x21, 0x3F]
  public static let requestName = "<ESC>!?"

  public struct Conditions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let headOpen = Conditions(rawValue: 0x01)
    public static let paperJam = Conditions(rawValue: 0x02)
    public static let outOfPaper = Conditions(rawValue: 0x04)
    public static let outOfRibbon = Conditions(rawValue: 0x08)
    public static let paused = Conditions(rawValue: 0x10)
    /// Not a fault: a label is being printed.
    public static let printing = Conditions(rawValue: 0x20)
    public static let coverOpen = Conditions(rawValue: 0x40)
    public static let temperature = Conditions(rawValue: 0x80)

    /// Each condition and the fault it means: the one table for `<ESC>!?`.
    public static let reasonTable: [(Conditions, Reason)] = [
      // The print mechanism is open: the person fixing it closes it like a cover.
      (.headOpen, .coverOpen),
      (.paperJam, .mediaJam),
      (.outOfPaper, .mediaEmpty),
      (.outOfRibbon, .ribbonEmpty),
      (.paused, .paused),
      (.coverOpen, .coverOpen),
      // The head's surroundings are too hot or cold to print.
      (.temperature, .headError),
    ]
  }

  public let conditions: Conditions

  public init(_ byte: UInt8) { conditions = Conditions(rawValue: byte) }

  /// The faults, in table order, each once (head open and cover open are both `coverOpen`).
  public var reasons: [Reason] {
    var out: [Reason] = []
    for (condition, reason) in Conditions.reasonTable
    where conditions.contains(condition) && !out.contains(reason) {
      out.append(reason)
    }
    return out
  }

  public var isPrinting: Bool { conditions.contains(.printing) }

  /// This reply as drivers report status.
  public var deviceStatus: DeviceStatus {
    DeviceStatus(
      kind: .reply, faults: reasons, media: nil,
      detail: "\(Self.requestName) status \(hexByte(conditions.rawValue))")
  }
}
