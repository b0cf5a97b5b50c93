import LabelCore
import LabelHTTP
import LabelServer
import LabelTestKit
import LabelWebSocket
import Testing

@testable import LabelWeb

/// The WebSocket framing alone (RFC 6455 §5): what a client's bytes become, however they
/// are split, and what is refused; every byte read is either in a message or let go.
@Suite struct WebSocketFramerTests {
  private func take(_ framer: inout WebSocketFramer, _ bytes: [UInt8]) -> ([Inbound], Framed) {
    var inbound: [Inbound] = []
    let framed = bytes.withUnsafeBytes { framer.take($0, into: &inbound) }
    return (inbound, framed)
  }

  /// Feeds `bytes` in pieces of `split`; returns everything the framer made of them, and
  /// the framer.
  private func feed(_ bytes: [UInt8], split: Int, limit: Int = 1 << 20) -> (
    messages: [Inbound], discarded: Int, replies: [UInt8], ended: Bool, goodbye: Bool,
    framer: WebSocketFramer
  ) {
    var framer = WebSocketFramer(maxMessageBytes: limit)
    var all: [Inbound] = []
    var discarded = 0
    var replies: [UInt8] = []
    var ended = false
    var goodbye = false
    var at = 0
    while at < bytes.count {
      let piece = Array(bytes[at..<min(bytes.count, at + split)])
      at += piece.count
      let (inbound, framed) = take(&framer, piece)
      all += inbound
      discarded += framed.discarded
      replies += framed.replies
      ended = ended || framed.ended
      goodbye = goodbye || framed.goodbye
    }
    return (all, discarded, replies, ended, goodbye, framer)
  }

  private static func text(_ s: String) -> [UInt8] {
    WebSocketClient.frame(opcode: 1, Array(s.utf8))
  }

  @Test func messages_anySplit_sameMessages_everyByteAccounted() {
    let one = #"{"jsonrpc":"2.0","id":1,"method":"hello"}"#
    let long = String(repeating: "x", count: 70_000)
    // A message in three fragments with a ping between two of them (§5.4: control frames
    // may come between fragments).
    let fragmented =
      WebSocketClient.frame(opcode: 1, Array("ab".utf8), fin: false)
      + WebSocketClient.frame(opcode: 9, Array("p".utf8))
      + WebSocketClient.frame(opcode: 0, Array("cd".utf8), fin: false)
      + WebSocketClient.frame(opcode: 0, Array("ef".utf8))
    let bytes = Self.text(one) + Self.text(long) + fragmented + Self.text("")
    for split in [1, 2, 3, 7, 125, 4096, bytes.count] {
      let r = feed(bytes, split: split)
      let payloads = r.messages.compactMap { m -> String? in
        if case .message(let b, _) = m { return String(decoding: b, as: UTF8.self) }
        return nil
      }
      #expect(payloads == [one, long, "abcdef", ""], "split \(split)")
      let claimed = r.messages.reduce(0) { n, m in
        if case .message(_, let w) = m { return n + w }
        return n
      }
      #expect(claimed + r.discarded == bytes.count, "split \(split)")
      #expect(r.replies == WebSocketFrame.encode(opcode: 0xA, Array("p".utf8)))
      #expect(!r.ended)
    }
  }

  @Test func closeFrame_isGoodbye_andAnsweredWithItsCode() {
    var framer = WebSocketFramer(maxMessageBytes: 1024)
    let bytes =
      Self.text("{}") + WebSocketClient.frame(opcode: 8, [0x03, 0xE9])
      + Self.text("after")
    let (inbound, framed) = take(&framer, bytes)
    #expect(inbound == [.message(Array("{}".utf8), wireBytes: 8)])
    #expect(framed.ended && framed.goodbye && framed.discarded == bytes.count - 8)
    #expect(framer.farewell() == [0x88, 2, 0x03, 0xE9])
  }

  /// A frame that breaks RFC 6455 fails the connection (§7.1.7): reading ends with no
  /// message to answer, and the close carries the code §7.4.1 gives it. What the protocol
  /// allows but labeld does not take (a binary message) is refused with a JSON-RPC error
  /// first.
  static let failures: [([UInt8], UInt16)] = [
    (WebSocketClient.frame(opcode: 1, Array("{}".utf8), masked: false), 1002),
    (WebSocketClient.frame(opcode: 1, Array("{}".utf8), rsv: 0x40), 1002),
    (WebSocketClient.frame(opcode: 3, []), 1002),
    (WebSocketClient.frame(opcode: 9, [UInt8](repeating: 0, count: 126)), 1002),
    (WebSocketClient.frame(opcode: 9, [], fin: false), 1002),
    (WebSocketClient.frame(opcode: 0, Array("x".utf8)), 1002),
    (
      WebSocketClient.frame(opcode: 1, Array("a".utf8), fin: false)
        + WebSocketClient.frame(opcode: 1, Array("b".utf8)), 1002
    ),
    // A close whose body is one byte, or whose code may not be sent (§7.4.2).
    (WebSocketClient.frame(opcode: 8, [0x03]), 1002),
    (WebSocketClient.frame(opcode: 8, [0x03, 0xED]), 1002),
    (WebSocketClient.frame(opcode: 8, [0x00, 0x00]), 1002),
    // Not UTF-8 (§8.1): a text message, a close reason.
    (WebSocketClient.frame(opcode: 1, [0x7B, 0xC0, 0xAF, 0x7D]), 1007),
    (WebSocketClient.frame(opcode: 8, [0x03, 0xE8, 0xFF]), 1007),
  ]

