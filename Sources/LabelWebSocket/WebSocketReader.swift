/// What a `WebSocketReader` makes of the bytes it is given.
package enum WebSocketEvent: Sendable, Equatable {
  /// A whole text message, valid UTF-8; `wireBytes` is what its frames took on the wire.
  case text([UInt8], wireBytes: Int)
  /// A ping (§5.5.2): answer with a pong carrying `payload`.
  case ping([UInt8], wireBytes: Int)
  /// A pong (§5.5.3).
  case pong(wireBytes: Int)
  /// The peer's close frame (§5.5.1), valid: `code` nil when it had no body. Reading has
  /// ended; answer with a close echoing the code (§5.5.1, §7.4.1).
  case close(code: UInt16?, reason: String, wireBytes: Int)
  /// The connection fails (§7.1.7): send a close with `failure.code` and read no more.
  /// `discarded` is every byte taken and not in an event before: the frame that failed,
  /// what followed it, and the message begun.
  case failed(WebSocketFailure, discarded: Int)
}

/// Reads RFC 6455 frames as they arrive, in any split, for either end (`role`): whole
/// text messages out, control frames as events, and the first breach of §5 as a failure
/// with its close code, after which it reads nothing more. One reader for labeld and for
/// LabelKit, so the two ends follow the same rules.
///
/// Text only: labeld's protocol is one JSON-RPC message per text message, so a binary
/// message fails with 1003 (§7.4.1). A message is limited to `maxMessageBytes`, refused
/// (1009) as soon as a frame header says it would pass it; a text message that is not
/// UTF-8 fails (1007) as soon as its bytes prove it, mid-fragment too (§8.1).
package struct WebSocketReader: Sendable {
  package let role: WebSocketRole
  package let maxMessageBytes: Int
  /// Bytes of frames not yet complete.
  private var buffer: [UInt8] = []
  /// The text message being assembled from its fragments.
  private var message: [UInt8] = []
  private var messageWire = 0
  private var inMessage = false
  private var utf8 = UTF8Validator()
  /// The text frame not complete yet: how many of its payload bytes are checked as
  /// UTF-8, and the check's state after them (each byte is checked once).
  private var partialChecked = 0
  private var partialUTF8 = UTF8Validator()
  /// A close was read or the connection failed: nothing more is read.
  package private(set) var ended = false

  package init(role: WebSocketRole, maxMessageBytes: Int) {
    self.role = role
    self.maxMessageBytes = maxMessageBytes
  }

  /// Bytes held of frames and a message not complete yet.
  package var partialBytes: Int { buffer.count + messageWire }

  /// Takes bytes as read; appends an event for each frame they complete. Returns how many
  /// bytes were let go of without an event claiming them (once reading has ended: all).
  package mutating func take(_ bytes: UnsafeRawBufferPointer, into events: inout [WebSocketEvent])
    -> Int
  {
    guard !ended else { return bytes.count }
    if buffer.isEmpty {
      // The usual case: whole frames, parsed where the read put them, not copied first.
      let used = parse(bytes, into: &events)
      if used < bytes.count {
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[used...]))
      }
      return ended ? ignoredAfterEnd(bytes.count - used) : 0
    }
    buffer.append(contentsOf: bytes)
    let held = buffer
    buffer = []
    let used = held.withUnsafeBytes { parse($0, into: &events) }
    // A long frame arriving in many reads is not copied again at each: kept as it is
    // until some of it is used.
    if used == 0 {
      buffer = held
    } else if used < held.count {
      buffer = Array(held[used...])
    }
    return ended ? ignoredAfterEnd(held.count - used) : 0
  }

  /// Bytes after a close that no event claims (a failure's `discarded` already counts
  /// what followed it).
  private mutating func ignoredAfterEnd(_ rest: Int) -> Int {
    buffer = []
    return rest
  }

  package mutating func take(_ bytes: [UInt8], into events: inout [WebSocketEvent]) -> Int {
    bytes.withUnsafeBytes { take($0, into: &events) }
  }

  /// Drops the frame and message not complete yet; returns the bytes dropped.
  package mutating func dropPartial() -> Int {
    defer {
      buffer = []
      message = []
      messageWire = 0
      inMessage = false
      utf8 = UTF8Validator()
      partialChecked = 0
    }
    return partialBytes
  }

  /// Takes the whole frames at the start of `b`; returns how many bytes they were (all of
  /// them when reading ended).
  private mutating func parse(_ b: UnsafeRawBufferPointer, into events: inout [WebSocketEvent])
    -> Int
  {
    var start = 0
    while !ended {
      guard let header = Self.header(b, from: start, role: role) else { break }
      let frame: FrameHeader
      switch header {
      case .invalid(let failure):
        fail(failure, at: start, of: b.count, into: &events)
        return b.count
      case .frame(let f): frame = f
      }
      let opcode = frame.opcode
      if let failure = check(frame) {
        fail(failure, at: start, of: b.count, into: &events)
        return b.count
      }
      let total = frame.headerBytes + frame.length
      let isData = opcode < 8
      // A payload is read whole, but a text fragment's UTF-8 is checked as it comes, so a
      // bad byte fails the connection before the rest of a long frame arrives.
      guard b.count - start >= total else {
        if isData && opcode != WebSocketOpcode.binary,
          !partialTextIsValid(b, frame: frame, from: start)
        {
          fail(
            WebSocketFailure(
              code: WebSocketCloseCode.invalidPayload, "a text message is not UTF-8"),
            at: start, of: b.count, into: &events)
          return b.count
        }
        break
      }
      partialChecked = 0
      let payload = Self.payload(b, from: start + frame.headerBytes, frame.length, mask: frame.mask)
      let frameStart = start
      start += total
      switch opcode {
      case WebSocketOpcode.ping:
        events.append(.ping(payload, wireBytes: total))
      case WebSocketOpcode.pong:
        events.append(.pong(wireBytes: total))
      case WebSocketOpcode.close:
        switch Self.closeBody(payload) {
        case .success(let (code, reason)):
          ended = true
          events.append(.close(code: code, reason: reason, wireBytes: total))
          // What follows the close is let go of by `take`.
          return start
        case .failure(let failure):
          fail(failure, at: frameStart, of: b.count, into: &events)
          return b.count
        }
      default:  // text or continuation (binary fails in `check`)
        var validator = utf8
        guard validator.take(payload), !frame.fin || validator.isComplete else {
          fail(
            WebSocketFailure(
              code: WebSocketCloseCode.invalidPayload, "a text message is not UTF-8"),
            at: frameStart, of: b.count, into: &events)
          return b.count
        }
        if frame.fin && !inMessage {
          // A message in one frame: its payload is the message, as it is.
          events.append(.text(payload, wireBytes: total))
          continue
        }
        utf8 = validator
        inMessage = true
        message += payload
        messageWire += total
        if frame.fin {
          events.append(.text(message, wireBytes: messageWire))
          message = []
          messageWire = 0
          inMessage = false
          utf8 = UTF8Validator()
        }
      }
    }
    return start
  }

  /// The rules a frame's header alone breaks (§5.2, §5.4, §5.5), and the size limit.
  private func check(_ frame: FrameHeader) -> WebSocketFailure? {
    let opcode = frame.opcode
    switch opcode {
    case WebSocketOpcode.continuation:
      if !inMessage {
        return WebSocketFailure(
          code: WebSocketCloseCode.protocolError, "a continuation frame with no message to continue"
        )
      }
    case WebSocketOpcode.text:
      if inMessage {
        return WebSocketFailure(
          code: WebSocketCloseCode.protocolError, "a new message began inside a fragmented one")
      }
    case WebSocketOpcode.binary:
      if inMessage {
        return WebSocketFailure(
          code: WebSocketCloseCode.protocolError, "a new message began inside a fragmented one")
      }
      return WebSocketFailure(
        code: WebSocketCloseCode.unsupportedData,
        "binary WebSocket messages are not protocol v1: each message is a text message")
    case WebSocketOpcode.close, WebSocketOpcode.ping, WebSocketOpcode.pong:
      if !frame.fin || frame.length > 125 {
        return WebSocketFailure(
          code: WebSocketCloseCode.protocolError,
          "a WebSocket control frame must be whole and at most 125 bytes")
      }
    default:
      return WebSocketFailure(
        code: WebSocketCloseCode.protocolError, "WebSocket opcode \(opcode) is reserved")
    }
    if opcode < 8 && frame.length > maxMessageBytes - message.count {
      return WebSocketFailure(
        code: WebSocketCloseCode.tooBig,
        "a message longer than the limit of \(maxMessageBytes) bytes")
    }
    return nil
  }

  /// Whether the part of a text frame's payload that has arrived can still be UTF-8:
  /// the bytes not checked before are checked, unmasked where they lie.
  private mutating func partialTextIsValid(
    _ b: UnsafeRawBufferPointer, frame: FrameHeader, from start: Int
  ) -> Bool {
    let from = start + frame.headerBytes
    if partialChecked == 0 { partialUTF8 = utf8 }
    let arrived = b.count - from
    guard arrived > partialChecked else { return true }
    var bytes = [UInt8](unsafeUninitializedCapacity: arrived - partialChecked) { out, n in
      for i in partialChecked..<arrived { out[i - partialChecked] = b[from + i] }
      n = arrived - partialChecked
    }
    if let mask = frame.mask {
      for k in 0..<bytes.count {
        bytes[k] ^= UInt8(truncatingIfNeeded: mask >> UInt32(((partialChecked + k) & 3) * 8))
      }
    }
    partialChecked = arrived
    return partialUTF8.take(bytes)
  }

  private mutating func fail(
    _ failure: WebSocketFailure, at start: Int, of count: Int,
    into events: inout [WebSocketEvent]
  ) {
    ended = true
    events.append(.failed(failure, discarded: count - start + messageWire))
    message = []
    messageWire = 0
    buffer = []
  }

  /// A close frame's body (§5.5.1): empty, or a valid code and a UTF-8 reason.
  private static func closeBody(_ payload: [UInt8]) -> Result<(UInt16?, String), WebSocketFailure> {
    if payload.isEmpty { return .success((nil, "")) }
    guard payload.count >= 2 else {
      return .failure(
        WebSocketFailure(code: WebSocketCloseCode.protocolError, "a close frame of one byte"))
    }
    let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
    guard WebSocketCloseCode.isValidReceived(code) else {
      return .failure(
        WebSocketFailure(code: WebSocketCloseCode.protocolError, "close code \(code) is not valid"))
    }
    let reason = payload[2...]
    guard UTF8Validator.isValid(reason) else {
      return .failure(
        WebSocketFailure(code: WebSocketCloseCode.invalidPayload, "a close reason is not UTF-8"))
    }
    return .success((code, String(decoding: reason, as: UTF8.self)))
  }

  /// `length` payload bytes from `from`, unmasked as they are copied out (§5.3).
  private static func payload(
    _ b: UnsafeRawBufferPointer, from: Int, _ length: Int, mask: UInt32?
  ) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: length) { out, n in
      if let mask {
        for i in 0..<length {
          out[i] = b[from + i] ^ UInt8(truncatingIfNeeded: mask >> UInt32((i & 3) * 8))
        }
      } else if length > 0 {
        UnsafeMutableRawBufferPointer(out).copyMemory(
          from: UnsafeRawBufferPointer(rebasing: b[from..<from + length]))
      }
      n = length
    }
  }

  private struct FrameHeader {
    var fin: Bool
    var opcode: UInt8
    var length: Int
    var headerBytes: Int
    /// The four masking octets, the first in the lowest byte; nil for an unmasked frame.
    var mask: UInt32?
  }

  private enum Header {
    case frame(FrameHeader)
    case invalid(WebSocketFailure)
  }

  /// The frame header at `start` (§5.2), nil until all of it has arrived.
  private static func header(_ b: UnsafeRawBufferPointer, from start: Int, role: WebSocketRole)
    -> Header?
  {
    guard b.count - start >= 2 else { return nil }
    let b0 = b[start]
    let b1 = b[start + 1]
    guard b0 & 0x70 == 0 else {
      return .invalid(
        WebSocketFailure(
          code: WebSocketCloseCode.protocolError,
          "WebSocket reserved bits are set (no extension was agreed)"))
    }
    let masked = b1 & 0x80 != 0
    switch (role, masked) {
    case (.server, false):
      return .invalid(
        WebSocketFailure(
          code: WebSocketCloseCode.protocolError, "a client's WebSocket frames must be masked"))
    case (.client, true):
      return .invalid(
        WebSocketFailure(
          code: WebSocketCloseCode.protocolError, "a server's WebSocket frames must not be masked"))
    default: break
    }
    var length = Int(b1 & 0x7F)
    var at = start + 2
    if length == 126 {
      guard b.count - at >= 2 else { return nil }
      length = Int(b[at]) << 8 | Int(b[at + 1])
      at += 2
    } else if length == 127 {
      guard b.count - at >= 8 else { return nil }
      var big: UInt64 = 0
      for i in 0..<8 { big = big << 8 | UInt64(b[at + i]) }
      at += 8
      guard big >> 63 == 0 else {
        return .invalid(
          WebSocketFailure(
            code: WebSocketCloseCode.protocolError,
            "a WebSocket frame length's most significant bit is set"))
      }
      // Anything near Int's range is too long for any limit: cut to one that fails the
      // size check, without arithmetic on it.
      length = Int(min(big, 1 << 40))
    }
    var mask: UInt32?
    if masked {
      guard b.count - at >= 4 else { return nil }
      mask =
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
      at += 4
    }
    return .frame(
      FrameHeader(
        fin: b0 & 0x80 != 0, opcode: b0 & 0x0F, length: length, headerBytes: at - start, mask: mask)
    )
  }
}
