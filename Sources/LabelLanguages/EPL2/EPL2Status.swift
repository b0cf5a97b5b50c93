import LabelCore

/// The answer to EPL2's error report request `^ee` (Zebra EPL2 Programming Guide, "^ee
/// Error Report", and its error code table): `00` when there is no error, else the codes
/// of every error, comma separated, ending in CR LF (code 07 may carry `Pnnn`/`Lnnnnn`,
/// the labels and lines still to print).
public struct EPL2Status: Sendable, Equatable {
  /// `^ee` and a line feed.
  public static let request: [UInt8] = Array("^ee\r\n".utf8)
  public static let requestName = "^ee"

  /// Each code and the fault it means: the one table for `^ee`. Codes not listed are
  /// reported as `unknown` with their number, never dropped.
  public static let reasonTable: [Int: Reason?] = [
    0: nil,  // no error
    7: .mediaEmpty,  // "paper or ribbon empty": the guide does not tell them apart
    11: .coverOpen,  // print head up (open)
    12: .paused,  // pause mode, or paused in peel mode
    13: .headError,  // print head too hot
    14: .headError,  // motor too hot: printing stops until it cools
    15: nil,  // battery low warning (40%): a warning, printing goes on
    50: nil,  // busy processing a print job
    81: .cutterError,  // cutter jammed or not installed
    84: .mediaJam,  // excessive media feeding: the gap or black line is not found
  ]

  /// The codes reported, in the order sent.
  public let codes: [Int]

  /// Parses one reply line (without its line end); a line that is not codes throws.
  public init(line: String) throws(DriverError) {
    let fields = line.trimmingSpaces.split(separator: ",")
    var codes: [Int] = []
    for field in fields {
      // "07P123L12345": the code is the first two digits.
      let digits = field.prefix(2)
      guard digits.count == 2, digits.allSatisfy(\.isNumber), let code = Int(digits) else {
        throw DriverError("EPL2 error report: \"\(line)\" is not a list of codes")
      }
      codes.append(code)
    }
    guard !codes.isEmpty else { throw DriverError("EPL2 error report: empty") }
    self.codes = codes
  }

  /// The faults, each once, in the order reported.
  public var reasons: [Reason] {
    var out: [Reason] = []
    for code in codes {
      let reason: Reason? =
        if let known = Self.reasonTable[code] { known } else { .unknown }
      if let reason, !out.contains(reason) { out.append(reason) }
    }
    return out
  }

  public var deviceStatus: DeviceStatus {
    let text = codes.map { $0 < 10 ? "0\($0)" : String($0) }.joined(separator: ",")
    return DeviceStatus(
      kind: .reply, faults: reasons, media: nil, detail: "\(Self.requestName) error report \(text)")
  }
}
