import LabelCore
import LabelWire

/// A server-to-client notification (`alert`, `job`, `printer`, `overflow`).
public struct ServerNotification: Sendable {
  public var method: String
  public var params: JSONValue
}

/// The daemon's answer to one request: its result, or the error it answered with.
public typealias Answer = Result<JSONValue, RPCError>

/// A blocking protocol-v1 connection: one request at a time, answered in order;
/// notifications that arrive meanwhile are kept for `nextNotification`. For command-line
/// tools, scripts and tests (labelctl is built on it); apps use `LabeldClient`, whose
/// calls are async and which reconnects.
///
/// Not thread-safe: one thread uses one connection.
public final class BlockingConnection {
  public let socketPath: String
  private let socket: LineSocket
  private var nextID = 1
  private var pending: [ServerNotification] = []
  /// Seconds to wait for one line before `timeout` (nil waits for ever).
  public var timeout: Double? = 60

  public init(socketPath: String) throws(LabelError) {
    self.socketPath = socketPath
    socket = try LineSocket(path: socketPath)
  }

  /// Connects to the first of `socketPaths` where labeld listens
  /// (`SocketPath.clientCandidates`); `socketPath` is then that one.
  public init(socketPaths: [String]) throws(LabelError) {
    socket = try LineSocket.connect(socketPaths)
    socketPath = socket.path
  }

  /// Sends a request and returns the daemon's answer, a result or an error; throws only
  /// when there is no answer (the connection failed, timed out or broke the protocol).
  public func request(_ method: String, _ params: JSONValue = [:]) throws(LabelError) -> Answer {
    let id = nextID
    nextID += 1
    try socket.send(RequestLine.encode(id: id, method: method, params: params))
    while true {
      let message = try readMessage()
      if let notification = ServerNotification(message) {
        pending.append(notification)
        continue
      }
      guard message["id"]?.intValue == id else {
        throw .protocolViolation(
          "an answer for id \(message["id"].map { String(decoding: $0.serialized(), as: UTF8.self) } ?? "none"), expected \(id)"
        )
      }
      return try RequestLine.answer(message)
    }
  }

  /// Calls `method` and returns its result; an error answer is thrown as `LabelError`.
  @discardableResult
  public func call(_ method: String, _ params: JSONValue = [:]) throws(LabelError) -> JSONValue {
    switch try request(method, params) {
    case .success(let result): return result
    case .failure(let error): throw LabelError(error)
    }
  }

  /// Calls `method` and decodes its result.
  public func call<R: Decodable>(_ method: String, _ params: JSONValue = [:], as: R.Type)
    throws(LabelError) -> R
  {
    try RequestLine.decode(R.self, from: try call(method, params))
  }

  /// The notifications that came while answers were awaited, taken out.
  public func takeNotifications() -> [ServerNotification] {
    defer { pending = [] }
    return pending
  }

  /// The next notification, waiting up to `timeout` seconds (default: the connection's;
  /// `.infinity`: for ever).
  public func nextNotification(timeout: Double? = nil) throws(LabelError) -> ServerNotification {
    if !pending.isEmpty { return pending.removeFirst() }
    let wait = timeout ?? self.timeout
    while true {
      let message = try RequestLine.parse(try socket.readLine(timeout: wait))
      if let notification = ServerNotification(message) { return notification }
      throw .protocolViolation("an answer while waiting for a notification")
    }
  }

  // MARK: raw access (tests, tools)

  /// Sends raw bytes as they are (a test can send a malformed or oversized line).
  public func sendRaw(_ bytes: [UInt8]) throws(LabelError) { try socket.send(bytes) }

  public func sendLine(_ bytes: [UInt8]) throws(LabelError) { try socket.send(bytes + [0x0A]) }

  /// Reads the next line and parses it as JSON.
  public func readMessage() throws(LabelError) -> JSONValue {
    try RequestLine.parse(try readLine())
  }

  /// Reads one `\n`-terminated line (without the `\n`).
  public func readLine() throws(LabelError) -> [UInt8] { try socket.readLine(timeout: timeout) }

  /// Every line until the daemon closes the connection.
  public func readUntilClosed() throws(LabelError) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    while true {
      do {
        lines.append(try readLine())
      } catch .connectionLost {
        return lines
      }
    }
  }

  /// The raw descriptor, for tests that need to stop reading or half-close.
  public var fileDescriptor: Int32 { socket.descriptor }
}

extension ServerNotification {
  /// The message as a notification: a `method` and no `id`; nil for an answer.
  init?(_ message: JSONValue) {
    guard let method = message["method"]?.stringValue, message["id"] == nil else { return nil }
    self.init(method: method, params: message["params"] ?? .null)
  }
}

/// Protocol v1's request and answer lines, shared by both connections.
package enum RequestLine {
  /// For the benchmark: a request line as the kit writes it.
  package static func encodeForBench(id: Int, method: String) -> [UInt8] {
    encode(id: id, method: method, params: [:])
  }

  /// `{"jsonrpc":"2.0","id":ID,"method":"METHOD","params":PARAMS}` and its newline,
  /// written out directly (no dictionary to build and sort for every call); empty params
  /// are left out, which the protocol reads as `{}`.
  static func encode(id: Int, method: String, params: JSONValue) -> [UInt8] {
    var line: [UInt8] = []
    line.reserveCapacity(64)
    line += #"{"jsonrpc":"2.0","id":"#.utf8
    line += String(id).utf8
    line += #","method":"#.utf8
    line += JSONValue.string(method).serialized()
    if params != [:] && params != .null {
      line += #","params":"#.utf8
      line += params.serialized()
    }
    line += "}\n".utf8
    return line
  }

  static func parse(_ line: [UInt8]) throws(LabelError) -> JSONValue {
    do {
      return try JSONValue.parse(line)
    } catch {
      throw .protocolViolation("not JSON: \(String(decoding: line.prefix(200), as: UTF8.self))")
    }
  }

  /// An answer message's result or error.
  static func answer(_ message: JSONValue) throws(LabelError) -> Answer {
    if let error = message["error"] {
      guard let e = try? LabelJSON.decode(RPCError.self, from: error) else {
        throw .protocolViolation("a malformed error object")
      }
      return .failure(e)
    }
    return .success(message["result"] ?? .null)
  }

  static func decode<R: Decodable>(_ type: R.Type, from value: JSONValue) throws(LabelError) -> R {
    do {
      return try LabelJSON.decode(R.self, from: value)
    } catch {
      throw .protocolViolation("cannot read \(R.self): \(error)")
    }
  }
}
