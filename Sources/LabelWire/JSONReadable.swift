import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A type read straight from a parsed value, without `Decodable`'s containers: the stored
/// rows a page of a list reads by the hundred. It accepts and refuses exactly what its
/// `Decodable` conformance does, with the same values (JSONReadableTests compare the two
/// on random and damaged rows).
public protocol JSONReadable: Decodable {
  init(json: JSONValue) throws(JSONReadError)
}

/// Why a value could not be read: the member and what was wrong with it.
public struct JSONReadError: Error, Sendable, CustomStringConvertible {
  public var member: String
  public var reason: String
  public var description: String { "\(member): \(reason)" }
}

extension JSONValue {
  /// An integer, or a double that is finite.
  var isFiniteNumber: Bool {
    switch self {
    case .int: true
    case .double(let d): d.isFinite
    default: false
    }
  }

  /// The members of an object, or why this is not one.
  fileprivate func members(_ what: String) throws(JSONReadError) -> [String: JSONValue] {
    guard case .object(let members) = self else {
      throw JSONReadError(member: what, reason: "expected an object, found \(typeName)")
    }
    return members
  }
}

/// Member readers with `Decodable`'s rules (`JSONValueDecoder`'s: null is absent for an
/// optional and missing for a required one; a whole double is an integer).
private struct Members {
  let members: [String: JSONValue]

  func required(_ key: String) throws(JSONReadError) -> JSONValue {
    guard let value = members[key], !value.isNull else {
      throw JSONReadError(member: key, reason: "missing")
    }
    return value
  }

  func optional(_ key: String) -> JSONValue? {
    guard let value = members[key], !value.isNull else { return nil }
    return value
  }

  func string(_ key: String) throws(JSONReadError) -> String {
    try Self.string(try required(key), key)
  }

  func optionalString(_ key: String) throws(JSONReadError) -> String? {
    try optional(key).map { v throws(JSONReadError) in try Self.string(v, key) }
  }

  static func string(_ value: JSONValue, _ key: String) throws(JSONReadError) -> String {
    guard case .string(let s) = value else {
      throw JSONReadError(member: key, reason: "expected a string, found \(value.typeName)")
    }
    return s
  }

  func int(_ key: String) throws(JSONReadError) -> Int {
    switch try required(key) {
    case .int(let i): return i
    case .double(let d):
      guard let i = Int(exactly: d) else {
        throw JSONReadError(member: key, reason: "\(d) does not fit in Int")
      }
      return i
    case let other:
      throw JSONReadError(member: key, reason: "expected a number, found \(other.typeName)")
    }
  }

  func date(_ key: String) throws(JSONReadError) -> Date {
    let text = try string(key)
    guard let date = InternetDate.date(text) else {
      throw JSONReadError(member: key, reason: "\"\(text)\" is not an RFC 3339 time")
    }
    return date
  }

  func optionalDecimal(_ key: String) throws(JSONReadError) -> Decimal? {
    guard let value = optional(key) else { return nil }
    guard let decimal = DecimalText.decimal(value) else {
      throw JSONReadError(member: key, reason: "expected a number, found \(value.typeName)")
    }
    return decimal
  }
}

/// A JSON number as a `Decimal`, from its shortest text ("19.99", not the binary double's
/// expansion), as `JSONDecoder` read it from the document: built from the digits, with
/// no locale and no parser of Foundation's.
public enum DecimalText {
  public static func decimal(_ value: JSONValue) -> Decimal? {
    switch value {
    case .int(let i): return Decimal(i)
    case .double(let d) where d.isFinite: return decimal(d)
    default: return nil
    }
  }

  /// `d`'s shortest round-trip digits as a decimal: "1.29" is 129 × 10^-2, "1e-07" is
  /// 1 × 10^-7, exactly.
  public static func decimal(_ d: Double) -> Decimal? {
    var text = d.description
    return text.withUTF8 { b -> Decimal? in
      var i = 0
      var negative = false
      if i < b.count, b[i] == 0x2D {
        negative = true
        i += 1
      }
      var significand: UInt64 = 0
      var exponent = 0
      var digits = 0
      var fraction = false
      while i < b.count, b[i] != 0x65, b[i] != 0x45 {
        if b[i] == 0x2E {
          fraction = true
        } else {
          let digit = UInt64(b[i]) &- 0x30
          guard digit <= 9, digits < 19 else { return nil }
          significand = significand * 10 + digit
          if significand > 0 { digits += 1 }
          if fraction { exponent -= 1 }
        }
        i += 1
      }
      if i < b.count {
        i += 1
        var sign = 1
        if i < b.count, b[i] == 0x2D || b[i] == 0x2B {
          sign = b[i] == 0x2D ? -1 : 1
          i += 1
        }
        var e = 0
        while i < b.count {
          let digit = Int(b[i]) - 0x30
          guard (0...9).contains(digit), e < 10_000 else { return nil }
          e = e * 10 + digit
          i += 1
        }
        exponent += sign * e
      }
      let magnitude = Decimal(
        sign: .plus, exponent: exponent, significand: Decimal(significand))
      // Beyond Decimal's exponents (about 10^±128) there is no such decimal, as
      // Foundation's reader says: not NaN, not a zero for a number that is not zero.
      guard !magnitude.isNaN, significand == 0 || !magnitude.isZero else { return nil }
      return negative ? -magnitude : magnitude
    }
  }
}

extension Product: JSONReadable {
  public init(json: JSONValue) throws(JSONReadError) {
    let m = Members(members: try json.members("product"))
    var fields: [String: String]?
    if let value = m.optional("fields") {
      var read: [String: String] = [:]
      for (key, item) in try value.members("fields") {
        read[key] = try Members.string(item, "fields.\(key)")
      }
      fields = read
    }
    self.init(
      sku: try m.string("sku"), name: try m.string("name"),
      price: try m.optionalDecimal("price"), currency: try m.optionalString("currency"),
      barcode: try m.optionalString("barcode"), fields: fields, version: try m.int("version"),
      updatedAt: try m.date("updatedAt"))
  }
}
