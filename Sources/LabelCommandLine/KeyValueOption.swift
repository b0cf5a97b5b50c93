import LabelCore

/// One `key=value` option, as printer specs and settings write them (`--simulate
/// zebra=zpl,dpi=203`, `--printer dock=socket://…,width=62`, the words of labeld.conf's
/// `printer =`, labeld's own `--flag VALUE`), read with the checks every reader shares, so
/// a wrong value is worded the same wherever it was written. Messages start with `owner`
/// ("zebra: dpi=abc must be a number in 100.0...1200.0").
public struct KeyValueOption: Sendable, Equatable {
  public var key: String
  public var value: String
  /// Whose option it is, for messages: a printer's name; nil for one of labeld's own flags,
  /// whose key names it.
  public var owner: String?

  public init(key: String, value: String, owner: String? = nil) {
    self.key = key
    self.value = value
    self.owner = owner
  }

  /// `part` split at its first `=`; a part without a value throws.
  public init(_ part: some StringProtocol, owner: String?) throws(SpecError) {
    let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    guard kv.count == 2, !kv[0].isEmpty, !kv[1].isEmpty else {
      throw SpecError("\(Self.prefix(owner))option \"\(part)\" needs a value")
    }
    self.init(key: String(kv[0]), value: String(kv[1]), owner: owner)
  }

  /// Each of `parts` as an option, in order.
  public static func list(_ parts: some Sequence<some StringProtocol>, owner: String?)
    throws(SpecError) -> [KeyValueOption]
  {
    var out: [KeyValueOption] = []
    for part in parts { out.append(try KeyValueOption(part, owner: owner)) }
    return out
  }

  /// The value as a number in `range`.
  public func number(in range: ClosedRange<Double>) throws(SpecError) -> Double {
    guard let d = Double(value), range.contains(d) else {
      throw wrong("a number in \(range.lowerBound)...\(range.upperBound)")
    }
    return d
  }

  /// The value as a whole number in `range`.
  public func integer(in range: ClosedRange<Int>) throws(SpecError) -> Int {
    guard let n = Int(value), range.contains(n) else {
      throw wrong("an integer in \(range.lowerBound)...\(range.upperBound)")
    }
    return n
  }

  /// `yes`/`no` (or `true`/`false`).
  public func yesNo() throws(SpecError) -> Bool {
    guard let b = SpecError.yesNo(value) else { throw wrong("yes or no") }
    return b
  }

  /// One of `choices`.
  public func choice(_ choices: [String]) throws(SpecError) -> String {
    guard choices.contains(value) else {
      throw wrong(Self.either(choices))
    }
    return value
  }

  /// The error for a value that is not `expected` ("a number in 0.0...30.0").
  public func wrong(_ expected: String) -> SpecError {
    owner == nil
      ? SpecError("\(key) must be \(expected), got \"\(value)\"")
      : SpecError("\(Self.prefix(owner))\(key)=\(value) must be \(expected)")
  }

  /// The error for a key the reader does not know, listing those it does.
  public func unknown(known: [String]) -> SpecError {
    SpecError(
      "\(Self.prefix(owner))unknown option \"\(key)\" (\(known.joined(separator: ", ")))")
  }

  /// A printer's name as specs give it: letters, digits, '-', '_' or '.'.
  public static func printerName(_ name: some StringProtocol) throws(SpecError) -> String {
    guard !name.isEmpty,
      name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
    else {
      throw SpecError("printer name \"\(name)\" must be letters, digits, '-', '_' or '.'")
    }
    return String(name)
  }

  /// "tear, cut or peel".
  public static func either(_ words: [String]) -> String {
    guard let last = words.last, words.count > 1 else { return words.first ?? "" }
    return words.dropLast().joined(separator: ", ") + " or " + last
  }

  private static func prefix(_ owner: String?) -> String { owner.map { "\($0): " } ?? "" }
}
