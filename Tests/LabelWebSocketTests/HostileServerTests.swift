import Foundation
import LabelKit
import LabelKitWeb
import LabelTestKit
import LabelWebSocket
import LabelWire
import Synchronization
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// LabelKit's WebSocket against servers that break RFC 6455 or stop talking: each ends
/// in a typed error (and, where the connection fails, a close frame with the RFC's code
/// sent back), never a hang or a crash.
@Suite struct HostileServerTests {
  /// A loopback server that answers each connection's handshake (or not) and then runs
  /// `script` on the socket. What the client sent after the handshake is collected.
  final class Server: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    let received = Mutex<[UInt8]>([])

    init(script: @escaping @Sendable (_ fd: Int32, _ key: String, _ server: Server) -> Void) throws
    {
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      self.listener = listener
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(listener, $0, length) == 0 && listen(listener, 8) == 0
            && getsockname(listener, $0, &length) == 0
        }
      }
      guard ok else { throw HarnessError.failed("cannot listen") }
      port = Int(UInt16(bigEndian: address.sin_port))
      start(script)
    }

    private func start(_ script: @escaping @Sendable (Int32, String, Server) -> Void) {
      let fd = listener
      Thread { [self] in
        while true {
          let connection = accept(fd, nil, nil)
          guard connection >= 0 else { return }
          var head: [UInt8] = []
          var byte: UInt8 = 0
          while !head.reversed().starts(with: [0x0A, 0x0D, 0x0A, 0x0D]),
            Glibc.read(connection, &byte, 1) == 1
          {
            head.append(byte)
          }
          let text = String(decoding: head, as: UTF8.self)
          let key =
            text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { String($0.dropFirst(18)).trimmingCharacters(in: .whitespaces) } ?? ""
          script(connection, key, self)
          close(connection)
        }
      }.start()
    }

    deinit {
      shutdown(listener, Int32(SHUT_RDWR))
      close(listener)
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) {
      _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    static func accept101(_ fd: Int32, key: String) {
      write(
        fd,
        Array(
          ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(key: key))\r\n"
            + "Sec-WebSocket-Protocol: labeld.v1\r\n\r\n").utf8))
    }

    /// The client's frames read as a server reads them, for up to `seconds`, until one
    /// that satisfies `until` (then its events) or the end.
    func read(_ fd: Int32, seconds: Double = 5, until: ([WebSocketEvent]) -> Bool)
      -> [WebSocketEvent]
    {
      var reader = WebSocketReader(role: .server, maxMessageBytes: 1 << 20)
      var events: [WebSocketEvent] = []
      var chunk = [UInt8](repeating: 0, count: 4096)
      let deadline = Date().addingTimeInterval(seconds)
      while Date() < deadline && !until(events) {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 100) >= 0 else { break }
        if entry.revents == 0 { continue }
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        received.withLock { $0 += chunk[0..<n] }
        _ = reader.take(Array(chunk[0..<n]), into: &events)
      }
      return events
    }

    /// The id of the first request the client sent.
    static func requestID(_ events: [WebSocketEvent]) -> Int? {
      for case .text(let payload, _) in events {
        let text = String(decoding: payload, as: UTF8.self)
        guard let range = text.range(of: #""id":(\d+)"#, options: .regularExpression) else {
          continue
        }
        return Int(text[range].dropFirst(5))
      }
      return nil
    }

    static func hasText(_ events: [WebSocketEvent]) -> Bool {
      events.contains { if case .text = $0 { true } else { false } }
    }

    static func closeCode(_ events: [WebSocketEvent]) -> UInt16?? {
      for case .close(let code, _, _) in events { return .some(code) }
      return nil
    }
  }

  /// One call to the server; its outcome.
  static func call(_ server: Server, timeout: Duration = .seconds(5)) async -> Result<
    JSONValue, LabelError
  > {
    let url = URL(string: "ws://127.0.0.1:\(server.port)/v1/ws") ?? URL(filePath: "/")
    let client = LabeldClient(route: .webSocket(url: url, token: "ldt_test"))
    // On the kit's executor: the shared pool may be held by the suite's blocking tests.
    return await onKitExecutor {
      await client.setCallTimeout(timeout)
      do {
        return .success(try await client.call("hello"))
      } catch let error as LabelError {
        return .failure(error)
      } catch {
        return .failure(.protocolViolation("untyped: \(error)"))
      }
    }
  }

  /// Frames a server must not send: the call fails with `.protocolViolation`, and the
  /// client fails the connection with the RFC's close code (§7.1.7).
  @Test(
    arguments: [
      ("oversized", [0x81, 0x7F, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00], UInt16(1009)),
      ("masked", WebSocketFrame.encode(opcode: 1, Array("{}".utf8), mask: 0x0102_0304), 1002),
      ("reserved bits", [0xF1, 0x00], 1002),
      ("reserved opcode", [0x83, 0x00], 1002),
      ("binary", WebSocketFrame.encode(opcode: 2, [1, 2, 3]), 1003),
      ("not UTF-8", WebSocketFrame.encode(opcode: 1, [0x22, 0xC3, 0x28, 0x22]), 1007),
      ("continuation first", WebSocketFrame.encode(opcode: 0, Array("x".utf8)), 1002),
      ("long ping", WebSocketFrame.encode(opcode: 9, [UInt8](repeating: 0, count: 126)), 1002),
    ] as [(String, [UInt8], UInt16)])
  func badFrames_failTheConnection_typed(_ name: String, _ bytes: [UInt8], _ code: UInt16)
    async throws
  {
    let closed = Mutex<UInt16??>(nil)
    let server = try Server { fd, key, server in
      Server.accept101(fd, key: key)
      _ = server.read(fd) { Server.hasText($0) }
      Server.write(fd, bytes)
      let events = server.read(fd) { Server.closeCode($0) != nil }
      closed.withLock { $0 = Server.closeCode(events) }
    }
    let outcome = await Self.call(server)
    guard case .failure(.protocolViolation(let why)) = outcome else {
      Issue.record("\(name): \(outcome)")
      return
    }
    #expect(why.contains("RFC 6455"), "\(name): \(why)")
    for _ in 0..<100 where closed.withLock({ $0 }) == nil {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(closed.withLock { $0 } == .some(code), "\(name)")
  }

  /// An answer in three fragments with a ping between them is one message, and the ping
  /// is answered with a pong carrying its payload (§5.4, §5.5.2).
  @Test func fragmentsAndAPing_makeOneAnswer() async throws {
    let ponged = Mutex(false)
    let server = try Server { fd, key, server in
      Server.accept101(fd, key: key)
      let events = server.read(fd) { Server.hasText($0) }
      let id = Server.requestID(events) ?? 0
      let answer = Array(#"{"jsonrpc":"2.0","id":\#(id),"result":{"server":"hostile"}}"#.utf8)
      let third = answer.count / 3
      Server.write(
        fd,
        WebSocketFrame.encode(opcode: 1, answer[..<third], fin: false)
          + WebSocketFrame.encode(opcode: 9, Array("are you there".utf8))
          + WebSocketFrame.encode(opcode: 0, answer[third..<(2 * third)], fin: false)
          + WebSocketFrame.encode(opcode: 0, answer[(2 * third)...]))
      let more = server.read(fd, seconds: 2) { e in
        e.contains { if case .ping = $0 { false } else if case .text = $0 { false } else { true } }
      }
      ponged.withLock {
        $0 = more.contains { if case .pong = $0 { true } else { false } }
      }
    }
    let outcome = await Self.call(server)
    guard case .success(let result) = outcome else {
      Issue.record("\(outcome)")
      return
    }
    #expect(result["server"]?.stringValue == "hostile")
  }

  /// A server that stops in the middle of a frame: the call times out (`.timeout`) while
  /// it holds the connection, and is `.connectionLost` when it closes it.
  @Test func aServerStoppingMidFrame_timesOutOrIsLost() async throws {
    let holding = try Server { fd, key, server in
      Server.accept101(fd, key: key)
      _ = server.read(fd) { Server.hasText($0) }
      Server.write(fd, [0x81, 0x7E, 0x01])  // a header cut short
      _ = server.read(fd, seconds: 3) { _ in false }
    }
    guard case .failure(.timeout) = await Self.call(holding, timeout: .seconds(1)) else {
      Issue.record("a silent server did not time out")
      return
    }
    let leaving = try Server { fd, key, server in
      Server.accept101(fd, key: key)
      _ = server.read(fd) { Server.hasText($0) }
      Server.write(fd, [0x81, 0x0A, 0x7B])  // a frame cut short, then the end
    }
    let outcome = await Self.call(leaving)
    guard case .failure(.connectionLost) = outcome else {
      Issue.record("\(outcome)")
      return
    }
  }

  /// Handshakes that are not labeld's answer: typed, with why.
  @Test(arguments: [
    ("SSH-2.0-OpenSSH_9.2\r\n\r\n", "protocol"),
    ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "protocol"),
    (
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: d3Jvbmc=\r\n\r\n",
      "protocol"
    ),
    ("HTTP/1.1 401 Unauthorized\r\n\r\n", "unauthorized"),
    ("HTTP/1.1 503 Service Unavailable\r\n\r\n", "unreachable"),
  ])
  func handshakes_typed(_ answer: String, _ kind: String) async throws {
    let server = try Server { fd, _, _ in Server.write(fd, Array(answer.utf8)) }
    let outcome = await Self.call(server)
    switch (outcome, kind) {
    case (.failure(.protocolViolation), "protocol"), (.failure(.unauthorized), "unauthorized"),
      (.failure(.unreachable), "unreachable"):
      break
    default: Issue.record("\(answer.prefix(20)): \(outcome)")
    }
  }

  /// labeld's close for a revoked token (1008) is `.unauthorized`; the client echoes it.
  @Test func policyClose_isUnauthorized_andEchoed() async throws {
    let echoed = Mutex<UInt16??>(nil)
    let server = try Server { fd, key, server in
      Server.accept101(fd, key: key)
      _ = server.read(fd) { Server.hasText($0) }
      Server.write(fd, WebSocketFrame.close(code: 1008, reason: "the token was revoked"))
      let events = server.read(fd) { Server.closeCode($0) != nil }
      echoed.withLock { $0 = Server.closeCode(events) }
    }
    let outcome = await Self.call(server)
    guard case .failure(.unauthorized(let why)) = outcome else {
      Issue.record("\(outcome)")
      return
    }
    #expect(why.contains("revoked"))
    for _ in 0..<100 where echoed.withLock({ $0 }) == nil {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(echoed.withLock { $0 } == .some(1008))
  }

  /// Random bytes after the handshake, many times: a typed error or an answer, never a
  /// hang or a trap.
  @Test func randomBytes_afterTheHandshake_typed() async throws {
    var rng = SeededGenerator(seed: 6455)
    for _ in 0..<40 {
      let bytes = (0..<Int.random(in: 1..<64, using: &rng)).map { _ in
        UInt8.random(in: 0...255, using: &rng)
      }
      let server = try Server { fd, key, server in
        Server.accept101(fd, key: key)
        _ = server.read(fd) { Server.hasText($0) }
        Server.write(fd, bytes)
      }
      switch await Self.call(server, timeout: .seconds(2)) {
      case .failure(.protocolViolation), .failure(.connectionLost), .failure(.timeout),
        .failure(.unauthorized), .success:
        break
      case let other: Issue.record("\(bytes): \(other)")
      }
    }
  }
}
