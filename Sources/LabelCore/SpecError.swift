/// A command-line or configuration value that does not parse.
public struct SpecError: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ d: String) { description = d }

  /// A yes/no setting as the command line and labeld.conf spell it ("yes", "true", "no",
  /// "false"); nil for anything else.
  public static func yesNo(_ value: String) -> Bool? {
    ["yes": true, "true": true, "no": false, "false": false][value]
  }
}
