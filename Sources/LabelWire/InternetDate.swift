import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Dates on the wire: RFC 3339 internet date-times in UTC without fractions
/// ("2026-12-02T03:07:11Z"), as `JSONEncoder`'s `.iso8601` writes them.
public enum InternetDate {
  public static func string(_ date: Date) -> String {
    var bytes: [UInt8] = []
    RFC3339.write(date, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The date `text` names; with `fractions`, fractions of a second are allowed too. The
  /// form labeld writes is read without a formatter; others are asked of Foundation.
  public static func date(_ text: String, fractions: Bool = false) -> Date? {
    if let date = RFC3339.parse(text) { return date }
    if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
    guard fractions else { return nil }
    return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
  }
}
