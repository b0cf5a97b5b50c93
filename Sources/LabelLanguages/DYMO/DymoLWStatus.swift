import LabelCore

/// The one-byte answer of a LabelWriter 300/400/450/4XL to `ESC A` (LabelWriter 450 Series
/// Technical Reference, "Get Printer Status"): bit 0 ready (paper in, no jam), bit 1 top
/// of form, bit 5 no paper, bit 6 paper jam, bit 7 printer error (jam, invalid sequence and
/// so on); bits 2–4 unused. A ready printer at the top of a label answers 03.
public struct DymoLWStatus: Sendable, Equatable {
  /// `ESC A`.
  public static let request: [UInt8] = [0x1B, 0x41]
  public static let requestName = "ESC A"

  public let byte: UInt8

  public init(_ byte: UInt8) { self.byte = byte }

  public var isReady: Bool { byte & 0x01 != 0 }
  public var isTopOfForm: Bool { byte & 0x02 != 0 }

  /// Each bit and the fault it means: the one table for `ESC A`.
  public static let reasonTable: [(bit: UInt8, reason: Reason)] = [
    (0x20, .mediaEmpty),
    (0x40, .mediaJam),
  ]

  /// The faults: no paper, a jam; the error bit or a printer not ready without either is
  /// `unknown` (the manual names no other cause a person could act on).
  public var reasons: [Reason] {
    var out = Self.reasonTable.filter { byte & $0.bit != 0 }.map(\.reason)
    if out.isEmpty && (byte & 0x80 != 0 || !isReady) { out.append(.unknown) }
    return out
  }

  public var deviceStatus: DeviceStatus {
    DeviceStatus(
      kind: .reply, faults: reasons, media: nil,
      detail: "\(Self.requestName) status \(hexByte(byte))")
  }
}
