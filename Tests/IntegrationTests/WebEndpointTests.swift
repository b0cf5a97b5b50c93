import Foundation
import LabelCore
import LabelKit
import LabelLoad
import LabelTestKit
import LabelWire
import Testing

/// labeld's web endpoint against the built daemon, from outside: the WebSocket protocol
/// (the same methods, errors and notifications as the Unix socket), who may sign in and do
/// what, Origins, limits, and peers that misbehave at the HTTP and the frame level.
@Suite struct WebEndpointTests {
  static let args = DaemonProcess.defaultArguments + ["--listen-http", "127.0.0.1:0"]

  /// A daemon with the endpoint on loopback, its port and an operator's secret.
  private func withWeb<T>(
    _ extra: [String] = [], _ body: (DaemonProcess, Int, String) throws -> T
  ) throws -> T {
    try withDaemon(Self.args + extra) { d in
      let port = try d.webPort()
      return try body(d, port, try d.token("counter-ipad", role: "operator"))
    }
  }

  @Test func protocolV1_overAWebSocket_answersAndNotifies() throws {
    try withWeb { d, port, secret in
      let ws = try WebSocketClient(port: port, token: secret)
      let hello = try ws.call("hello", ["client": "test"])
      #expect(hello["result"]?["server"] == "labeld")
      // The same errors as on the socket.
      #expect(try ws.call("printers.delete")["error"]?["code"] == .int(-32601))
      #expect(try ws.call("jobs.get", ["job": 0])["error"]?["code"] == .int(-32602))
      // A fault raised by an administrator on the socket reaches the web subscriber.
      _ = try ws.call("subscribe", ["topics": ["alerts", "jobs"]])
      try d.client().call(
        "printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])
      let alert = try ws.waitFor("alert") { $0["printer"] == "sim:zebra" }
      #expect(alert["reason"] == "coverOpen" && alert["state"] == "active")
      // An operator prints, and the label reaches the printer once the fault clears.
      let zpl = "^XA^FO20,20^A0N,30,30^FDweb^FS^XZ"
      let submitted = try ws.call(
        "jobs.submit",
        [
          "printer": "sim:zebra",
          "document": ["format": "native", "data": base64(zpl)],
        ])
      let job = try #require(submitted["result"]?["job"]?["id"]?.intValue)
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
      let done = try ws.waitFor("job") { $0["id"] == .int(job) && $0["state"] == "completed" }
      #expect(done["printed"] == 1)
      #expect(d.simOutput("zebra", job: job, ext: "zpl") == Array(zpl.utf8))
    }
  }

  /// The waiting queue's bound holds for the web front too: past it a submit over the
  /// WebSocket is refused with 1008 and its data, and nothing is stored.
  @Test func theQueuesBound_refusesWebJobs_with1008() throws {
    try withWeb(["--max-jobs-per-printer", "1"]) { d, port, secret in
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])
      let ws = try WebSocketClient(port: port, token: secret)
      let job: JSONValue = [
        "printer": "sim:zebra", "document": ["format": "native", "data": base64("^XA^XZ")],
      ]
      #expect(try ws.call("jobs.submit", job)["result"] != nil)
      let refused = try ws.call("jobs.submit", job)["error"]
      #expect(refused?["code"] == .int(1008), "\(String(describing: refused))")
      #expect(refused?["data"]?["bound"] == "printer" && refused?["data"]?["limit"] == 1)
      #expect(try d.client().call("jobs.list")["jobs"]?.arrayValue?.count == 1)
    }
  }

  @Test func roles_decideWhatATokenMayDo() throws {
    try withWeb { d, port, operatorSecret in
      let viewer = try WebSocketClient(port: port, token: try d.token("wall", role: "viewer"))
      #expect(try viewer.call("printers.list")["result"] != nil)
      let refused = try viewer.call(
        "jobs.submit",
        ["printer": "sim:zebra", "document": ["format": "native", "data": base64("^XA^XZ")]])
      #expect(refused["error"]?["code"] == .int(1005))
      #expect(refused["error"]?["data"]?["token"] == "wall")
      #expect(try viewer.call("alerts.dismiss", ["id": "x"])["error"]?["code"] == .int(1005))
      let op = try WebSocketClient(port: port, token: operatorSecret)
      #expect(
        try op.call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])[
          "error"]?["code"] == .int(1005))
      #expect(try op.call("tokens.list")["error"]?["code"] == .int(1005))
      let admin = try WebSocketClient(port: port, token: try d.token("boss", role: "admin"))
      #expect(
        try admin.call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])[
          "result"] != nil)
      // Tokens are listed without their secrets; labeld's log never has one.
      let listed = try d.client().call("tokens.list", as: TokensResult.self).tokens
      #expect(listed.map(\.name) == ["boss", "counter-ipad", "wall"])
      #expect(!d.log.contains(operatorSecret))
    }
  }

  /// No token, a wrong one, a revoked one: 401 and nothing else said.
  @Test func signIn_refusedWithout_aGoodToken() throws {
    try withWeb { d, port, secret in
      for headers in [[:], ["Authorization": "Bearer ldt_wrong"], ["Authorization": "Basic eA=="]] {
        let (head, rest, _) = try WebSocketClient.exchange(
          port: port, WebSocketClient.handshake(headers))
        #expect(WebSocketClient.status(head) == 401, "\(headers)")
        #expect(head.contains("WWW-Authenticate: Bearer"))
        #expect(rest.isEmpty)
      }
      // The subprotocol form browsers use.
      let ws = try WebSocketClient(
        port: port, token: nil, headers: ["Sec-WebSocket-Protocol": "labeld.v1, bearer.\(secret)"])
      #expect(ws.head.contains("Sec-WebSocket-Protocol: labeld.v1"))
      // Revoked: the open connection closes at once, and it signs in no more.
      let revoked = try d.client().call(
        "tokens.revoke", ["name": "counter-ipad"], as: RevokeResult.self)
      #expect(revoked.revoked && revoked.closed == 1)
      #expect(ws.closedByServer())
      #expect(throws: (any Error).self) { try WebSocketClient(port: port, token: secret) }
      #expect(try d.client().error("tokens.revoke", ["name": "nobody"]) == nil)
    }
  }

  /// A token revoked the moment its WebSocket's handshake is answered: libmicrohttpd hands
  /// the socket over after the answer, so the revocation can come first, and a connection
  /// served after it once stayed open, signed in with a revoked token. Each round's
  /// connection is closed, and counted, whichever comes first.
  @Test func revokedRightAfterTheHandshake_leavesNoConnectionOpen() throws {
    try withWeb { d, port, _ in
      let admin = try d.client()
      for round in 0..<40 {
        let name = "ipad-\(round)"
        let secret = try d.token(name, role: "viewer")
        let ws = try WebSocketClient(port: port, token: secret)
        let revoked = try admin.call(
          "tokens.revoke", ["name": .string(name)], as: RevokeResult.self)
        #expect(revoked.revoked && revoked.closed == 1, "round \(round)")
        #expect(ws.closedByServer(), "round \(round)")
      }
    }
  }

  /// Cross-site WebSocket hijacking: a page of another origin is refused even with a
  /// token; the endpoint's own origin and configured ones are not.
  @Test func origins() throws {
    try withWeb(["--web-origin", "https://pos.example.com"]) { _, port, secret in
      let evil = try WebSocketClient.exchange(
        port: port,
        WebSocketClient.handshake([
          "Authorization": "Bearer \(secret)", "Origin": "https://evil.example",
        ])
      ).head
      #expect(WebSocketClient.status(evil) == 403)
      _ = try WebSocketClient(port: port, token: secret, headers: ["Origin": "http://127.0.0.1"])
      _ = try WebSocketClient(
        port: port, token: secret, headers: ["Origin": "https://pos.example.com"])
    }
  }

  @Test func malformedUpgrades_areHTTPErrors_andLabeldServesOn() throws {
    try withWeb { d, port, secret in
      let auth = "Authorization: Bearer \(secret)\r\n"
      let cases: [(String, Int)] = [
        ("GET /v1/ws HTTP/1.1\r\nHost: x\r\n\(auth)\r\n", 400),
        (
          "GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\(auth)\r\n",
          426
        ),
        (
          "GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\(auth)\r\n", 400
        ),
        ("POST /v1/ws HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", 405),
        ("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n", 404),
        ("BREW / HTCPCP/1.0\r\n\r\n", 400),
      ]
      for (request, status) in cases {
        let head = try WebSocketClient.exchange(port: port, Array(request.utf8)).head
        #expect(WebSocketClient.status(head) == status, "\(request)")
      }
      // A header flood: refused by the library's per-connection limit.
      let flood =
        "GET / HTTP/1.1\r\nHost: x\r\nX-Flood: \(String(repeating: "a", count: 200_000))\r\n\r\n"
      let head = try WebSocketClient.exchange(port: port, Array(flood.utf8)).head
      #expect(
        head.isEmpty || [413, 431, 400].contains(WebSocketClient.status(head)), "\(head.prefix(80))"
      )
      #expect(try d.client().call("hello", as: HelloResult.self).server == "labeld")
      #expect(try WebSocketClient(port: port, token: secret).call("hello")["result"] != nil)
    }
  }

  /// Frames a client must not send end its connection with a close frame of the right
  /// code (RFC 6455 §7.4.1); the daemon serves on. A frame that breaks the protocol fails
  /// the connection with nothing after it (§7.1.7); what labeld declines (a binary or too
  /// long message) is answered with a JSON-RPC error first.
  @Test func badFrames_closeTheConnection_withTheRightCode() throws {
    try withWeb { d, port, secret in
      let cases: [([UInt8], Int, Bool)] = [
        (WebSocketClient.frame(opcode: 1, Array("{}".utf8), masked: false), 1002, false),
        (WebSocketClient.frame(opcode: 1, [0x22, 0xFF, 0x22]), 1007, false),
        (WebSocketClient.frame(opcode: 9, [UInt8](repeating: 1, count: 126)), 1002, false),
        (WebSocketClient.frame(opcode: 2, [1, 2, 3]), 1003, true),
        ([0x81, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4], 1009, true),
        (
          WebSocketClient.frame(opcode: 1, [UInt8](repeating: 0x20, count: (1 << 20) + 1)), 1009,
          true
        ),
      ]
      for (bytes, code, answered) in cases {
        let ws = try WebSocketClient(port: port, token: secret)
        try ws.send(raw: bytes)
        var sawError = false
        var closeCode: Int?
        while let frame = ws.readFrame() {
          if frame.opcode == 1, frame.text.contains("\"error\"") { sawError = true }
          if frame.opcode == 8 {
            closeCode = frame.closeCode
            break
          }
        }
        #expect(
          sawError == answered && closeCode == code,
          "\(bytes.prefix(4)) → \(String(describing: closeCode))")
        #expect(ws.closedByServer())
      }
      #expect(try d.client().call("hello", as: HelloResult.self).server == "labeld")
    }
  }

  /// A close is echoed with the code it carried (RFC 6455 §5.5.1: 1000 back for 1000).
  @Test func close_isEchoedWithItsCode() throws {
    try withWeb { _, port, secret in
      for code: UInt16 in [1000, 1001, 4000] {
        let ws = try WebSocketClient(port: port, token: secret)
        try ws.send(raw: WebSocketClient.frame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)]))
        var echoed: Int?
        while let frame = ws.readFrame() {
          if frame.opcode == 8 {
            echoed = frame.closeCode
            break
          }
        }
        #expect(echoed == Int(code))
        #expect(ws.closedByServer())
      }
    }
  }

  /// A message in fragments and pings between them; a ping is answered with its payload;
  /// a close is answered after the requests before it.
  @Test func fragmentsPingsAndClose() throws {
    try withWeb { _, port, secret in
      let ws = try WebSocketClient(port: port, token: secret)
      let request = Array(#"{"jsonrpc":"2.0","id":7,"method":"hello"}"#.utf8)
      try ws.send(
        raw: WebSocketClient.frame(opcode: 1, Array(request[0..<10]), fin: false)
          + WebSocketClient.frame(opcode: 9, Array("are you there".utf8))
          + WebSocketClient.frame(opcode: 0, Array(request[10...]))
          + WebSocketClient.frame(opcode: 8, [0x03, 0xE8]))
      var frames: [WebSocketClient.Frame] = []
      while let f = ws.readFrame() {
        frames.append(f)
        if f.opcode == 8 { break }
      }
      #expect(frames.map(\.opcode) == [0xA, 1, 8])
      #expect(frames.first?.text == "are you there")
      #expect(frames.dropFirst().first?.text.contains("\"id\":7") == true)
      #expect(frames.last?.closeCode == 1000)
      #expect(ws.closedByServer())
    }
  }

  /// A web subscriber that stops reading is overflowed as on the socket: `overflow` with
  /// the last seq it was sent, then closed; the daemon's memory for it is bounded.
  @Test func slowReader_isOverflowed() throws {
    try withWeb(["--max-queued-messages", "64", "--alert-retention", "100000"]) { d, port, secret in
      let sleeper = try WebSocketClient(port: port, token: secret)
      _ = try sleeper.call("subscribe", ["topics": ["alerts"]])
      // Faults raised and cleared until labeld says it overflowed the sleeper (readiness,
      // not timing; bounded, so a daemon that never does fails).
      try d.client().floodFaults(on: "sim:zebra", toggles: 40_000) {
        d.log.contains("overflowed")
      }
      #expect(d.log.contains("token counter-ipad) overflowed"))
      var last: WebSocketClient.Frame?
      var texts: [String] = []
      while let f = sleeper.readFrame(timeout: 15) {
        if f.opcode == 1 { texts.append(f.text) }
        last = f
        if f.opcode == 8 { break }
      }
      // Every alert before the overflow, in order, then `overflow` naming the last.
      #expect(
        texts.last == #"{"jsonrpc":"2.0","method":"overflow","params":{"seq":\#(texts.count - 1)}}"#
      )
      #expect(last?.opcode == 8)
    }
  }

  /// The protocol fuzzer's requests as WebSocket text messages from an admin token, then
  /// the frames themselves mutated: every answer is a JSON-RPC object, a connection ends
  /// only with a close frame, and labeld serves on.
  @Test func fuzzedRequestsAndFrames_overAWebSocket() throws {
    try withWeb { d, port, _ in
      var fuzzer = ProtocolFuzzer(seed: 28)
      try ProtocolFuzzer.prepare(try d.client())
      let admin = try d.token("fuzz-admin", role: "admin")
      var ws = try WebSocketClient(port: port, token: admin)
      var fence = 1_000_000
      var answered = 0
      for i in 0..<1500 {
        let line =
          i < ProtocolFuzzer.nastyLines.count
          ? Array(ProtocolFuzzer.nastyLines[i].utf8) : fuzzer.nextLine().line
        try ws.send(raw: WebSocketClient.frame(opcode: 1, line))
        guard i % 50 == 49 else { continue }
        // A fence: everything before it is answered by the time its answer comes.
        fence += 1
        try ws.send(text: #"{"jsonrpc":"2.0","id":\#(fence),"method":"hello"}"#)
        var sawFence = false
        while !sawFence, let frame = ws.readFrame(timeout: 30) {
          if frame.opcode == 8 { break }
          guard frame.opcode == 1 else { continue }
          let message = try JSONValue.parse(frame.payload)
          #expect(message["jsonrpc"] == "2.0", "\(frame.text.prefix(300))")
          if message["id"] == .int(fence) { sawFence = true } else { answered += 1 }
        }
        if !sawFence {
          // Closed (a line over the limit among the nasty ones): labeld goes on.
          #expect(d.process.isRunning)
          ws = try WebSocketClient(port: port, token: admin)
        }
      }
      #expect(answered > 500)
      var rng = SeededGenerator(seed: 2828)
      for _ in 0..<300 {
        var bytes = WebSocketClient.frame(opcode: 1, fuzzer.nextLine().line)
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
          bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(
            in: 0...255, using: &rng)
        }
        let probe = try WebSocketClient(port: port, token: admin)
        try probe.send(raw: bytes + WebSocketClient.frame(opcode: 8, [0x03, 0xE8]))
        // Whatever it made of them, it ends with a close frame and closes.
        var last: WebSocketClient.Frame?
        while let frame = probe.readFrame(timeout: 30) {
          last = frame
          if frame.opcode == 8 { break }
        }
        #expect(last?.opcode == 8)
      }
      #expect(try d.client().call("hello", as: HelloResult.self).server == "labeld")
    }
  }

  /// Pings faster than they are read: labeld stops reading that client once its answers
  /// pile up (the socket's back-pressure), stays small, and serves everyone else.
  @Test func pingFlood_isBounded() throws {
    try withWeb { d, port, secret in
      let flooder = try WebSocketClient(port: port, token: secret)
      let ping = WebSocketClient.frame(opcode: 9, Array("flood".utf8))
      let burst = Array([[UInt8]](repeating: ping, count: 10_000).joined())
      var sent = 0
      // Until labeld stops taking them (the write times out) or 200 MB went.
      while sent < 2_000,
        (try? flooder.connection.write(burst, timeoutMS: 2000, cancelled: { false })) != nil
      {
        sent += 1
      }
      let rss = try #require(ProcessMetrics.read(d.process.processIdentifier)).rssKB
      #expect(rss < 200_000, "labeld RSS \(rss) KB after \(sent) bursts of 10,000 pings")
      #expect(try d.client().call("hello", as: HelloResult.self).server == "labeld")
      #expect(try WebSocketClient(port: port, token: secret).call("hello")["result"] != nil)
      // The flooder's pongs are there to read, each with its ping's payload.
      #expect(flooder.readFrame()?.opcode == 0xA)
    }
  }

  /// Idle connections, plain and upgraded, hold nothing up: the daemon still answers.
  @Test func manyIdleConnections() throws {
    try withWeb { d, port, secret in
      var sockets: [WebSocketClient] = []
      for _ in 0..<250 { sockets.append(try WebSocketClient(port: port, token: secret)) }
      var plain: [Any] = []
      for _ in 0..<250 {
        plain.append(try TCPConnectionHolder(port: port))
      }
      #expect(try d.client().call("hello", as: HelloResult.self).server == "labeld")
      #expect(try WebSocketClient(port: port, token: secret).call("hello")["result"] != nil)
      #expect(try sockets[123].call("printers.list")["result"] != nil)
      withExtendedLifetime(plain) {}
    }
  }

  /// `/metrics`: the Prometheus text format, on loopback without a token, with one off it.
  @Test func metrics() throws {
    try withWeb { d, port, _ in
      try d.client().call("printers.simulate", ["printer": "sim:ql", "fault": "coverOpen"])
      let (head, rest, c) = try WebSocketClient.exchange(
        port: port, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
      #expect(WebSocketClient.status(head) == 200)
      #expect(head.contains("text/plain; version=0.0.4"))
      var body = rest
      while let more = try? c.read(maxLength: 65536, timeoutMS: 2000), !more.isEmpty {
        body += more
      }
      let text = String(decoding: body, as: UTF8.self)
      #expect(text.contains(#"labeld_alerts_active{kind="printerError",reason="coverOpen"} 1"#))
      #expect(text.contains(#"labeld_printer_up{printer="sim:ql"} 0"#))
      #expect(text.contains(#"labeld_printer_up{printer="sim:zebra"} 1"#))
      #expect(text.contains(#"labeld_jobs_refused_total{bound="printer"} 0"#))
    }
  }

  /// A job past the queue's bound is refused over the WebSocket as on the socket (1008),
  /// and the refusal is counted in /metrics.
  @Test func tooManyJobs_overAWebSocket_isCountedInMetrics() throws {
    try withWeb(["--max-jobs-per-printer", "1"]) { d, port, secret in
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])
      let ws = try WebSocketClient(port: port, token: secret)
      let doc: JSONValue = ["format": "native", "data": "Xl5YQV5YWg=="]
      let first = try ws.call("jobs.submit", ["printer": "sim:zebra", "document": doc])
      #expect(first["result"]?["job"]?["origin"] == ["kind": "web", "user": "counter-ipad"])
      let second = try ws.call("jobs.submit", ["printer": "sim:zebra", "document": doc])
      #expect(second["error"]?["code"] == 1008)
      #expect(second["error"]?["data"]?["bound"] == "printer")
      let (head, rest, c) = try WebSocketClient.exchange(
        port: port, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
      #expect(WebSocketClient.status(head) == 200)
      var body = rest
      while let more = try? c.read(maxLength: 65536, timeoutMS: 2000), !more.isEmpty {
        body += more
      }
      let text = String(decoding: body, as: UTF8.self)
      #expect(text.contains(#"labeld_jobs_refused_total{bound="printer"} 1"#), "\(text)")
    }
  }

  @Test func plainHTTP_offThisMachine_isAStartUpError() throws {
    let d = try? DaemonProcess(DaemonProcess.defaultArguments + ["--listen-http", "0.0.0.0:0"])
    #expect(d == nil)
    let said = try Shell.output(
      "'\(DaemonProcess.labeldPath)' --no-config --listen-http 0.0.0.0:8080 --check-config 2>&1; "
        + "echo \"exit $?\"")
    #expect(said.contains("plain HTTP is for this machine only"))
    #expect(!said.hasSuffix("exit 0"))
  }
}

/// A plain TCP connection to the endpoint that says nothing.
private final class TCPConnectionHolder {
  let fd: Int32
  init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    if rc != 0 { throw HarnessError.failed("connect: \(errno)") }
  }
  deinit { close(fd) }
}
