import LabelKit
import LabelWebSocket
import Synchronization

/// One WebSocket to labeld as a `MessageLink`: each text message one protocol message,
/// over a `ByteStream`, read and written by the codec labeld uses too (`LabelWebSocket`,
/// client role). The same on every platform but the stream.
///
/// The reader answers pings and the server's close; a write failure or the server's
/// close ends the link, and the reader then says why, typed: a close for a revoked token
/// (1008) is `.unauthorized`, a protocol failure (1002, 1007) `.protocolViolation`, any
/// other end `.connectionLost`, which a stream retries.
final class WebSocketLink: MessageLink, @unchecked Sendable {
  /// A message from labeld may be long (a page of products, a rendered label) but not
  /// without bound: the same limit as the socket's lines.
  static let maxMessageBytes = 64 << 20
  /// How long connecting and the opening handshake may take.
  static let openTimeout = 30.0

  private let stream: any ByteStream
  private let sendLock = Mutex(())
  /// Read state, touched by the one reader only.
  private var reader = WebSocketReader(role: .client, maxMessageBytes: maxMessageBytes)
  private var pending: [[UInt8]] = []
  /// Why the link ended (from the reader's side), once it has.
  private var ended: LabelError?

  /// Opens `target` and runs the opening handshake (RFC 6455 §4.1) with `token`; throws,
  /// typed, when labeld cannot be reached (`.unreachable`: retried by streams), refuses the
  /// token (`.unauthorized`), fails the pin (`.certificateRejected`, before the token is
  /// sent) or does not answer as a WebSocket server (`.protocolViolation`).
  init(stream: any ByteStream, target: WebSocketTarget, token: String) throws(LabelError) {
    self.stream = stream
    let key = WebSocketHandshake.newKey()
    guard
      let request = WebSocketHandshake.request(
        host: target.hostHeader, path: target.resource, key: key,
        headers: [("Authorization", "Bearer \(token)")])
    else {
      stream.shutdown()
      throw .transportUnsupported(
        "the WebSocket URL's path or the token holds characters a request cannot carry")
    }
    do {
      try stream.write(request)
      let leftover = try Self.readHead(stream, key: key, target: target)
      if !leftover.isEmpty { try take(leftover) }
    } catch {
      stream.shutdown()
      throw error
    }
  }

  deinit { stream.shutdown() }

  /// Reads the handshake's answer; returns the bytes after its head (frames already).
  private static func readHead(_ stream: any ByteStream, key: String, target: WebSocketTarget)
    throws(LabelError) -> [UInt8]
  {
    let remote = "\(target.secure ? "wss" : "ws")://\(target.hostHeader)\(target.resource)"
    var head: [UInt8] = []
    let deadline = Clock.now + openTimeout
    while true {
      switch WebSocketHandshake.parseResponse(head) {
      case .invalid(let why):
        throw .protocolViolation("\(remote): \(why)")
      case .response(let response, let consumed):
        try check(response, key: key, remote: remote)
        return Array(head[consumed...])
      case .incomplete:
        let left = deadline - Clock.now
        guard left > 0, let more = try stream.read(timeout: left) else {
          throw .unreachable(
            Unreachable(
              remote: remote,
              detail: "no answer to the WebSocket handshake within \(Int(openTimeout)) s"))
        }
        guard !more.isEmpty else {
          throw .unreachable(
            Unreachable(remote: remote, detail: "the connection closed during the handshake"))
        }
        head += more
      }
    }
  }

  /// What the answer's status means: 101 checked (§4.1), 401/403 a token labeld does not
  /// take, 408, 429 and 5xx a labeld that may answer later, anything else a URL that is
  /// not labeld's.
  private static func check(_ response: WebSocketHandshake.Response, key: String, remote: String)
    throws(LabelError)
  {
    switch response.status {
    case 101:
      if let problem = WebSocketHandshake.problem(with: response, key: key) {
        throw .protocolViolation("\(remote): \(problem)")
      }
    case 401:
      throw .unauthorized(
        "labeld refused the token (401): it is unknown or was revoked; make one with "
          + "'labelctl tokens create'")
    case 403:
      throw .unauthorized("labeld refused this client (403): \(response.reason)")
    case 408, 429, 500...599:
      throw .unreachable(
        Unreachable(remote: remote, detail: "labeld answered \(response.status) \(response.reason)")
      )
    default:
      throw .protocolViolation(
        "\(remote) answered the WebSocket handshake with \(response.status) \(response.reason): "
          + "is this labeld's web endpoint (…/v1/ws)?")
    }
  }

