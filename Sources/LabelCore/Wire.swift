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

/// Encodes protocol lines: JSON-RPC 2.0 envelopes, one line each.
public enum Wire {
  private struct NotificationEnvelope<P: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let method: String
    let params: P
  }

  public static func line<T: Encodable>(_ value: T) -> [UInt8] {
    do {
      var bytes = [UInt8](try LabelJSON.encoder().encode(value))
      bytes.append(0x0A)
      return bytes
    } catch {
      // Our own result types always encode; failing here is a programming error.
      preconditionFailure("cannot encode \(T.self): \(error)")
    }
  }

  /// `{"id":ID,"jsonrpc":"2.0","result":RESULT}`. A result that cannot be encoded (a
  /// bug) becomes a -32603 answer rather than a crash.
  public static func result<R: Encodable>(id: RequestID, _ result: R) -> [UInt8] {
    let encoded: [UInt8]
    do {
      encoded = [UInt8](try LabelJSON.encoder().encode(result))
    } catch {
      return Self.error(id: id, .internalError("cannot encode the result: \(error)"))
    }
    return envelope(id: id, member: "result", encoded)
  }

  /// The same, for a result already encoded (`json`: one JSON value).
  public static func result(id: RequestID, json: [UInt8]) -> [UInt8] {
    envelope(id: id, member: "result", json)
  }

  /// `{"error":ERROR,"id":ID,"jsonrpc":"2.0"}`; `id` nil is `null` (the request's id
  /// could not be read).
  public static func error(id: RequestID?, _ error: RPCError) -> [UInt8] {
    // RPCError holds strings, integers and JSONValue data (non-finite numbers written as
    // null): it always encodes.
    let encoded =
      (try? LabelJSON.encoder().encode(error)).map { [UInt8]($0) }
      ?? Array(#"{"code":-32603,"message":"internal error"}"#.utf8)
    return envelope(id: id, member: "error", encoded)
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

  public static func notification<P: Encodable>(_ method: NotificationMethod, _ params: P)
    -> [UInt8]
  {
    line(NotificationEnvelope(method: method.rawValue, params: params))
  }
}
