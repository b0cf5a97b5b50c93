import Foundation
import LabelCore
import LabelPOSIX
import LabelWire

/// A WebSocket client for tests, written from RFC 6455 at the byte level so a test can
/// also send what a well-behaved client never would (unmasked frames, reserved opcodes,
/// lengths that lie). Blocking, every wait bounded: use it off the cooperative pool.
package final class WebSocketClient {
  package struct Frame: Equatable {
    package var fin: Bool
    package var opcode: UInt8
    package var payload: [UInt8]
    package var text: String { String(decoding: payload, as: UTF8.self) }
    /// A close frame's code.
    package var closeCode: Int? {
      opcode == 8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
    }
  }

  package let connection: TCPConnection
  /// The handshake's answer: status line and headers.
  package let head: String
  private var buffer: [UInt8]
  /// Notifications read while waiting for an answer, kept for `waitFor`.
  package var notifications: [[String: JSONValue]] = []
  private var nextID = 1

  /// The status code of an HTTP answer head.
  package static func status(_ head: String) -> Int {
    let parts = head.split(separator: " ", maxSplits: 2)
    return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
  }

  /// Sends `request` as it is and reads the answer's head (and what came after it).
  package static func exchange(port: Int, _ request: [UInt8], timeout: Int32 = 10_000) throws
    -> (head: String, rest: [UInt8], connection: TCPConnection)
  {
    let c = try TCPConnection.connect(host: "127.0.0.1", port: port, timeoutMS: timeout)
    try c.write(request, timeoutMS: timeout, cancelled: { false })
    var got: [UInt8] = []
    let end: [UInt8] = [13, 10, 13, 10]
    while true {
      if let r = got.firstRange(of: end) {
        return (
          String(decoding: got[..<r.lowerBound], as: UTF8.self), Array(got[r.upperBound...]), c
        )
      }
      let more: [UInt8]
      do {
        more = try c.read(maxLength: 65536, timeoutMS: timeout)
      } catch {
        return (String(decoding: got, as: UTF8.self), [], c)
      }
      if more.isEmpty { throw HarnessError.failed("no HTTP answer within \(timeout) ms") }
      got += more
    }
  }

  /// The handshake request for `/v1/ws` with `headers` (a token: `Authorization`).
  package static func handshake(_ headers: [String: String], path: String = "/v1/ws")
    -> [UInt8]
  {
    var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    text += "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
    text += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
    return Array((text + "\r\n").utf8)
  }

  /// Opens `/v1/ws` with `token`; throws unless labeld answers 101.
  package init(port: Int, token: String?, headers: [String: String] = [:]) throws {
    var all = headers
    if let token { all["Authorization"] = "Bearer \(token)" }
    let (head, rest, c) = try Self.exchange(port: port, Self.handshake(all))
    guard Self.status(head) == 101 else {
      throw HarnessError.failed(
        "the handshake was answered \(head.split(separator: "\r\n").first ?? "")")
    }
    // RFC 6455 §4.2.2: base64(SHA-1(key + GUID)) of the key above.
    guard head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") else {
      throw HarnessError.failed("a wrong Sec-WebSocket-Accept: \(head)")
    }
    connection = c
    self.head = head
    buffer = rest
  }

  /// A client frame: masked unless told not to be.
  package static func frame(
    opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv: UInt8 = 0
  ) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
    let mask: UInt8 = masked ? 0x80 : 0
    if payload.count < 126 {
      out.append(mask | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
      out += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
      out.append(mask | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        out.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF))
      }
    }
    guard masked else { return out + payload }
    let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    out += key
    for (i, b) in payload.enumerated() { out.append(b ^ key[i & 3]) }
    return out
  }

  package func send(raw bytes: [UInt8]) throws {
    try connection.write(bytes, timeoutMS: 10_000, cancelled: { false })
  }

  package func send(text: String) throws {
    try send(raw: Self.frame(opcode: 1, Array(text.utf8)))
  }

  /// The next frame from labeld; nil when nothing whole came within `timeout` seconds or
  /// the connection ended.
  package func readFrame(timeout: Double = 10) -> Frame? {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let frame = takeFrame() { return frame }
      let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
      guard left > 0 else { return nil }
      guard let more = try? connection.read(maxLength: 65536, timeoutMS: left), !more.isEmpty
      else { return nil }
      buffer += more
    }
  }

  /// Whether labeld closed the connection (a read sees its end) within `timeout` seconds,
  /// frames before the end skipped.
  package func closedByServer(timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      do {
        let more = try connection.read(maxLength: 65536, timeoutMS: 200)
        buffer += more
      } catch {
        return true
      }
    }
    return false
  }

  /// Bytes of `buffer` already taken as frames (dropped in one go once they add up, so a
  /// long stream costs its length, not its length per frame).
  private var consumed = 0

  private func takeFrame() -> Frame? {
    if consumed > 1 << 16 {
      buffer.removeFirst(consumed)
      consumed = 0
    }
    let b = consumed
    guard buffer.count - b >= 2 else { return nil }
    var length = Int(buffer[b + 1] & 0x7F)
    var at = b + 2
    if length == 126 {
      guard buffer.count - b >= 4 else { return nil }
      length = Int(buffer[b + 2]) << 8 | Int(buffer[b + 3])
      at = b + 4
    } else if length == 127 {
      guard buffer.count - b >= 10 else { return nil }
      length = 0
      for i in (b + 2)..<(b + 10) { length = length << 8 | Int(buffer[i]) }
      at = b + 10
    }
    guard buffer.count >= at + length else { return nil }
    let frame = Frame(
      fin: buffer[b] & 0x80 != 0, opcode: buffer[b] & 0x0F,
      payload: Array(buffer[at..<(at + length)]))
    consumed = at + length
    return frame
  }

  /// The next JSON message (text frame), skipping control frames.
  package func readMessage(timeout: Double = 10) -> [String: JSONValue]? {
    let deadline = Date().addingTimeInterval(timeout)
    while let frame = readFrame(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
      if frame.opcode == 1, case .object(let o)? = try? JSONValue.parse(frame.payload) {
        return o
      }
      if frame.opcode == 8 { return nil }
    }
    return nil
  }

  /// Calls `method` and returns its answer (result or error object); notifications read
  /// meanwhile are kept.
  package func call(_ method: String, _ params: JSONValue? = nil, timeout: Double = 30) throws
    -> [String: JSONValue]
  {
    let id = nextID
    nextID += 1
    var request: [String: JSONValue] = [
      "jsonrpc": "2.0", "id": .int(id), "method": .string(method),
    ]
    if let params { request["params"] = params }
    try send(raw: Self.frame(opcode: 1, try JSONWriter.write(JSONValue.object(request))))
    let deadline = Date().addingTimeInterval(timeout)
    while let message = readMessage(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
      if message["id"] == .int(id) { return message }
      if message["method"] != nil { notifications.append(message) }
    }
    throw HarnessError.failed("no answer to \(method) within \(timeout) s")
  }

  /// Waits for a notification `method` whose params match.
  package func waitFor(
    _ method: String, timeout: Double = 30, _ matches: ([String: JSONValue]) -> Bool
  ) throws -> [String: JSONValue] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let i = notifications.firstIndex(where: {
        $0["method"] == .string(method) && matches(Self.params($0))
      }) {
        return Self.params(notifications.remove(at: i))
      }
      guard deadline.timeIntervalSinceNow > 0,
        let message = readMessage(timeout: deadline.timeIntervalSinceNow)
      else { throw HarnessError.failed("no \(method) notification within \(timeout) s") }
      if message["method"] != nil { notifications.append(message) }
    }
  }

  private static func params(_ message: [String: JSONValue]) -> [String: JSONValue] {
    if case .object(let p)? = message["params"] { return p }
    return [:]
  }
}

extension DaemonProcess {
  /// The port of labeld's web endpoint, from its log line once it listens.
  package func webPort(timeout: Double = 30) throws -> Int {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      for line in log.split(separator: "\n") where line.contains("web endpoint on ") {
        // "... on http://127.0.0.1:43817 (WebSocket /v1/ws)": the digits after the last
        // colon before the space.
        let address = line.split(separator: " ").first { $0.contains("://") } ?? ""
        if let port = Int(address.split(separator: ":").last ?? "") { return port }
      }
      guard process.isRunning else { break }
      usleep(20_000)
    }
    throw HarnessError.failed("labeld's web endpoint did not start: \(log)")
  }

  /// Makes a token with `role` through the Unix socket; returns its secret.
  package func token(_ name: String, role: String) throws -> String {
    try client().call(
      "tokens.create", ["name": .string(name), "role": .string(role)], as: TokenCreated.self
    ).secret
  }
}
