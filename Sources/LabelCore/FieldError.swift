/// A validation failure naming the offending field: becomes error -32602 with
/// `{"field", "reason"}`.
public struct FieldError: Error, Sendable, Equatable {
  public var field: String
  public var reason: String
  public init(field: String, reason: String) {
    self.field = field
    self.reason = reason
  }

  /// The same error with its field placed under `parent` ("barcode" → "product.barcode").
  public func nested(under parent: String) -> FieldError {
    FieldError(field: parent.isEmpty ? field : "\(parent).\(field)", reason: reason)
  }

  /// Turns a `DecodingError` into the field path and a readable reason.
  public init(_ error: DecodingError, under parent: String = "") {
    func path(_ keys: [any CodingKey]) -> String {
      var out = ""
      for key in keys {
        if let index = key.intValue,
          key.stringValue.hasPrefix("Index") || key.stringValue == "\(index)"
        {
          out += "[\(index)]"
        } else {
          out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
      }
      return out
    }
    let field: String
    let reason: String
    switch error {
    case .typeMismatch(let type, let ctx):
      field = path(ctx.codingPath)
      reason = "expected \(Self.jsonTypeName(type))"
    case .valueNotFound(let type, let ctx):
      field = path(ctx.codingPath)
      reason = "expected \(Self.jsonTypeName(type)), got null"
    case .keyNotFound(let key, let ctx):
      field = path(ctx.codingPath + [key])
      reason = "is required"
    case .dataCorrupted(let ctx):
      field = path(ctx.codingPath)
      reason = ctx.debugDescription
    @unknown default:
      field = ""
      reason = "\(error)"
    }
    self = FieldError(field: field, reason: reason).nested(under: parent)
  }

  private static func jsonTypeName(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "a string"
    case is Int.Type, is Double.Type, is UInt32.Type, is UInt64.Type: return "a number"
    case is Bool.Type: return "a boolean"
    default:
      let name = "\(type)"
      if name.hasPrefix("Array") { return "an array" }
      if name.hasPrefix("Dictionary") { return "an object" }
      if name.hasPrefix("Decimal") { return "a number" }
      return "a valid \(name)"
    }
  }
}
