import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Encodes an `Encodable` straight into a `JSONValue` tree, with the protocol's rules (RFC
/// 3339 times, non-finite numbers as strings, see `LabelJSON.encoder`): error data and
/// other generic plumbing never goes through bytes to be parsed back.
public struct JSONValueEncoder {
  public init() {}

  public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
    let root = Node()
    try ValueEncoder(node: root, codingPath: []).encodeValue(value)
    return root.json
  }
}

/// A value under construction: containers hand out child nodes and the tree is read once
/// encoding is done.
private final class Node {
  enum Content {
    case value(JSONValue)
    case object([String: Node])
    case array([Node])
  }
  var content: Content = .value(.null)

  var json: JSONValue {
    switch content {
    case .value(let v): v
    case .object(let members): .object(members.mapValues(\.json))
    case .array(let items): .array(items.map(\.json))
    }
  }

  /// Makes this node an object (keeping members a container already set).
  func object() {
    if case .object = content { return }
    content = .object([:])
  }

  func array() {
    if case .array = content { return }
    content = .array([])
  }

  func set(_ key: String, _ child: Node) {
    guard case .object(var members) = content else { return }
    content = .value(.null)  // one owner of the dictionary while it changes
    members[key] = child
    content = .object(members)
  }

  func append(_ child: Node) {
    guard case .array(var items) = content else { return }
    content = .value(.null)
    items.append(child)
    content = .array(items)
  }
}

private struct ValueEncoder: Encoder {
  let node: Node
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.object()
    return KeyedEncodingContainer(KeyedEncoder<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.array()
    return UnkeyedEncoder(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  /// The types the protocol spells in its own way, then anything through its `encode(to:)`.
  func encodeValue<T: Encodable>(_ value: T) throws {
    if let date = value as? Date {
      node.content = .value(.string(InternetDate.string(date)))
    } else if let decimal = value as? Decimal {
      node.content = .value(Self.number(decimal))
    } else if let tree = value as? JSONValue {
      node.content = .value(tree)
    } else {
      try value.encode(to: self)
    }
  }

  /// A decimal as the JSON number its text is (an integer when it is whole).
  private static func number(_ decimal: Decimal) -> JSONValue {
    let text = decimal.description
    if let i = Int(text) { return .int(i) }
    return Double(text).map(JSONValue.double) ?? .string(text)
  }

  fileprivate func put(_ value: JSONValue) { node.content = .value(value) }

  fileprivate func put(_ d: Double) {
    if d.isFinite {
      put(.double(d))
    } else {
      // As LabelJSON.encoder writes them: JSON has no infinity or NaN.
      put(.string(d.isNaN ? "NaN" : d > 0 ? "Infinity" : "-Infinity"))
    }
  }

  /// An integer as a JSON number; one beyond `Int` (a UInt64 above 2^63) as the nearest
  /// double rather than a trap.
  fileprivate func put<T: BinaryInteger>(integer value: T) {
    if let i = Int(exactly: value) { put(.int(i)) } else { put(.double(Double(value))) }
  }
}

extension ValueEncoder: SingleValueEncodingContainer {
  func encodeNil() { put(.null) }
  func encode(_ value: Bool) { put(.bool(value)) }
  func encode(_ value: String) { put(.string(value)) }
  func encode(_ value: Double) { put(value) }
  func encode(_ value: Float) { put(Double(value)) }
  func encode(_ value: Int) { put(.int(value)) }
  func encode(_ value: Int8) { put(integer: value) }
  func encode(_ value: Int16) { put(integer: value) }
  func encode(_ value: Int32) { put(integer: value) }
  func encode(_ value: Int64) { put(integer: value) }
  func encode(_ value: UInt) { put(integer: value) }
  func encode(_ value: UInt8) { put(integer: value) }
  func encode(_ value: UInt16) { put(integer: value) }
  func encode(_ value: UInt32) { put(integer: value) }
  func encode(_ value: UInt64) { put(integer: value) }
  func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: Node
  let codingPath: [any CodingKey]

  private func child(_ key: any CodingKey) -> ValueEncoder {
    let child = Node()
    node.set(key.stringValue, child)
    return ValueEncoder(node: child, codingPath: codingPath + [key])
  }

  mutating func encodeNil(forKey key: Key) { child(key).put(.null) }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try child(key).encodeValue(value)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    child(key).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    child(key).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder { child(SuperKey()) }

  mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]
  private(set) var count = 0

  init(node: Node, codingPath: [any CodingKey]) {
    self.node = node
    self.codingPath = codingPath
  }

  private mutating func next() -> ValueEncoder {
    let child = Node()
    node.append(child)
    defer { count += 1 }
    return ValueEncoder(node: child, codingPath: codingPath + [ItemKey(intValue: count)])
  }

  mutating func encodeNil() { next().put(.null) }

  mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    next().container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    next().unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder { next() }
}

private struct SuperKey: CodingKey {
  var stringValue: String { "super" }
  var intValue: Int? { nil }
  init() {}
  init?(stringValue: String) { return nil }
  init?(intValue: Int) { return nil }
}

private struct ItemKey: CodingKey {
  let intValue: Int?
  var stringValue: String { "Index \(intValue ?? 0)" }
  init(intValue: Int) { self.intValue = intValue }
  init?(stringValue: String) { return nil }
}