  func send(_ line: [UInt8]) throws(LabelError) {
    let end = line.last == 0x0A ? line.count - 1 : line.count
    var rng = SystemRandomNumberGenerator()
    let frame = WebSocketFrame.encode(
      opcode: WebSocketOpcode.text, line[..<end], mask: rng.next())
    try write(frame)
  }

  private func write(_ bytes: [UInt8]) throws(LabelError) {
    let result: Result<Void, LabelError> = sendLock.withLock { _ in
      Result { () throws(LabelError) in try stream.write(bytes) }
    }
    try result.get()
  }

  func readLines(timeout: Double?) throws(LabelError) -> [[UInt8]] {
    let deadline = timeout.flatMap { $0.isFinite ? Clock.now + $0 : nil }
    while pending.isEmpty {
      if let ended { throw ended }
      let left = deadline.map { max(0, $0 - Clock.now) }
      if let left, left <= 0 { throw .timeout }
      guard let bytes = try readStream(timeout: left) else { throw .timeout }
      try take(bytes)
    }
    defer { pending = [] }
    return pending
  }

  func readAvailable(waiting: Duration) throws(LabelError) -> [[UInt8]] {
    if pending.isEmpty {
      if let ended { throw ended }
      let (seconds, attoseconds) = waiting.components
      let wait = Double(min(seconds, 86_400)) + Double(attoseconds) / 1e18
      if let bytes = try readStream(timeout: max(wait, 0.001)) { try take(bytes) }
    }
    if pending.isEmpty, let ended { throw ended }
    defer { pending = [] }
    return pending
  }

  func shutdown() { stream.shutdown() }

  /// One read; the end of the stream ends the link.
  private func readStream(timeout: Double?) throws(LabelError) -> [UInt8]? {
    do {
      let bytes = try stream.read(timeout: timeout)
      if bytes?.isEmpty == true { end(.connectionLost) }
      return bytes
    } catch {
      end(error)
      return []
    }
  }

  /// Runs what arrived through the codec: messages to `pending`, pings answered, the
  /// server's close echoed (§5.5.1) and the link ended with its meaning.
  private func take(_ bytes: [UInt8]) throws(LabelError) {
    guard ended == nil, !bytes.isEmpty else { return }
    var events: [WebSocketEvent] = []
    _ = reader.take(bytes, into: &events)
    for event in events {
      switch event {
      case .text(let payload, _):
        pending.append(payload)
      case .ping(let payload, _):
        var rng = SystemRandomNumberGenerator()
        try? write(WebSocketFrame.encode(opcode: WebSocketOpcode.pong, payload, mask: rng.next()))
      case .pong:
        break
      case .close(let code, let reason, _):
        var rng = SystemRandomNumberGenerator()
        try? write(WebSocketFrame.close(code: code, mask: rng.next()))
        stream.shutdown()
        end(Self.meaning(ofClose: code, reason: reason))
      case .failed(let failure, _):
        // §7.1.7: the client fails the connection too, with the code, and reads no more.
        var rng = SystemRandomNumberGenerator()
        try? write(WebSocketFrame.close(code: failure.code, mask: rng.next()))
        stream.shutdown()
        end(.protocolViolation("labeld's WebSocket broke RFC 6455: \(failure)"))
      }
    }
  }

  private func end(_ error: LabelError) {
    if ended == nil { ended = error }
  }

  /// What the server's close code says to the app (RFC 6455 §7.4.1).
  static func meaning(ofClose code: UInt16?, reason: String) -> LabelError {
    let said = reason.isEmpty ? "" : ": \(reason)"
    switch code {
    case WebSocketCloseCode.policyViolation:
      return .unauthorized("labeld closed the connection (1008)\(said)")
    case WebSocketCloseCode.protocolError, WebSocketCloseCode.invalidPayload,
      WebSocketCloseCode.unsupportedData:
      return .protocolViolation("labeld closed the connection (\(code ?? 0))\(said)")
    default:
      return .connectionLost
    }
  }
}
