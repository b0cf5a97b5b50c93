import LabelCore

/// A LabelManager's answer to `ESC A`, as far as anyone has published it.
///
/// - Byte 0 (DYMO's `CLabelManagerLanguageMonitor::status_bits`, dymo-cups-drivers 1.4.0
///   `LabelManagerLanguageMonitor.h`): 0x04 general error, 0x08 head overheated, 0x10
///   "slot status" error, 0x20 busy, 0x40 cassette present, 0x80 "auto cutter" and "no
///   power" (both names, one bit; DYMO's filter tests neither); 0x01/0x02 the cassette
///   size on the LabelWriter DUO's tape side and the LabelPOINT 350 only.
/// - Byte 1 on the PnP, 420P and 450 (DYMO's `CheckTapeSize`): the loaded tape, 1–5 for
///   6, 9, 12, 19, 24 mm; 0 when the printer does not say.
/// - The PnP answers 8 bytes: 0x40 idle, 0x60 while printing, 0x00 with the cassette
///   out (dymoprint issue 43, field reports from a PnP; the other bytes change with the
///   battery and are not decoded by anyone). labelle reads the answer and decodes none of
///   it. DYMO's filter reads up to 16 bytes and uses the first two.
///
/// Busy is not a fault: the printer is printing what it took.
public struct DymoLMStatus: Sendable, Equatable {
  /// `ESC A`.
  public static let request: [UInt8] = [0x1B, 0x41]
  public static let requestName = "ESC A"
  /// The length of a PnP's answer (the framing labeld reads).
  public static let replyLength = 8

  public let bytes: [UInt8]
  /// Whether byte 1 names the tape on this model (`DymoLMModel.reportsTape`).
  public let reportsTape: Bool

  public init(_ bytes: [UInt8], reportsTape: Bool) {
    self.bytes = bytes
    self.reportsTape = reportsTape
  }

  var flags: UInt8 { bytes.first ?? 0 }
  public var cassettePresent: Bool { flags & 0x40 != 0 }
  public var isBusy: Bool { flags & 0x20 != 0 }

  /// The loaded tape, where the printer names it.
  public var tape: DymoLMTape? {
    guard reportsTape, bytes.count > 1, (1...5).contains(bytes[1]) else { return nil }
    return DymoLMTape.allCases[Int(bytes[1]) - 1]
  }

  /// Each bit of byte 0 and the fault it means: the one table for `ESC A`. DYMO's filter
  /// holds a job on each of them (`SetJobStatus`).
  public static let reasonTable: [(bit: UInt8, reason: Reason)] = [
    (0x08, .headError),  // head overheated
    (0x04, .unknown),  // general error
    (0x10, .unknown),  // slot status error: DYMO says no more
  ]

  /// The faults: no cassette is no tape to print on; the error bits as the table says.
  public var reasons: [Reason] {
    var out: [Reason] = cassettePresent ? [] : [.mediaEmpty]
    for (bit, reason) in Self.reasonTable where flags & bit != 0 && !out.contains(reason) {
      out.append(reason)
    }
    return out
  }

  public var deviceStatus: DeviceStatus {
    DeviceStatus(
      kind: .reply, faults: reasons,
      media: tape.map { Media(widthMM: Double($0.widthMM), lengthMM: 0, kind: "tape") },
      detail: "\(Self.requestName) status \(bytes.prefix(2).map(hexByte).joined(separator: " "))")
  }
}
