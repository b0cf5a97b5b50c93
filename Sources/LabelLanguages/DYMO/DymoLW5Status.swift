import LabelCore

/// The 32 bytes a LabelWriter 550, 550 Turbo or 5XL answers to `ESC A n` (LW 550 Series
/// Technical Reference, "Get Printer Status"): byte 0 the print status (0 idle, 1 printing,
/// 2 error, 3 cancelled, 4 busy, 5 another host holds the printer), 1–4 the job id, 5–6 the
/// label index, 8 the print head (0 ok, 1 overheated), 9 the density in percent, 10 the
/// media bay, 11–22 the roll's SKU (ASCII, NUL-padded), 23–26 an error id, 27–28 the labels
/// left on the roll, 30 the print-head voltage. Numbers are least significant byte first.
public struct DymoLW5Status: Sendable, Equatable {
  /// `ESC A 00`: status only, no lock asked for.
  public static let request: [UInt8] = [0x1B, 0x41, 0x00]
  public static let requestName = "ESC A"
  public static let length = 32

  public let bytes: [UInt8]

  /// Parses a reply; anything but 32 bytes throws.
  public init(_ bytes: [UInt8]) throws(DriverError) {
    guard bytes.count == Self.length else {
      throw DriverError("LW 550 status: \(bytes.count) bytes, not \(Self.length)")
    }
    self.bytes = bytes
  }

  public var printStatus: UInt8 { bytes[0] & 0x07 }
  public var jobID: UInt32 {
    (1...4).reduce(0) { $0 | UInt32(bytes[$1]) << (8 * UInt32($1 - 1)) }
  }
  public var headStatus: UInt8 { bytes[8] & 0x03 }
  public var bay: UInt8 { bytes[10] & 0x0F }
  /// The roll's SKU from its NFC tag ("30252"); nil when the bay reports none.
  public var sku: String? {
    let raw = bytes[11...22].prefix { $0 != 0 }
    let text = String(decoding: raw.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
    return text.isEmpty ? nil : text
  }
  public var errorID: UInt32 {
    (23...26).reduce(0) { $0 | UInt32(bytes[$1]) << (8 * UInt32($1 - 23)) }
  }
  public var labelsRemaining: Int { Int(bytes[27]) | Int(bytes[28]) << 8 }
  public var headVoltage: UInt8 { bytes[30] & 0x0F }

  /// The media bay's codes and the fault each means: the one table for byte 10. Codes 4
  /// (present, state unknown), 6 and 7 (critically low, low: still printing) and 8 (ok)
  /// are not faults.
  public static let bayTable: [UInt8: (Reason, String)] = [
    1: (.coverOpen, "the media bay is open"),
    2: (.mediaEmpty, "no roll in the bay"),
    3: (.mediaEmpty, "the roll is not inserted properly"),
    5: (.mediaEmpty, "the roll is empty"),
    9: (.mediaJam, "the media is jammed"),
    // The printer refuses a roll whose NFC tag fails DYMO's check until a genuine one is
    // in: the roll, not the job, has to change.
    10: (.mediaMismatch, "the roll is not a genuine DYMO roll (its NFC tag failed the check)"),
  ]

  /// The faults, each once: the bay, the head (overheated), a head voltage too low to
  /// print, a cancel at the printer, another host holding it, and an error status or
  /// error id no other field explains (`unknown`).
  public var reasons: [Reason] {
    var out: [Reason] = []
    func add(_ r: Reason) { if !out.contains(r) { out.append(r) } }
    if let (reason, _) = Self.bayTable[bay] { add(reason) }
    if headStatus == 1 { add(.headError) }
    if headVoltage == 4 { add(.headError) }
    if printStatus == 3 { add(.jobAborted) }
    if printStatus == 5 { add(.busy) }
    if out.isEmpty && (printStatus == 2 || errorID != 0) { add(.unknown) }
    return out
  }

  public var deviceStatus: DeviceStatus {
    var parts = ["print status \(printStatus)", "bay \(bay)"]
    if let (_, why) = Self.bayTable[bay] { parts.append(why) }
    if headStatus == 1 { parts.append("print head overheated") }
    if headVoltage == 4 { parts.append("print head voltage too low to print") }
    if errorID != 0 { parts.append("error id \(errorID)") }
    if let sku { parts.append("roll \(sku), \(labelsRemaining) labels left") }
    var status = DeviceStatus(
      kind: .reply, faults: reasons, media: nil,
      detail: "\(Self.requestName) status: " + parts.joined(separator: ", "))
    status.labelsRemaining = sku == nil && bay != 8 ? nil : labelsRemaining
    return status
  }
}
