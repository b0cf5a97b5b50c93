import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Testing

/// A request over the message limit is refused with -32600 naming the limit, in the
/// message and in `error.data.limitBytes`, on the Unix socket and over the WebSocket alike:
/// a 2 MB request was answered "message too large" and nothing said how much is allowed.
@Suite struct MessageLimitTests {
  /// A `hello` request of exactly `bytes` bytes (without its newline).
  static func request(bytes: Int) -> [UInt8] {
    var line = Array(#"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"client":""#.utf8)
    line += [UInt8](repeating: 0x61, count: bytes - line.count - 3)
    return line + Array(#""}}"#.utf8)
  }

  /// The error a refusal answers, checked for what a client needs to know.
  static func expectNamesTheLimit(_ error: JSONValue?, _ limit: Int) {
    #expect(error?["code"] == .int(-32600))
    #expect(error?["data"]?["limitBytes"] == .int(limit))
    #expect(error?["message"]?.stringValue == "message too large: the limit is \(limit) bytes")
  }

  /// The default limit (1 MiB) and one configured; the daemon serves on.
  @Test(arguments: [nil, 65_536] as [Int?])
  func twoMegabytes_onTheSocket_namesTheLimit(configured: Int?) throws {
    let extra = configured.map { ["--max-message-bytes", "\($0)"] } ?? []
    try withDaemon(DaemonProcess.defaultArguments + extra) { d in
      let c = try d.client()
      // labeld stops reading once the line is past the limit and closes: the rest of the
      // 2 MB may not be taken (EPIPE), which is not what this test is about.
      try? c.sendLine(Self.request(bytes: 2_000_000))
      let lines = try c.readUntilClosed()
      #expect(lines.count == 1)
      let reply = try JSONValue.parse(try #require(lines.first))
      Self.expectNamesTheLimit(reply["error"], configured ?? 1 << 20)
      #expect(try d.client().call("hello")["protocol"] == .int(1))
    }
  }

  /// Over the WebSocket: the same error as a text frame, then the close frame 1009.
  @Test(arguments: [nil, 65_536] as [Int?])
  func twoMegabytes_overTheWebSocket_namesTheLimit(configured: Int?) throws {
    let extra = configured.map { ["--max-message-bytes", "\($0)"] } ?? []
    try withDaemon(DaemonProcess.defaultArguments + ["--listen-http", "127.0.0.1:0"] + extra) {
      d in
      let ws = try WebSocketClient(
        port: try d.webPort(), token: try d.token("counter-ipad", role: "operator"))
      try? ws.send(raw: WebSocketClient.frame(opcode: 1, Self.request(bytes: 2_000_000)))
      var error: JSONValue?
      var closeCode: Int?
      while let frame = ws.readFrame() {
        if frame.opcode == 1 { error = try JSONValue.parse(frame.payload)["error"] }
        if frame.opcode == 8 {
          closeCode = frame.closeCode
          break
        }
      }
      Self.expectNamesTheLimit(error, configured ?? 1 << 20)
      #expect(closeCode == 1009)
      #expect(try d.client().call("hello")["protocol"] == .int(1))
    }
  }
}
