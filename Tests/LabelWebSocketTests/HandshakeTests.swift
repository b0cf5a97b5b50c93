import LabelTestKit
import LabelWebSocket
import Testing

/// The opening handshake as a client makes and checks it (RFC 6455 §4.1).
@Suite struct HandshakeTests {
  private static func answer(_ key: String, extra: String = "") -> [UInt8] {
    Array(
      ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(key: key))\r\n"
        + "Sec-WebSocket-Protocol: labeld.v1\r\n\(extra)\r\n").utf8)
  }

  @Test func request_saysWhatTheRFCAsks() throws {
    let request = try #require(
      WebSocketHandshake.request(
        host: "labels.local:8443", path: "/v1/ws", key: "dGhlIHNhbXBsZSBub25jZQ==",
        headers: [("Authorization", "Bearer ldt_x")]))
    let text = String(decoding: request, as: UTF8.self)
    #expect(text.hasPrefix("GET /v1/ws HTTP/1.1\r\nHost: labels.local:8443\r\n"))
    for line in [
      "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: labeld.v1",
      "Authorization: Bearer ldt_x",
    ] {
      #expect(text.contains("\r\n\(line)\r\n"), "\(line)")
    }
    #expect(text.hasSuffix("\r\n\r\n"))
    // A line break in a value would be a second header: refused.
    #expect(
      WebSocketHandshake.request(
        host: "h", path: "/", key: "k", headers: [("Authorization", "Bearer x\r\nEvil: 1")]) == nil)
    #expect(WebSocketHandshake.request(host: "h", path: "no-slash", key: "k") == nil)
  }

  @Test func answer_parsedInAnySplit_andChecked() {
    let key = WebSocketHandshake.newKey()
    let bytes = Self.answer(key) + [0x81, 0x00]
    for cut in 0..<bytes.count {
      if case .response = WebSocketHandshake.parseResponse(Array(bytes[..<cut])) {
        #expect(cut >= bytes.count - 2, "complete at \(cut)")
      }
    }
    guard case .response(let response, let consumed) = WebSocketHandshake.parseResponse(bytes)
    else {
      Issue.record("not parsed")
      return
    }
    #expect(consumed == bytes.count - 2 && response.status == 101)
    #expect(WebSocketHandshake.problem(with: response, key: key) == nil)
    #expect(WebSocketHandshake.problem(with: response, key: WebSocketHandshake.newKey()) != nil)
  }

  @Test(arguments: [
    "Sec-WebSocket-Extensions: permessage-deflate\r\n"
  ])
  func answer_withWhatWasNotAsked_refused(_ extra: String) {
    let key = WebSocketHandshake.newKey()
    guard
      case .response(let r, _) = WebSocketHandshake.parseResponse(Self.answer(key, extra: extra))
    else {
      Issue.record("not parsed")
      return
    }
    #expect(WebSocketHandshake.problem(with: r, key: key) != nil)
  }

  @Test func notHTTP_orTooLong_invalid() {
    for text in [
      "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n", "HTTP/1.1 101\r\n bad\r\n\r\n",
    ] {
      guard case .invalid = WebSocketHandshake.parseResponse(Array(text.utf8)) else {
        Issue.record("taken: \(text)")
        continue
      }
    }
    let endless = Array("HTTP/1.1 101 OK\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: 20_000)
    guard case .invalid = WebSocketHandshake.parseResponse(endless) else {
      Issue.record("an endless head was not refused")
      return
    }
  }

  @Test func randomHeads_neverTrap() {
    var rng = SeededGenerator(seed: 101)
    let base = Self.answer("dGhlIHNhbXBsZSBub25jZQ==")
    for _ in 0..<3000 {
      var bytes = base
      for _ in 0..<Int.random(in: 1...4, using: &rng) {
        bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
      }
      bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
      if case .response(let r, _) = WebSocketHandshake.parseResponse(bytes) {
        _ = WebSocketHandshake.problem(with: r, key: "dGhlIHNhbXBsZSBub25jZQ==")
      }
    }
  }
}
