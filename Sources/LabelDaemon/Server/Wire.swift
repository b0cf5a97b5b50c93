import Foundation
import LabelCore

/// One message queued for a connection: a complete `\n`-terminated line.
struct OutboundMessage: Sendable {
  enum Kind: Sendable {
    /// A response to the connection's own request (bounded by pausing reads instead).
    case response
    /// A notification; counts against the connection's outgoing bound.
    case notification
    /// A notification replayed for `subscribe` with `since`, in chunks sized to the bound.
    case replay
  }
  var bytes: [UInt8]
  var kind: Kind
  /// The alert seq this line carries, for the `overflow` notification's `seq`.
  var alertSeq: UInt64?
}

/// Encodes protocol lines: JSON-RPC 2.0 envelopes, one line each.
enum Wire {
  private struct ResultEnvelope<R: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let id: JSONValue
    let result: R
  }
  private struct ErrorEnvelope: Encodable {
    let jsonrpc = "2.0"
    let id: JSONValue
    let error: RPCError
  }
  private struct NotificationEnvelope<P: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let method: String
    let params: P
  }

  static func line<T: Encodable>(_ value: T) -> [UInt8] {
    do {
      var bytes = [UInt8](try LabelJSON.encoder().encode(value))
      bytes.append(0x0A)
      return bytes
    } catch {
      // Our own result types always encode; failing here is a programming error.
      preconditionFailure("cannot encode \(T.self): \(error)")
    }
  }

  static func result<R: Encodable>(id: JSONValue, _ result: R) -> [UInt8] {
    line(ResultEnvelope(id: id, result: result))
  }

  static func error(id: JSONValue?, _ error: RPCError) -> [UInt8] {
    line(ErrorEnvelope(id: id ?? .null, error: error))
  }

  static func notification<P: Encodable>(_ method: NotificationMethod, _ params: P) -> [UInt8] {
    line(NotificationEnvelope(method: method.rawValue, params: params))
  }
}
