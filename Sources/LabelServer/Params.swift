import FoundationEssentials
import LabelCore
import LabelWire

/// A request's params, read field by field so that every bad field is named in the -32602
/// error's `data.field`. Unknown fields are ignored (clients may be newer than us).
package struct Params {
  package let values: [String: JSONValue]

  package init(_ value: JSONValue?) throws(RPCError) {
    switch value {
    case nil, .null?: values = [:]
    case .object(let o)?:
      if let path = JSONValue.object(o).nonFiniteNumberPath() {
        throw .invalidParams(field: path, reason: "is a number out of range (beyond ±1.8e308)")
      }
      values = o
    case let other?:
      throw .invalidParams(field: "params", reason: "must be an object, got \(other.typeName)")
    }
  }

  /// Members already checked as part of their parent.
  private init(checked values: [String: JSONValue]) { self.values = values }

  package func has(_ key: String) -> Bool { values[key].map { !$0.isNull } ?? false }

  package func string(_ key: String) throws(RPCError) -> String {
    guard let v = try optionalString(key) else {
      throw .invalidParams(field: path(key), reason: "is required")
    }
    return v
  }

  package func optionalString(_ key: String) throws(RPCError) -> String? {
    switch values[key] {
    case nil, .null?: return nil
    case .string(let s)?: return s
    case let other?:
      throw .invalidParams(field: path(key), reason: "expected a string, got \(other.typeName)")
    }
  }

  package func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(RPCError) -> Int? {
    switch values[key] {
    case nil, .null?: return nil
    case let v?:
      guard let i = v.intValue else {
        throw .invalidParams(field: path(key), reason: "expected an integer, got \(v.typeName)")
      }
      guard range.contains(i) else {
        throw .invalidParams(
          field: path(key), reason: "\(i) is out of range \(range.lowerBound)...\(range.upperBound)"
        )
      }
      return i
    }
  }

  package func int(_ key: String, in range: ClosedRange<Int>) throws(RPCError) -> Int {
    guard let v = try optionalInt(key, in: range) else {
      throw .invalidParams(field: path(key), reason: "is required")
    }
    return v
  }

  package func optionalStringArray(_ key: String) throws(RPCError) -> [String]? {
    switch values[key] {
    case nil, .null?: return nil
    case .array(let items)?:
      var out: [String] = []
      for (i, item) in items.enumerated() {
        guard case .string(let s) = item else {
          throw .invalidParams(field: "\(path(key))[\(i)]", reason: "expected a string")
        }
        out.append(s)
      }
      return out
    case let other?:
      throw .invalidParams(field: path(key), reason: "expected an array, got \(other.typeName)")
    }
  }

  /// A string-to-string object (template data).
  package func optionalStringMap(_ key: String) throws(RPCError) -> [String: String]? {
    switch values[key] {
    case nil, .null?: return nil
    case .object(let o)?:
      var out: [String: String] = [:]
      for (k, v) in o {
        switch v {
        case .string(let s): out[k] = s
        case .int(let i): out[k] = String(i)
        case .double(let d): out[k] = String(d)
        default:
          throw .invalidParams(
            field: "\(path(key)).\(k)", reason: "expected a string, got \(v.typeName)")
        }
      }
      return out
    case let other?:
      throw .invalidParams(field: path(key), reason: "expected an object, got \(other.typeName)")
    }
  }

  /// The largest page a list answers (`limit`).
  package static let maxPage = 10_000

  /// An RFC 3339 time (`2026-12-01T09:30:00Z`, fractions of a second allowed).
  package func optionalTime(_ key: String) throws(RPCError) -> Date? {
    guard let text = try optionalString(key) else { return nil }
    if let date = InternetDate.date(text, fractions: true) { return date }
    throw .invalidParams(
      field: path(key), reason: "\"\(text)\" is not an RFC 3339 time (2026-12-01T09:30:00Z)")
  }

  package func object(_ key: String) throws(RPCError) -> Params {
    switch values[key] {
    case nil, .null?: throw .invalidParams(field: path(key), reason: "is required")
    case .object(let o)?: return Params(checked: o).prefixed(key)
    case let other?:
      throw .invalidParams(field: path(key), reason: "expected an object, got \(other.typeName)")
    }
  }

  /// Decodes the member `key` as a Codable type; decoding failures name the field.
  package func decode<T: Decodable>(_ key: String, as type: T.Type) throws(RPCError) -> T {
    guard let v = values[key], !v.isNull else {
      throw .invalidParams(field: path(key), reason: "is required")
    }
    guard case .object = v else {
      throw .invalidParams(field: path(key), reason: "expected an object, got \(v.typeName)")
    }
    do {
      return try LabelJSON.decode(type, from: v)
    } catch let e as DecodingError {
      throw .invalidParams(FieldError(e, under: path(key)))
    } catch {
      throw .invalidParams(field: path(key), reason: "\(error)")
    }
  }

  /// Field names of nested params are reported with their parent ("document.data").
  private var prefix = ""
  private func prefixed(_ p: String) -> Params {
    var copy = self
    copy.prefix = p
    return copy
  }
  package func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }
}
