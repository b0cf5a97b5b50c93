import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A type that writes its own JSON (`JSONOutput`'s form), straight into the output: the
/// protocol's objects that answers carry by the hundred (jobs, products, printers, alert
/// events) and their lists. What it writes must be exactly what its `Encodable`
/// conformance encodes; the golden tests compare the two.
public protocol JSONWritable: Encodable {
  func write(to out: inout JSONOutput)
}

/// labeld's one JSON writer: any `Encodable` to `JSONOutput`'s form. A `JSONWritable` value
/// writes itself; anything else is encoded into a small tree whose objects' keys are
/// sorted when it is written, with `JSONWritable` values inside written straight away.
public enum JSONWriter {
  public static func write<T: Encodable>(_ value: T) throws -> [UInt8] {
    var out = JSONOutput()
    try write(value, to: &out)
    return out.bytes
  }

  public static func write<T: Encodable>(_ value: T, to out: inout JSONOutput) throws {
    if let writable = value as? any JSONWritable {
      writable.write(to: &out)
      return
    }
    let root = Node()
    try TreeEncoder(node: root, codingPath: []).encodeValue(value)
    root.write(to: &out)
  }
}

/// A value under construction: containers hand out child nodes; scalars are written as
/// soon as they are encoded.
private final class Node {
  enum Content {
    case none
    case bytes([UInt8])
    case object([(key: String, node: Node)])
    case array([Node])
  }
  var content = Content.none

  func write(to out: inout JSONOutput) {
    switch content {
    case .none: out.null()
    case .bytes(let b): out.raw(b)
    case .array(let items):
      out.byte(0x5B)
      for (i, item) in items.enumerated() {
        if i > 0 { out.byte(0x2C) }
        item.write(to: &out)
      }
      out.byte(0x5D)
    case .object(let members):
      out.byte(0x7B)
      let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
      for (i, member) in sorted.enumerated() {
        if i > 0 { out.byte(0x2C) }
        out.string(member.key)
        out.byte(0x3A)
        member.node.write(to: &out)
      }
      out.byte(0x7D)
    }
  }

  func makeObject() {
    if case .object = content { return }
    content = .object([])
  }

  func makeArray() {
    if case .array = content { return }
    content = .array([])
  }

  /// The member `key`'s node: a key encoded twice keeps the later value, as a dictionary.
  func member(_ key: String) -> Node {
    guard case .object(var members) = content else { return Node() }
    if let existing = members.first(where: { $0.key == key }) {
      existing.node.content = .none
      return existing.node
    }
    let child = Node()
    content = .none  // one owner of the array while it grows
    members.append((key, child))
    content = .object(members)
    return child
  }

  func append() -> Node {
    guard case .array(var items) = content else { return Node() }
    let child = Node()
    content = .none
    items.append(child)
    content = .array(items)
    return child
  }
}

private struct TreeEncoder: Encoder {
  let node: Node
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.makeObject()
    return KeyedEncodingContainer(KeyedTreeEncoder<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.makeArray()
    return UnkeyedTreeEncoder(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  /// The types JSON spells in its own way, then anything through its `encode(to:)`.
  func encodeValue<T: Encodable>(_ value: T) throws {
    if let writable = value as? any JSONWritable {
      var out = JSONOutput(capacity: 64)
      writable.write(to: &out)
      node.content = .bytes(out.bytes)
    } else {
      try value.encode(to: self)
    }
  }

  func put(_ write: (inout JSONOutput) -> Void) {
    var out = JSONOutput(capacity: 16)
    write(&out)
    node.content = .bytes(out.bytes)
  }
}

extension TreeEncoder: SingleValueEncodingContainer {
  func encodeNil() { put { $0.null() } }
  func encode(_ value: Bool) { put { $0.bool(value) } }
  func encode(_ value: String) { put { $0.string(value) } }
  func encode(_ value: Double) { put { $0.double(value) } }
  func encode(_ value: Float) { put { $0.double(Double(value)) } }
  func encode(_ value: Int) { put { $0.int(value) } }
  func encode(_ value: Int8) { put { $0.int(value) } }
  func encode(_ value: Int16) { put { $0.int(value) } }
  func encode(_ value: Int32) { put { $0.int(value) } }
  func encode(_ value: Int64) { put { $0.int(value) } }
  func encode(_ value: UInt) { put { $0.int(value) } }
  func encode(_ value: UInt8) { put { $0.int(value) } }
  func encode(_ value: UInt16) { put { $0.int(value) } }
  func encode(_ value: UInt32) { put { $0.int(value) } }
  func encode(_ value: UInt64) { put { $0.int(value) } }
  func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }
}

private struct KeyedTreeEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: Node
  let codingPath: [any CodingKey]

  private func child(_ key: any CodingKey) -> TreeEncoder {
    TreeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
  }

  mutating func encodeNil(forKey key: Key) { child(key).encodeNil() }

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

  mutating func superEncoder() -> any Encoder { child(TreeKey(stringValue: "super")) }

  mutating func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

private struct UnkeyedTreeEncoder: UnkeyedEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]
  private(set) var count = 0

  init(node: Node, codingPath: [any CodingKey]) {
    self.node = node
    self.codingPath = codingPath
  }

  private mutating func next() -> TreeEncoder {
    defer { count += 1 }
    return TreeEncoder(node: node.append(), codingPath: codingPath + [TreeKey(intValue: count)])
  }

  mutating func encodeNil() { next().encodeNil() }

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

private struct TreeKey: CodingKey {
  let stringValue: String
  let intValue: Int?
  init(stringValue: String) {
    self.stringValue = stringValue
    intValue = nil
  }
  init(intValue: Int) {
    stringValue = "Index \(intValue)"
    self.intValue = intValue
  }
}

// The scalar types write themselves: inside a tree they need no node of their own kind,
// and a `[String: String]` or `[Job]` is written in one pass.
extension String: JSONWritable {
  public func write(to out: inout JSONOutput) { out.string(self) }
}
extension Int: JSONWritable {
  public func write(to out: inout JSONOutput) { out.int(self) }
}
extension UInt32: JSONWritable {
  public func write(to out: inout JSONOutput) { out.int(self) }
}
extension UInt64: JSONWritable {
  public func write(to out: inout JSONOutput) { out.int(self) }
}
extension Bool: JSONWritable {
  public func write(to out: inout JSONOutput) { out.bool(self) }
}
extension Double: JSONWritable {
  public func write(to out: inout JSONOutput) { out.double(self) }
}
extension Decimal: JSONWritable {
  public func write(to out: inout JSONOutput) { out.decimal(self) }
}
extension Date: JSONWritable {
  public func write(to out: inout JSONOutput) { out.date(self) }
}
extension Array: JSONWritable where Element: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x5B)
    for (i, item) in enumerated() {
      if i > 0 { out.byte(0x2C) }
      item.write(to: &out)
    }
    out.byte(0x5D)
  }
}
extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
  public func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    for (i, key) in keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
      if i > 0 { out.byte(0x2C) }
      out.string(key)
      out.byte(0x3A)
      self[key]?.write(to: &out)
    }
    out.byte(0x7D)
  }
}
