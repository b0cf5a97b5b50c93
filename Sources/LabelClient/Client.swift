import FoundationEssentials
import LabelCore
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Why a call did not produce a result.
public enum ClientError: Error, Sendable, CustomStringConvertible {
  /// The daemon is not there (no socket, nothing listening, no permission).
  case unreachable(path: String, SystemError)
  /// The daemon answered with an error.
  case rpc(RPCError)
  /// The daemon closed the connection.
  case closed
  /// Nothing arrived in time.
  case timeout
  /// The daemon sent something that is not protocol v1.
  case protocolViolation(String)

  public var description: String {
    switch self {
    case .unreachable(let path, let e): return "cannot reach labeld at \(path): \(e)"
    case .rpc(let e): return "\(e.message) (error \(e.code))"
    case .closed: return "labeld closed the connection"
    case .timeout: return "labeld did not answer in time"
    case .protocolViolation(let d): return "unexpected reply from labeld: \(d)"
    }
  }
}

/// A server-to-client notification.
public struct Notification: Sendable {
  public var method: String
  public var params: JSONValue
}

/// A blocking protocol-v1 client over one connection: requests are answered in order;
/// notifications that arrive meanwhile are kept for `nextNotification`.
///
/// Not thread-safe: one thread uses one client (labelctl, one test task).
public final class LabelClient {
  public let socketPath: String
  private let fd: Int32
  /// Bytes read and not yet returned start at `head`; up to `scanned` there is no `\n`.
  /// Lines are taken by moving `head` (the consumed front is dropped once it is half the
  /// buffer), and each byte is searched once: a 10,000-line replay or a 4 MiB page costs
  /// what it is long, not its square.
  private var buffer: [UInt8] = []
  private var head = 0
  private var scanned = 0
  /// What each read reads into (one per client, not one per read).
  private var chunk = [UInt8](repeating: 0, count: 65536)
  private var nextID = 1
  private var pending: [Notification] = []
  /// Seconds to wait for one line before `timeout` (nil waits forever).
  public var timeout: Double? = 60

  public init(socketPath: String) throws(ClientError) {
    self.socketPath = socketPath
    do {
      fd = try UnixSocket.connect(path: socketPath)
    } catch {
      throw .unreachable(path: socketPath, error)
    }
  }

  deinit { Glibc.close(fd) }

  /// Calls `method` and returns its result.
  @discardableResult
  public func call(_ method: String, _ params: JSONValue = [:]) throws(ClientError) -> JSONValue {
    let id = nextID
    nextID += 1
    let request: JSONValue = [
      "jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params,
    ]
    try sendLine(encode(request))
    while true {
      let message = try readMessage()
      if message["method"] != nil && message["id"] == nil {
        pending.append(Self.notification(message))
        continue
      }
      guard message["id"] == .int(id) else {
        throw .protocolViolation(
          "response for id \(String(describing: message["id"])), expected \(id)")
      }
      if let error = message["error"] {
        guard let e = try? LabelJSON.decode(RPCError.self, from: error) else {
          throw .protocolViolation("malformed error object")
        }
        throw .rpc(e)
      }
      return message["result"] ?? .null
    }
  }

  /// Calls `method` and decodes its result.
  public func call<R: Decodable>(_ method: String, _ params: JSONValue = [:], as: R.Type)
    throws(ClientError) -> R
  {
    let result = try call(method, params)
    do {
      return try LabelJSON.decode(R.self, from: result)
    } catch {
      throw .protocolViolation("cannot read \(R.self): \(error)")
    }
  }

  /// The next notification, waiting up to `timeout` seconds for one.
  public func nextNotification(timeout: Double? = nil) throws(ClientError) -> Notification {
    if !pending.isEmpty { return pending.removeFirst() }
    let saved = self.timeout
    if let timeout { self.timeout = timeout }
    defer { self.timeout = saved }
    while true {
      let message = try readMessage()
      if message["method"] != nil && message["id"] == nil { return Self.notification(message) }
      throw .protocolViolation("unexpected response while waiting for a notification")
    }
  }

  // MARK: raw access (tests, tools)

  /// Sends raw bytes as they are (a test can send a malformed or oversized line).
  public func sendRaw(_ bytes: [UInt8]) throws(ClientError) {
    var offset = 0
    while offset < bytes.count {
      let (n, _) = retryingEINTR {
        bytes.withUnsafeBytes {
          Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
        }
      }
      if n < 0 { throw .closed }
      offset += n
    }
  }

  public func sendLine(_ bytes: [UInt8]) throws(ClientError) {
    try sendRaw(bytes + [0x0A])
  }

  /// Reads the next line and parses it as JSON.
  public func readMessage() throws(ClientError) -> JSONValue {
    let line = try readLine()
    do {
      return try JSONValue.parse(line)
    } catch {
      throw .protocolViolation("not JSON: \(String(decoding: line, as: UTF8.self))")
    }
  }

  /// Reads one `\n`-terminated line (without the `\n`).
  public func readLine() throws(ClientError) -> [UInt8] {
    while true {
      if let nl = buffer[max(head, scanned)...].firstIndex(of: 0x0A) {
        let line = Array(buffer[head..<nl])
        head = nl + 1
        scanned = head
        if head == buffer.count {
          buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
          head = 0
          scanned = 0
        }
        return line
      }
      scanned = buffer.count
      if head > 0 && head * 2 >= buffer.count {
        buffer.removeFirst(head)
        scanned -= head
        head = 0
      }
      try fill()
    }
  }

  /// Whether the daemon has closed the connection (reads what is left first).
  public func readUntilClosed() throws(ClientError) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    while true {
      do {
        lines.append(try readLine())
      } catch .closed {
        return lines
      }
    }
  }

  private func fill() throws(ClientError) {
    if let timeout {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let r = poll(&p, 1, Int32(timeout * 1000))
      if r == 0 { throw .timeout }
    }
    while true {
      let (n, _) = retryingEINTR {
        chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      }
      if n > 0 {
        buffer.append(contentsOf: chunk[0..<n])
        return
      }
      throw .closed
    }
  }

  private func encode(_ value: JSONValue) throws(ClientError) -> [UInt8] {
    value.serialized()
  }

  private static func notification(_ message: JSONValue) -> Notification {
    Notification(method: message["method"]?.stringValue ?? "", params: message["params"] ?? .null)
  }

  /// The raw descriptor, for tests that need to stop reading or half-close.
  public var fileDescriptor: Int32 { fd }
}
