import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Decodes a `Decodable` straight from a parsed `JSONValue`, with the protocol's rules
/// (RFC 3339 times, numbers as JSON numbers): a request's params are parsed once and never
/// written back to bytes to be parsed again. Errors are `DecodingError`s with the coding
/// path of the member at fault, as `JSONDecoder` reports them.
public struct JSONValueDecoder {
  public init() {}

  public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    try ValueDecoder(value: value, codingPath: []).decodeValue(type)
  }
}

/// One value being decoded, at `codingPath`.
private struct ValueDecoder: Decoder {
  let value: JSONValue
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = value else {
      throw mismatch([String: JSONValue].self, value, codingPath)
    }
    return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let items) = value else {
      throw mismatch([JSONValue].self, value, codingPath)
    }
    return Unkeyed(items: items, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  /// The value as `T`: the types JSON has directly, the ones the protocol spells in its
  /// own way (times, decimals), and anything else through its own `init(from:)`.
  func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
    if T.self == Date.self, let date = try decodeDate() as? T { return date }
    if T.self == Decimal.self, let decimal = try decodeDecimal() as? T { return decimal }
    if T.self == JSONValue.self, let tree = value as? T { return tree }
    return try T(from: self)
  }

  /// The value as `T` where a value is required: null is `valueNotFound` (a `JSONValue`
  /// takes null as it is).
  func decodePresent<T: Decodable>(_ type: T.Type) throws -> T {
    if value.isNull, T.self != JSONValue.self {
      throw DecodingError.valueNotFound(
        type,
        .init(
          codingPath: codingPath,
          debugDescription: "Cannot get value of type \(T.self) -- found null value instead"))
    }
    return try decodeValue(type)
  }

  private func decodeDate() throws -> Date {
    guard case .string(let text) = value else { throw mismatch(String.self, value, codingPath) }
    // JSONDecoder's .iso8601: an internet date-time without fractions.
    guard let date = InternetDate.date(text) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: codingPath, debugDescription: "Expected date string to be ISO8601-formatted.")
      )
    }
    return date
  }

  /// A decimal from the number's shortest text ("19.99", not the binary double's expansion),
  /// as `JSONDecoder` reads it from the document's text.
  private func decodeDecimal() throws -> Decimal {
    guard value.isFiniteNumber else { throw mismatch(Decimal.self, value, codingPath) }
    guard let decimal = DecimalText.decimal(value) else {
      throw corrupted("Parsed JSON number <\(value)> does not fit in Decimal.")
    }
    return decimal
  }

  fileprivate func corrupted(_ text: String) -> DecodingError {
    .dataCorrupted(.init(codingPath: codingPath, debugDescription: text))
  }
}

extension ValueDecoder: SingleValueDecodingContainer {
  func decodeNil() -> Bool { value.isNull }

  func decode(_ type: Bool.Type) throws -> Bool {
    guard case .bool(let b) = value else { throw mismatch(type, value, codingPath) }
    return b
  }

  func decode(_ type: String.Type) throws -> String {
    guard case .string(let s) = value else { throw mismatch(type, value, codingPath) }
    return s
  }

  func decode(_ type: Double.Type) throws -> Double {
    switch value {
    case .int(let i): return Double(i)
    case .double(let d): return d
    default: throw mismatch(type, value, codingPath)
    }
  }

  func decode(_ type: Float.Type) throws -> Float {
    let d = try decode(Double.self)
    guard d.isFinite, abs(d) <= Double(Float.greatestFiniteMagnitude) else {
      throw corrupted("Parsed JSON number <\(d)> does not fit in Float.")
    }
    return Float(d)
  }

  func decode(_ type: Int.Type) throws -> Int { try integer(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

  /// A whole number that fits `T` (a number written with a fraction of zero counts, as in
  /// `JSONDecoder`); never a trapping conversion.
  private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    switch value {
    case .int(let i):
      guard let n = T(exactly: i) else {
        throw corrupted("Parsed JSON number <\(i)> does not fit in \(T.self).")
      }
      return n
    case .double(let d):
      guard let n = T(exactly: d) else {
        throw corrupted("Parsed JSON number <\(d)> does not fit in \(T.self).")
      }
      return n
    default: throw mismatch(type, value, codingPath)
    }
  }
}

/// The members of an object.
private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let members: [String: JSONValue]
  let codingPath: [any CodingKey]

  var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

  private func member(_ key: Key) throws -> ValueDecoder {
    guard let value = members[key.stringValue] else {
      throw DecodingError.keyNotFound(
        key,
        .init(
          codingPath: codingPath,
          debugDescription: "No value associated with key \(key.stringValue)."))
    }
    return ValueDecoder(value: value, codingPath: codingPath + [key])
  }

  func decodeNil(forKey key: Key) throws -> Bool { try member(key).value.isNull }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try member(key).decodePresent(type)
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let value = members[key.stringValue], !value.isNull else { return nil }
    return try ValueDecoder(value: value, codingPath: codingPath + [key]).decodeValue(type)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try member(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try member(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    ValueDecoder(
      value: members["super"] ?? .null, codingPath: codingPath + [IndexKey(stringValue: "super")])
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
  }
}

/// The items of an array, in order.
private struct Unkeyed: UnkeyedDecodingContainer {
  let items: [JSONValue]
  let codingPath: [any CodingKey]
  private(set) var currentIndex = 0

  init(items: [JSONValue], codingPath: [any CodingKey]) {
    self.items = items
    self.codingPath = codingPath
  }

  var count: Int? { items.count }
  var isAtEnd: Bool { currentIndex >= items.count }

  private mutating func next<T>(_ type: T.Type) throws -> ValueDecoder {
    let key = IndexKey(intValue: currentIndex)
    guard currentIndex < items.count else {
      throw DecodingError.valueNotFound(
        type,
        .init(codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end."))
    }
    defer { currentIndex += 1 }
    return ValueDecoder(value: items[currentIndex], codingPath: codingPath + [key])
  }

  mutating func decodeNil() throws -> Bool {
    guard currentIndex < items.count, items[currentIndex].isNull else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try next(type).decodePresent(type)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try next([String: JSONValue].self).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try next([JSONValue].self).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) }
}

/// An array index (or `super`) on a coding path, spelled as `JSONDecoder` spells it.
private struct IndexKey: CodingKey {
  let stringValue: String
  let intValue: Int?

  init(intValue: Int) {
    self.intValue = intValue
    self.stringValue = "Index \(intValue)"
  }

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }
}

/// A member of the wrong JSON type.
private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey])
  -> DecodingError
{
  .typeMismatch(
    type,
    .init(
      codingPath: path,
      debugDescription: "Expected to decode \(type) but found \(value.typeName) instead."))
}