  @Test(arguments: failures)
  func failed(_ bytes: [UInt8], code: UInt16) {
    for split in [1, bytes.count] {
      let (inbound, discarded, replies, ended, _, framer) = feed(bytes, split: split, limit: 1024)
      #expect(ended)
      #expect(inbound == [.failed], "split \(split)")
      #expect(replies.isEmpty)
      let claimed = inbound.reduce(0) { n, m in
        if case .message(_, let w) = m { return n + w }
        return n
      }
      #expect(claimed + discarded == bytes.count)
      #expect(framer.farewell() == [0x88, 2, UInt8(code >> 8), UInt8(code & 0xFF)])
    }
  }

  /// A binary message is refused (1003) with the JSON-RPC error first.
  @Test func binary_refusedWithAnError_then1003() {
    let bytes = WebSocketClient.frame(opcode: 2, [1, 2, 3])
    let r = feed(bytes, split: bytes.count, limit: 1024)
    #expect(r.ended && r.discarded == bytes.count)
    guard case .refused(let error)? = r.messages.first, r.messages.count == 1 else {
      Issue.record("not refused: \(r.messages)")
      return
    }
    #expect(error.code == RPCErrorCode.invalidRequest.rawValue)
    #expect(r.framer.farewell() == [0x88, 2, 0x03, 0xEB])
  }

  /// A text message is failed (1007) as soon as its bytes prove it is not UTF-8, before
  /// the frame or the message ends.
  @Test func invalidUTF8_failsMidFragment() {
    var framer = WebSocketFramer(maxMessageBytes: 1 << 20)
    let first = WebSocketClient.frame(opcode: 1, Array("{\"a\":".utf8), fin: false)
    let bad = WebSocketClient.frame(
      opcode: 0, [0x22, 0xED, 0xA0, 0x80] + Array(repeating: 0x20, count: 1000))
    // Only the start of the second fragment has come: its bytes already prove it.
    let (inbound, framed) = take(&framer, first + Array(bad[0..<12]))
    #expect(inbound == [.failed] && framed.ended)
    #expect(framer.farewell() == [0x88, 2, 0x03, 0xEF])
  }

  /// A close without a body is answered with one without a body (§5.5.1).
  @Test func emptyClose_answeredEmpty() {
    var framer = WebSocketFramer(maxMessageBytes: 1024)
    let (inbound, framed) = take(&framer, WebSocketClient.frame(opcode: 8, []))
    #expect(inbound.isEmpty && framed.goodbye)
    #expect(framer.farewell() == [0x88, 0])
  }

  /// A message over the limit is refused as soon as a frame's length says so, before its
  /// payload arrives; so is a length no limit could allow.
  @Test func tooLong_refusedFromTheHeader() {
    var framer = WebSocketFramer(maxMessageBytes: 100)
    let header = Array(
      WebSocketClient.frame(opcode: 1, [UInt8](repeating: 0x20, count: 101))[0..<8])
    let (inbound, framed) = take(&framer, header)
    #expect(inbound == [.refused(.messageTooLarge(limitBytes: 100))] && framed.ended)
    #expect(framer.farewell() == [0x88, 2, 0x03, 0xF1])
    // 2^63 - 1 bytes declared.
    var huge = WebSocketFramer(maxMessageBytes: 100)
    let lie: [UInt8] = [0x81, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4]
    let (i2, f2) = take(&huge, lie)
    #expect(i2.count == 1 && f2.ended && f2.discarded == lie.count)
  }

