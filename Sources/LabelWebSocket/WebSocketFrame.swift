/// RFC 6455's frames (§5.2), written. Reading is `WebSocketReader`'s.
package enum WebSocketOpcode {
  package static let continuation: UInt8 = 0x0
  package static let text: UInt8 = 0x1
  package static let binary: UInt8 = 0x2
  package static let close: UInt8 = 0x8
  package static let ping: UInt8 = 0x9
  package static let pong: UInt8 = 0xA
}

/// Which end of a connection this is: a client masks every frame it sends and a server
/// none (§5.1, §5.3); each refuses a frame masked the other way.
package enum WebSocketRole: Sendable {
  case server, client
}

package enum WebSocketFrame {
  /// One whole frame. `mask` (the four masking octets, the first in the lowest byte) is
  /// for a client's frames; a server's have none. Written once into an array of its size.
  package static func encode<C: Collection<UInt8>>(
    opcode: UInt8, _ payload: C, fin: Bool = true, mask: UInt32? = nil
  ) -> [UInt8] {
    let n = payload.count
    let lengthBytes = n < 126 ? 0 : n <= 0xFFFF ? 2 : 8
    let header = 2 + lengthBytes + (mask == nil ? 0 : 4)
    return [UInt8](unsafeUninitializedCapacity: header + n) { out, count in
      out[0] = (fin ? 0x80 : 0) | opcode
      let maskBit: UInt8 = mask == nil ? 0 : 0x80
      if n < 126 {
        out[1] = maskBit | UInt8(n)
      } else if n <= 0xFFFF {
        out[1] = maskBit | 126
        out[2] = UInt8(n >> 8)
        out[3] = UInt8(n & 0xFF)
      } else {
        out[1] = maskBit | 127
        for k in 0..<8 { out[2 + k] = UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(56 - 8 * k)) }
      }
      var i = header
      if let mask {
        let at = 2 + lengthBytes
        for k in 0..<4 { out[at + k] = UInt8(truncatingIfNeeded: mask >> UInt32(8 * k)) }
        // §5.3: octet i of the payload XOR octet (i mod 4) of the mask.
        var j = 0
        for byte in payload {
          out[i] = byte ^ UInt8(truncatingIfNeeded: mask >> UInt32((j & 3) * 8))
          i += 1
          j += 1
        }
      } else {
        for byte in payload {
          out[i] = byte
          i += 1
        }
      }
      count = header + n
    }
  }

  /// A close frame (§5.5.1): with a code and reason, or (`code` nil) with no body, as the
  /// echo of a close that had none.
  package static func close(code: UInt16?, reason: String = "", mask: UInt32? = nil) -> [UInt8] {
    guard let code else { return encode(opcode: WebSocketOpcode.close, [], mask: mask) }
    // A control frame's payload is at most 125 bytes (§5.5): the reason is cut to fit,
    // at a character's boundary.
    var text = Array(reason.utf8)
    while text.count > 123 {
      text.removeLast()
      while let last = text.last, last & 0xC0 == 0x80 { text.removeLast() }
      if let last = text.last, last >= 0xC0 { text.removeLast() }
    }
    return encode(
      opcode: WebSocketOpcode.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + text, mask: mask)
  }
}

/// The close codes (§7.4), and which may be received.
package enum WebSocketCloseCode {
  package static let normal: UInt16 = 1000
  package static let goingAway: UInt16 = 1001
  package static let protocolError: UInt16 = 1002
  package static let unsupportedData: UInt16 = 1003
  package static let invalidPayload: UInt16 = 1007
  package static let policyViolation: UInt16 = 1008
  package static let tooBig: UInt16 = 1009
  package static let internalError: UInt16 = 1011

  /// Whether a close frame may carry `code` (§7.4.1, §7.4.2 and IANA's registry): the
  /// defined codes, those registered since (1012–1014), and 3000–4999 for libraries and
  /// applications. 1004 is reserved; 1005, 1006 and 1015 are never sent; the rest of
  /// 0–2999 is unassigned.
  package static func isValidReceived(_ code: UInt16) -> Bool {
    switch code {
    case 1000...1003, 1007...1014, 3000...4999: true
    default: false
    }
  }
}

/// Why a connection fails (§7.1.7): the close code to send and what was wrong.
package struct WebSocketFailure: Error, Sendable, Equatable, CustomStringConvertible {
  package var code: UInt16
  package var reason: String

  package init(code: UInt16, _ reason: String) {
    self.code = code
    self.reason = reason
  }

  package var description: String { "\(reason) (WebSocket close code \(code))" }
}
