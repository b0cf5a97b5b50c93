import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// JSON plumbing for the protocol's types. labeld writes JSON with `JSONWriter` and reads it
/// with `JSONValue.parse` and `decode(_:from:)`; `encoder()` and `decoder()` are
/// Foundation's coders configured as labeld used them before, kept as the reference the
/// golden tests compare `JSONWriter` with (and for tests that read JSON text), never on a
/// path a request or a job takes (`OneJSONStackTests` checks).
public enum LabelJSON {
  public static func encoder() -> JSONEncoder {
    let e = JSONEncoder()
    e.dateEncodingStrategy = .iso8601
    e.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    // JSON has no infinity or NaN. Inputs are checked so that none reaches a value labeld
    // sends or stores; should one slip through, it is written as a string rather than
    // making the encoder throw (the protocol's encoders treat a throw as a bug and trap).
    e.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    return e
  }

  public static func decoder() -> JSONDecoder {
    let d = JSONDecoder()
    d.dateDecodingStrategy = .iso8601
    return d
  }

  /// Encodes `value` as a JSON value tree (for error data and generic plumbing): written
  /// by the one writer the protocol's answers use, then parsed, so the tree is exactly the
  /// text a client receives (no second encoder to keep in step; none of its callers is on
  /// a hot path).
  public static func value<T: Encodable>(_ value: T) throws -> JSONValue {
    try JSONValue.parse(JSONWriter.write(value))
  }

  /// Decodes a typed value from a JSON value tree (a request's params as parsed); a
  /// DecodingError names the field.
  public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    try JSONValueDecoder().decode(type, from: value)
  }
}
