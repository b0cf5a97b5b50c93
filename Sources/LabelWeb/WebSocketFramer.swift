import LabelCore
import LabelServer
import LabelWebSocket

/// Protocol v1 over a WebSocket (RFC 6455): one JSON-RPC message per text message. The
/// second framing of a connection's pipeline, beside the Unix socket's `LineFramer`: the
/// same budget, dispatcher and writer serve both. The frames are read by the codec
/// LabelKit uses too (`WebSocketReader`, server role); this maps what it reads onto the
/// pipeline.
///
/// A frame that breaks the protocol (§5: unmasked, reserved bits or opcodes, a control
/// frame fragmented or over 125 bytes, a continuation with no start, a bad close body)
/// fails the connection (§7.1.7): a close frame with 1002 (1007 for text or a close
/// reason that is not UTF-8, as soon as the bytes prove it) after the answers to the
/// requests before it, and nothing after the bad frame is read or answered. What the
/// protocol allows but labeld does not take is refused with a JSON-RPC error first and
/// then the close: a binary message (1003: the protocol is text), a message longer than
/// the limit (1009). A ping is answered with a pong at once (§5.5.2); a close frame with
/// one echoing its code (§5.5.1), after the answers to the requests before it.
package struct WebSocketFramer: Framer {
  private var reader: WebSocketReader
  /// The close frame this side sends last.
  private var closing = WebSocketFrame.close(code: WebSocketCloseCode.normal)

  package init(maxMessageBytes: Int) {
    reader = WebSocketReader(role: .server, maxMessageBytes: maxMessageBytes)
  }

  package var partialBytes: Int { reader.partialBytes }

  package mutating func take(_ bytes: UnsafeRawBufferPointer, into inbound: inout [Inbound])
    -> Framed
  {
    var events: [WebSocketEvent] = []
    var framed = Framed(discarded: reader.take(bytes, into: &events))
    for event in events {
      switch event {
      case .text(let payload, let wireBytes):
        inbound.append(.message(payload, wireBytes: wireBytes))
      case .ping(let payload, let wireBytes):
        framed.replies += WebSocketFrame.encode(opcode: WebSocketOpcode.pong, payload)
        framed.discarded += wireBytes
      case .pong(let wireBytes):
        framed.discarded += wireBytes
      case .close(let code, _, let wireBytes):
        framed.discarded += wireBytes
        closing = WebSocketFrame.close(code: code)
        framed.ended = true
        framed.goodbye = true
      case .failed(let failure, let discarded):
        framed.discarded += discarded
        framed.ended = true
        closing = WebSocketFrame.close(code: failure.code)
        switch failure.code {
        case WebSocketCloseCode.tooBig:
          inbound.append(.refused(.messageTooLarge(limitBytes: reader.maxMessageBytes)))
        case WebSocketCloseCode.unsupportedData:
          inbound.append(.refused(.invalidRequest(failure.reason)))
        default:
          inbound.append(.failed)
        }
      }
    }
    return framed
  }

  package mutating func dropPartial() -> Int { reader.dropPartial() }

  package func outbound(_ line: [UInt8]) -> [UInt8] {
    let end = line.last == 0x0A ? line.count - 1 : line.count
    return WebSocketFrame.encode(opcode: WebSocketOpcode.text, line[..<end])
  }

  package func farewell() -> [UInt8] { closing }

  package func farewell(ending reason: String) -> [UInt8] {
    WebSocketFrame.close(code: WebSocketCloseCode.policyViolation, reason: reason)
  }

  package func keepAlive() -> [UInt8]? { WebSocketFrame.encode(opcode: WebSocketOpcode.ping, []) }
}
