import LabelCore
import LabelServer

/// Protocol v1 over a WebSocket (RFC 6455): one JSON-RPC message per text message. The
/// second framing of a connection's pipeline, beside the Unix socket's `LineFramer`: the
/// same budget, dispatcher and writer serve both.
///
/// Refused, with the JSON-RPC error first and then a close frame (§7.4.1 codes): a frame
/// that is not masked (§5.1: 1002), reserved bits or opcodes (§5.2: 1002), a binary
/// message (1003: the protocol is text), a control frame that is fragmented or longer than
/// 125 bytes (§5.5: 1002), a message longer than the protocol's limit (1009). A ping is
/// answered with a pong at once (§5.5.2); a close frame is answered with one, after the
/// answers to the requests before it (§5.5.1).
package struct WebSocketFramer: Framer {
  private let maxMessageBytes: Int
  /// Bytes of frames not yet complete.
  private var buffer: [UInt8] = []
  /// The text message being assembled from its fragments.
  private var message: [UInt8] = []
  private var messageWire = 0
  private var inMessage = false
  private var ended = false
  /// The close code this side sends last.
  private var closeCode: UInt16 = 1000

  package init(maxMessageBytes: Int) {
    self.maxMessageBytes = maxMessageBytes
  }

  package var partialBytes: Int { buffer.count + messageWire }

  package mutating func take(_ bytes: UnsafeRawBufferPointer, into inbound: inout [Inbound])
    -> Framed
  {
    guard !ended else { return Framed(discarded: bytes.count) }
    var framed = Framed()
    if buffer.isEmpty {
      // The usual case: whole frames, parsed where the read put them, not copied first.
      let used = parse(bytes, into: &inbound, &framed)
      if used < bytes.count {
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
      }
      return framed
    }
    buffer.append(contentsOf: bytes)
    let held = buffer
    buffer = []
    let used = held.withUnsafeBytes { parse($0, into: &inbound, &framed) }
    if used < held.count { buffer = Array(held[used...]) }
    return framed
  }

  /// Takes the whole frames at the start of `b`; returns how many bytes they were (all of
  /// them once reading has ended).
  private mutating func parse(
    _ b: UnsafeRawBufferPointer, into inbound: inout [Inbound], _ framed: inout Framed
  ) -> Int {
    var start = 0
    while !ended {
      guard let frame = Self.header(b, from: start) else { break }
      if case .invalid(let why, let code) = frame {
        refuse(why, code: code, at: start, of: b.count, into: &inbound, &framed)
        return b.count
      }
      guard case .frame(let fin, let opcode, let length, let headerBytes, let mask) = frame
      else { break }
      let isControl = opcode >= 8
      // A message that cannot fit is refused as soon as its length says so.
      if !isControl && (opcode == 1 || opcode == 0)
        && message.count + length > maxMessageBytes
      {
        refuse(nil, code: 1009, at: start, of: b.count, into: &inbound, &framed)
        return b.count
      }
      let total = headerBytes + length
      guard b.count - start >= total else { break }
      let from = start + headerBytes
      // Unmasked as it is copied out (RFC 6455 §5.3: octet i XOR mask octet i mod 4).
      let payload = [UInt8](unsafeUninitializedCapacity: length) { out, n in
        for i in 0..<length {
          out[i] = b[from + i] ^ UInt8(truncatingIfNeeded: mask >> UInt32((i & 3) * 8))
        }
        n = length
      }
      let frameStart = start
      start += total
      switch opcode {
      case 0x9:  // ping: pong with its payload
        framed.replies += Self.frame(opcode: 0xA, payload)
        framed.discarded += total
      case 0xA:  // pong: the keep-alive's answer
        framed.discarded += total
      case 0x8:  // close: answered after the requests before it
        framed.discarded += total
        if payload.count >= 2 {
          let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
          closeCode = (1000...4999).contains(code) && code != 1005 && code != 1006 ? code : 1002
        }
        ended = true
        framed.ended = true
        framed.goodbye = true
        framed.discarded += b.count - start
        return b.count
      case 0x1, 0x0:
        if opcode == 0x1 && inMessage {
          refuse(
            "a new text message began inside a fragmented one", code: 1002, at: frameStart,
            of: b.count, into: &inbound, &framed)
          return b.count
        }
        if opcode == 0x0 && !inMessage {
          refuse(
            "a continuation frame with no message to continue", code: 1002, at: frameStart,
            of: b.count, into: &inbound, &framed)
          return b.count
        }
        if fin && !inMessage {
          // A message in one frame: its payload is the message, as it is.
          inbound.append(.message(payload, wireBytes: total))
          continue
        }
        inMessage = true
        message += payload
        messageWire += total
        if fin {
          inbound.append(.message(message, wireBytes: messageWire))
          message = []
          messageWire = 0
          inMessage = false
        }
      case 0x2:
        refuse(
          "binary WebSocket messages are not protocol v1: send each request as a text message",
          code: 1003, at: frameStart, of: b.count, into: &inbound, &framed)
        return b.count
      default:
        refuse(
          "WebSocket opcode \(opcode) is reserved", code: 1002, at: frameStart, of: b.count,
          into: &inbound, &framed)
        return b.count
      }
    }
    return ended ? b.count : start
  }

  private enum Header {
    /// `mask`: the four masking octets, the first in the lowest byte.
    case frame(fin: Bool, opcode: UInt8, length: Int, headerBytes: Int, mask: UInt32)
    case invalid(String, code: UInt16)
  }

  /// The frame header at `start` (RFC 6455 §5.2), nil until all of it has arrived.
  private static func header(_ b: UnsafeRawBufferPointer, from start: Int) -> Header? {
    guard b.count - start >= 2 else { return nil }
    let b0 = b[start]
    let b1 = b[start + 1]
    let fin = b0 & 0x80 != 0
    let opcode = b0 & 0x0F
    guard b0 & 0x70 == 0 else {
      return .invalid("WebSocket reserved bits are set (no extension was agreed)", code: 1002)
    }
    guard b1 & 0x80 != 0 else {
      return .invalid("WebSocket frames from a client must be masked (RFC 6455 §5.1)", code: 1002)
    }
    var length = Int(b1 & 0x7F)
    var at = start + 2
    if opcode >= 8 && (!fin || length > 125) {
      return .invalid("a WebSocket control frame must be whole and at most 125 bytes", code: 1002)
    }
    if length == 126 {
      guard b.count - at >= 2 else { return nil }
      length = Int(b[at]) << 8 | Int(b[at + 1])
      at += 2
    } else if length == 127 {
      guard b.count - at >= 8 else { return nil }
      var big: UInt64 = 0
      for i in 0..<8 { big = big << 8 | UInt64(b[at + i]) }
      at += 8
      // The most significant bit must be 0 (§5.2); anything near Int's range is too long
      // for any limit, and is refused as such without arithmetic on it.
      guard big < 1 << 40 else {
        return .invalid("a WebSocket frame's length is impossible", code: 1009)
      }
      length = Int(big)
    }
    guard b.count - at >= 4 else { return nil }
    let mask =
      UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    at += 4
    return .frame(fin: fin, opcode: opcode, length: length, headerBytes: at - start, mask: mask)
  }

  /// Ends reading: the error answered (when there is one to say), then a close frame.
  private mutating func refuse(
    _ why: String?, code: UInt16, at start: Int, of count: Int, into inbound: inout [Inbound],
    _ framed: inout Framed
  ) {
    closeCode = code
    ended = true
    framed.ended = true
    inbound.append(.refused(why.map { .invalidRequest($0) } ?? .messageTooLarge))
    // Everything read that no message appended so far claims: the message begun and the
    // frames from `start` on.
    framed.discarded += count - start + messageWire
    message = []
    messageWire = 0
  }

  package mutating func dropPartial() -> Int {
    defer {
      buffer = []
      message = []
      messageWire = 0
      inMessage = false
    }
    return partialBytes
  }

  package func outbound(_ line: [UInt8]) -> [UInt8] {
    let end = line.last == 0x0A ? line.count - 1 : line.count
    return Self.frame(opcode: 0x1, line[..<end])
  }

  package func farewell() -> [UInt8] {
    Self.frame(opcode: 0x8, [UInt8(closeCode >> 8), UInt8(closeCode & 0xFF)])
  }

  package func keepAlive() -> [UInt8]? { Self.frame(opcode: 0x9, []) }

  /// A server frame (unmasked, §5.1), whole: written once into an array of its size.
  static func frame<C: Collection<UInt8>>(opcode: UInt8, _ payload: C) -> [UInt8] {
    let n = payload.count
    let header = n < 126 ? 2 : n <= 0xFFFF ? 4 : 10
    return [UInt8](unsafeUninitializedCapacity: header + n) { out, count in
      out[0] = 0x80 | opcode
      if n < 126 {
        out[1] = UInt8(n)
      } else if n <= 0xFFFF {
        out[1] = 126
        out[2] = UInt8(n >> 8)
        out[3] = UInt8(n & 0xFF)
      } else {
        out[1] = 127
        for k in 0..<8 { out[2 + k] = UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(56 - 8 * k)) }
      }
      var i = header
      for byte in payload {
        out[i] = byte
        i += 1
      }
      count = header + n
    }
  }
}
