import LabelHTTP
import LabelTestKit
import LabelWebSocket
import Testing

/// The codec's pieces against their standards: SHA-1 (RFC 3174) and base64 (RFC 4648)
/// for the handshake, UTF-8 (Unicode Table 3-7), and the frames of RFC 6455 read and
/// written by both ends.
@Suite struct CodecTests {
  private static func hex(_ bytes: [UInt8]) -> String { Digest.hex(bytes) }

  /// RFC 3174 §7.3's test cases, and GnuTLS's SHA-1 on random messages of every length
  /// around the padding's edges.
  @Test func sha1_isRFC3174s_andGnuTLSs() throws {
    #expect(Self.hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(
      Self.hex(SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
        == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    #expect(Self.hex(SHA1.hash([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    var rng = SeededGenerator(seed: 6455)
    for length in Array(0...130) + [1000, 4096, 65537] {
      let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
      #expect(SHA1.hash(message) == (try Digest.sha1(message)), "length \(length)")
    }
  }

  /// RFC 6455 §1.3's example key and its accept value.
  @Test func acceptKey_isTheRFCsExample() {
    #expect(
      WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    #expect(WebSocketHandshake.isValidKey("dGhlIHNhbXBsZSBub25jZQ=="))
    #expect(!WebSocketHandshake.isValidKey("dGhlIHNhbXBsZSBub25jZQ"))
    #expect(!WebSocketHandshake.isValidKey("dGhlIHNhbXBsZSBub25j!Q=="))
    let key = WebSocketHandshake.newKey()
    #expect(WebSocketHandshake.isValidKey(key) && key != WebSocketHandshake.newKey())
  }

  @Test func base64_roundTrips_andRefusesWhatIsNot() {
    #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    #expect(Base64.encode(Array("fooba".utf8)) == "Zm9vYmE=")
    #expect(Base64.encode(Array("foob".utf8)) == "Zm9vYg==")
    var rng = SeededGenerator(seed: 4648)
    for length in 0..<70 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
      #expect(Base64.decode(Base64.encode(bytes)) == bytes)
    }
    for bad in ["Zm9", "Zm=v", "Z===", "Zm9v!mFy", "=Zm9"] { #expect(Base64.decode(bad) == nil) }
  }

  /// Whole: the same verdict as the standard library's decoder on every input; in pieces:
  /// the same verdict however the bytes are split, and a failure as soon as a byte proves it.
  @Test func utf8_agreesWithTheStandardLibrary_inAnySplit() {
    #expect(UTF8Validator.isValid(Array("κόσμε · 🏷️".utf8)))
    for bad: [UInt8] in [
      [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xE0, 0x80, 0xAF],
    ] {
      #expect(!UTF8Validator.isValid(bad))
      var v = UTF8Validator()
      let taken = v.take(bad)
      #expect(!taken)
    }
    var rng = SeededGenerator(seed: 38)
    for _ in 0..<5000 {
      let length = Int.random(in: 0..<12, using: &rng)
      let bytes = (0..<length).map { _ in
        Bool.random(using: &rng)
          ? UInt8.random(in: 0x80...0xF5, using: &rng) : UInt8.random(in: 0...0x7F, using: &rng)
      }
      let expected = String(validating: bytes, as: UTF8.self) != nil
      #expect(UTF8Validator.isValid(bytes) == expected, "\(bytes)")
      let cut = Int.random(in: 0...length, using: &rng)
      var v = UTF8Validator()
      let ok = v.take(bytes[..<cut]) && v.take(bytes[cut...]) && v.isComplete
      #expect(ok == expected)
    }
  }

  /// What a client writes (masked), a server's reader reads back, in any split; and the
  /// other way round; each refuses frames masked the wrong way.
  @Test func frames_readBackByTheOtherEnd_inAnySplit() {
    var rng = SeededGenerator(seed: 2026)
    let messages = [
      "", "{}", String(repeating: "ß", count: 200), String(repeating: "x", count: 70_000),
    ]
    for role in [WebSocketRole.server, .client] {
      var bytes: [UInt8] = []
      for m in messages {
        let mask: UInt32? = role == .server ? UInt32.random(in: 0...UInt32.max, using: &rng) : nil
        bytes += WebSocketFrame.encode(opcode: WebSocketOpcode.text, Array(m.utf8), mask: mask)
      }
      for split in [1, 5, 126, 4096, bytes.count] {
        var reader = WebSocketReader(role: role, maxMessageBytes: 1 << 20)
        var events: [WebSocketEvent] = []
        var at = 0
        while at < bytes.count {
          _ = reader.take(Array(bytes[at..<min(at + split, bytes.count)]), into: &events)
          at += split
        }
        let texts = events.compactMap { e -> String? in
          if case .text(let p, _) = e { return String(decoding: p, as: UTF8.self) }
          return nil
        }
        #expect(texts == messages, "\(role) split \(split)")
      }
      // The wrong masking fails with 1002.
      var reader = WebSocketReader(role: role, maxMessageBytes: 1024)
      var events: [WebSocketEvent] = []
      let wrong = WebSocketFrame.encode(
        opcode: WebSocketOpcode.text, [0x41], mask: role == .server ? nil : 0x0102_0304)
      _ = reader.take(wrong, into: &events)
      guard case .failed(let failure, _)? = events.first else {
        Issue.record("\(role): \(events)")
        continue
      }
      #expect(failure.code == 1002)
    }
  }

  /// A close's reason is cut to fit a control frame (§5.5), at a character's boundary.
  @Test func closeFrame_reasonFits() {
    let frame = WebSocketFrame.close(code: 1000, reason: String(repeating: "é", count: 100))
    #expect(frame.count <= 127)
    var reader = WebSocketReader(role: .client, maxMessageBytes: 1024)
    var events: [WebSocketEvent] = []
    _ = reader.take(frame, into: &events)
    guard case .close(let code, let reason, _)? = events.first else {
      Issue.record("\(events)")
      return
    }
    #expect(code == 1000 && reason.count == 61)
  }

  /// Valid close codes (§7.4) are taken; every other is a failure with 1002.
  @Test func closeCodes() {
    for code: UInt16 in [
      1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999,
    ] {
      #expect(WebSocketCloseCode.isValidReceived(code), "\(code)")
    }
    for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
      #expect(!WebSocketCloseCode.isValidReceived(code), "\(code)")
    }
  }