  /// Fragments add up against the limit.
  @Test func fragmentsOverTheLimit_refused() {
    var framer = WebSocketFramer(maxMessageBytes: 10)
    let bytes =
      WebSocketClient.frame(opcode: 1, [UInt8](repeating: 0x31, count: 6), fin: false)
      + WebSocketClient.frame(opcode: 0, [UInt8](repeating: 0x31, count: 6))
    let (inbound, framed) = take(&framer, bytes)
    #expect(
      inbound == [.refused(.messageTooLarge(limitBytes: 10))] && framed.discarded == bytes.count)
  }

  @Test func partialAndDrop() {
    var framer = WebSocketFramer(maxMessageBytes: 1 << 20)
    let bytes = WebSocketClient.frame(opcode: 1, [UInt8](repeating: 0x31, count: 1000))
    _ = take(&framer, Array(bytes[0..<500]))
    #expect(framer.partialBytes == 500)
    #expect(framer.dropPartial() == 500 && framer.partialBytes == 0)
  }

  /// Server frames: unmasked, the shortest length form, the line's `\n` dropped.
  @Test(arguments: [0, 1, 125, 126, 65535, 65536])
  func outbound(size: Int) {
    let framer = WebSocketFramer(maxMessageBytes: 1 << 20)
    let line = [UInt8](repeating: 0x61, count: size) + [0x0A]
    let out = framer.outbound(line)
    let header = size < 126 ? 2 : size <= 65535 ? 4 : 10
    #expect(out.count == header + size)
    #expect(out[0] == 0x81 && out[1] & 0x80 == 0)
    #expect(Array(out[header...]) == [UInt8](repeating: 0x61, count: size))
  }

  @Test func randomBytes_neverTrap_alwaysAccounted() {
    var rng = SeededGenerator(seed: 2026)
    for _ in 0..<2000 {
      let count = Int.random(in: 0..<300, using: &rng)
      var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
      // Half the cases start as a real frame, mutated.
      if Bool.random(using: &rng) {
        bytes = WebSocketClient.frame(opcode: 1, Array(bytes.prefix(200)))
        if !bytes.isEmpty {
          let i = Int.random(in: 0..<bytes.count, using: &rng)
          bytes[i] = UInt8.random(in: 0...255, using: &rng)
        }
      }
      let r = feed(bytes, split: Int.random(in: 1...64, using: &rng), limit: 256)
      let claimed = r.messages.reduce(0) { n, m in
        if case .message(_, let w) = m { return n + w }
        return n
      }
      var framer = WebSocketFramer(maxMessageBytes: 256)
      var sink: [Inbound] = []
      let once = bytes.withUnsafeBytes { framer.take($0, into: &sink) }
      // What is not claimed or let go is held as a partial frame.
      #expect(claimed + r.discarded <= bytes.count)
      #expect(sink.count <= bytes.count / 6 + 1 || once.ended)
    }
  }
}

@Suite struct HTTPAddressTests {
  @Test func parses() throws {
    #expect(
      try HTTPAddress.parse("unix:/run/labeld/http.sock").get() == .unix("/run/labeld/http.sock"))
    #expect(try HTTPAddress.parse("127.0.0.1:8080").get() == .tcp(host: "127.0.0.1", port: 8080))
    #expect(try HTTPAddress.parse("[::1]:8443").get() == .tcp(host: "::1", port: 8443))
    #expect(try HTTPAddress.parse("0.0.0.0:443").get() == .tcp(host: "0.0.0.0", port: 443))
    #expect(try HTTPAddress.parse("127.0.0.1:8080").get().isLocal)
    #expect(try HTTPAddress.parse("[::1]:1").get().isLocal)
    #expect(try !HTTPAddress.parse("0.0.0.0:1").get().isLocal)
    #expect(try !HTTPAddress.parse("[::]:1").get().isLocal)
    #expect(try HTTPAddress.parse("[::]:1").get().description == "[::]:1")
  }

  @Test(arguments: [
    "", "8080", "unix:relative", "::1:80", "[::1]80", "1.2.3.4:99999", "h:x", ":80",
  ])
  func refused(_ text: String) {
    guard case .failure = HTTPAddress.parse(text) else {
      Issue.record("\(text) was accepted")
      return
    }
  }

  @Test func plainOffThisMachine_isAStartUpError() {
    var settings = WebSettings()
    settings.listen = [.tcp(host: "0.0.0.0", port: 8080)]
    #expect(WebEndpoint.validate(settings)?.contains("plain HTTP is for this machine only") == true)
    settings.selfSigned = true
    #expect(WebEndpoint.validate(settings) == nil)
    settings.certificatePath = "/c.pem"
    #expect(WebEndpoint.validate(settings) == "--tls-cert and --tls-key go together")
  }

  @Test func base64url_andBase64() {
    #expect(WebTokens.base64url([0xFB, 0xFF]) == "-_8")
    #expect(WebTokens.base64url(Array("foobar".utf8)) == "Zm9vYmFy")
    #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
    #expect(Base64.encode(Array("f".utf8)) == "Zg==")
  }

  @Test func metricLabels_escaped() {
    #expect(MetricsSnapshot.escape("a\"b\\c\nd") == "a\\\"b\\\\c\\nd")
  }
}
