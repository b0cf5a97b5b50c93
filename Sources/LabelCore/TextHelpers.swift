#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension StringProtocol {
  /// Without leading and trailing spaces and tabs: what `CharacterSet.whitespaces` trims
  /// (Unicode's space separators and TAB), not line breaks.
  public var trimmingSpaces: String {
    func isSpace(_ c: Character) -> Bool {
      c.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(self[first...last])
  }
}

extension StringProtocol {
  /// Without leading and trailing white space, line breaks included (Unicode's
  /// White_Space: what `CharacterSet.whitespacesAndNewlines` trims).
  public var trimmed: String {
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }
}