  /// A 64-bit length with its top bit set breaks §5.2; one merely huge is too big.
  @Test func lengths() {
    for (bytes, code): ([UInt8], UInt16) in [
      ([0x81, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002),
      ([0x81, 0x7F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], 1009),
    ] {
      var reader = WebSocketReader(role: .client, maxMessageBytes: 1024)
      var events: [WebSocketEvent] = []
      _ = reader.take(bytes, into: &events)
      guard case .failed(let failure, let discarded)? = events.first else {
        Issue.record("\(events)")
        continue
      }
      #expect(failure.code == code && discarded == bytes.count)
    }
  }

  /// Random and mutated bytes, in random splits, for both roles: never a trap, and every
  /// byte is in an event, held, or let go.
  @Test func randomBytes_neverTrap_everyByteAccounted() {
    var rng = SeededGenerator(seed: 7)
    for _ in 0..<3000 {
      let role: WebSocketRole = Bool.random(using: &rng) ? .server : .client
      var bytes = (0..<Int.random(in: 0..<300, using: &rng)).map { _ in
        UInt8.random(in: 0...255, using: &rng)
      }
      if Bool.random(using: &rng) {
        let mask: UInt32? = role == .server ? 0xA1B2_C3D4 : nil
        bytes = WebSocketFrame.encode(
          opcode: UInt8.random(in: 0...10, using: &rng), Array(bytes.prefix(140)),
          fin: Bool.random(using: &rng), mask: mask)
        let i = Int.random(in: 0..<bytes.count, using: &rng)
        bytes[i] ^= UInt8.random(in: 0...255, using: &rng)
      }
      var reader = WebSocketReader(role: role, maxMessageBytes: 256)
      var events: [WebSocketEvent] = []
      var letGo = 0
      var at = 0
      let split = Int.random(in: 1...64, using: &rng)
      while at < bytes.count {
        letGo += reader.take(Array(bytes[at..<min(at + split, bytes.count)]), into: &events)
        at += split
      }
      let claimed = events.reduce(0) { n, e in
        switch e {
        case .text(_, let w), .ping(_, let w), .pong(let w), .close(_, _, let w): n + w
        case .failed(_, let d): n + d
        }
      }
      #expect(claimed + letGo + reader.partialBytes == bytes.count, "\(bytes)")
    }
  }
}
