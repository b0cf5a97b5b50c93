/// A JSON document as a value, for the parts of the protocol whose shape is open
/// (request ids, error data, free-form params) and for round-tripping unknown input.
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// The member `key` when this is an object, else nil.
  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// Integers, and doubles that hold a whole number (JSON does not tell them apart).
  public var intValue: Int? {
    switch self {
    case .int(let i): return i
    case .double(let d) where d.rounded() == d && abs(d) < 9e15: return Int(d)
    default: return nil
    }
  }

  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  public var objectValue: [String: JSONValue]? {
    if case .object(let o) = self { return o }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// The path ("product.price", "elements[2].x") of the first number in this value that
  /// no Double holds (`1e400` parses as infinity), or nil when every number is finite.
  /// Such a number can be neither stored nor sent back, so requests are refused with it.
  public func nonFiniteNumberPath(under prefix: String = "") -> String? {
    switch self {
    case .double(let d): return d.isFinite ? nil : prefix
    case .array(let items):
      for (i, item) in items.enumerated() {
        if let path = item.nonFiniteNumberPath(under: "\(prefix)[\(i)]") { return path }
      }
      return nil
    case .object(let members):
      for (key, value) in members {
        let path = prefix.isEmpty ? key : "\(prefix).\(key)"
        if let found = value.nonFiniteNumberPath(under: path) { return found }
      }
      return nil
    case .null, .bool, .int, .string: return nil
    }
  }

  /// The JSON type's name, for error messages ("expected string, got number").
  public var typeName: String {
    switch self {
    case .null: return "null"
    case .bool: return "boolean"
    case .int, .double: return "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    }
  }
}

extension JSONValue: Codable {
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let i = try? c.decode(Int.self) {
      self = .int(i)
    } else if let d = try? c.decode(Double.self) {
      self = .double(d)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .null: try c.encodeNil()
    case .bool(let b): try c.encode(b)
    case .int(let i): try c.encode(i)
    // JSON has no infinity or NaN: written as null, as `serialized()` does.
    case .double(let d): if d.isFinite { try c.encode(d) } else { try c.encodeNil() }
    case .string(let s): try c.encode(s)
    case .array(let a): try c.encode(a)
    case .object(let o): try c.encode(o)
    }
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByFloatLiteral, ExpressibleByDictionaryLiteral,
  ExpressibleByArrayLiteral,
  ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .int(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(nilLiteral: ()) { self = .null }
}
