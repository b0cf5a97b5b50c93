import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A request's `id` exactly as the client wrote it: the raw JSON text of a number or a
/// string, echoed byte for byte in the response (JSON-RPC 2.0 §5: the same value as the
/// request's). No Swift number holds every JSON number (`1e400`, 30 digits), so the id is
/// never converted.
public struct RequestID: Sendable, Equatable {
  /// The member's text: a number, a string with its quotes and escapes, or `null`.
  public let json: [UInt8]

  public init(json: [UInt8]) { self.json = json }
}

/// Encodes protocol lines: JSON-RPC 2.0 envelopes, one line each, written by `JSONWriter`.
public enum Wire {
  /// `value` and a newline. Our own types always encode; failing is a programming error.
  public static func line<T: Encodable>(_ value: T) -> [UInt8] {
    do {
      var out = JSONOutput()
      try JSONWriter.write(value, to: &out)
      out.byte(0x0A)
      return out.bytes
    } catch {
      preconditionFailure("cannot encode \(T.self): \(error)")
    }
  }

  /// `{"id":ID,"jsonrpc":"2.0","result":RESULT}`. A result that cannot be encoded (a
  /// bug) becomes a -32603 answer rather than a crash.
  public static func result<R: Encodable>(id: RequestID, _ result: R) -> [UInt8] {
    var out = JSONOutput(capacity: 512)
    out.raw(#"{"id":"#)
    out.raw(id.json)
    out.raw(#","jsonrpc":"2.0","result":"#)
    do {
      try JSONWriter.write(result, to: &out)
    } catch {
      return Self.error(id: id, .internalError("cannot encode the result: \(error)"))
    }
    out.raw("}\n")
    return out.bytes
  }

  /// The same, for a result already encoded (`json`: one JSON value).
  public static func result(id: RequestID, json: [UInt8]) -> [UInt8] {
    envelope(id: id, member: "result", json)
  }

  /// `{"error":ERROR,"id":ID,"jsonrpc":"2.0"}`; `id` nil is `null` (the request's id
  /// could not be read).
  public static func error(id: RequestID?, _ error: RPCError) -> [UInt8] {
    var out = JSONOutput()
    out.raw(#"{"error":"#)
    error.write(to: &out)
    out.raw(#","id":"#)
    out.raw(id?.json ?? Array("null".utf8))
    out.raw(#","jsonrpc":"2.0"}"#)
    out.byte(0x0A)
    return out.bytes
  }

  private static func envelope(id: RequestID?, member: String, _ body: [UInt8]) -> [UInt8] {
    let idText = id?.json ?? Array("null".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(body.count + idText.count + 40)
    if member == "error" {
      out += Array(#"{"error":"#.utf8) + body + Array(#","id":"#.utf8) + idText
      out += Array(#","jsonrpc":"2.0"}"#.utf8)
    } else {
      out += Array(#"{"id":"#.utf8) + idText + Array(#","jsonrpc":"2.0","result":"#.utf8) + body
      out += Array("}".utf8)
    }
    out.append(0x0A)
    return out
  }

  /// `{"jsonrpc":"2.0","method":METHOD,"params":PARAMS}` (its keys in sorted order).
  public static func notification<P: Encodable>(_ method: NotificationMethod, _ params: P)
    -> [UInt8]
  {
    var out = JSONOutput(capacity: 384)
    out.raw(#"{"jsonrpc":"2.0","method":"#)
    out.string(method.rawValue)
    out.raw(#","params":"#)
    do {
      try JSONWriter.write(params, to: &out)
    } catch {
      preconditionFailure("cannot encode \(P.self): \(error)")
    }
    out.raw("}\n")
    return out.bytes
  }
}
