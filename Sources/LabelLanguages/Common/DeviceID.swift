/// An IEEE-1284 device id, as USB printers answer GET_DEVICE_ID:
/// `MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;CLS:PRINTER;`. Keys are case-insensitive and
/// have long and short forms (MANUFACTURER/MFG, MODEL/MDL, COMMAND SET/CMD).
public struct DeviceID: Sendable, Equatable {
  public var fields: [String: String]

  public init(_ text: String) {
    var out: [String: String] = [:]
    for pair in text.split(separator: ";") {
      guard let colon = pair.firstIndex(of: ":") else { continue }
      let key = pair[..<colon].trimmingSpaces.uppercased()
      let value = pair[pair.index(after: colon)...].trimmingSpaces
      out[Self.canonical[key] ?? key] = value
    }
    fields = out
  }

  private static let canonical = ["MANUFACTURER": "MFG", "MODEL": "MDL", "COMMAND SET": "CMD"]

  public var manufacturer: String? { fields["MFG"] }
  public var model: String? { fields["MDL"] }
  /// The command sets the device speaks (`CMD:ZPL,EPL` → ["ZPL", "EPL"]).
  public var commandSets: [String] {
    (fields["CMD"] ?? "").split(separator: ",").map {
      $0.trimmingSpaces.uppercased()
    }
  }
}
