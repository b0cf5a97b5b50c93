/// The opening handshake (RFC 6455 §4), both ends: the key and its accept value, a
/// client's request, and the checks a client makes of the answer (§4.1, §4.2.2).
///
/// A client reads one thing of HTTP: the head of the answer to its own request, from the
/// server it chose (and whose certificate it checked). No HTTP library exists on every
/// platform LabelKit builds for that hands a connection over after a 101 (libcurl's
/// WebSocket is compiled out of Debian's, Apple's URLSession keeps the socket), so that
/// head is read here: bounded to `maxResponseHead` bytes, a status line and header lines,
/// nothing folded, nothing after it taken as HTTP. labeld's own HTTP (the server side) is
/// libmicrohttpd's.
package enum WebSocketHandshake {
  /// §1.3: the GUID appended to the key before hashing.
  static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
  /// labeld's subprotocol: protocol v1, one JSON-RPC message per text message.
  package static let subprotocol = "labeld.v1"
  /// The longest answer head a client reads before giving up on it.
  package static let maxResponseHead = 16 * 1024

  /// `Sec-WebSocket-Accept` for `key` (§4.2.2 step 5.4): base64 of SHA-1 of key + GUID.
  package static func accept(key: String) -> String {
    Base64.encode(SHA1.hash(Array((key + guid).utf8)))
  }

  /// Whether `key` is a `Sec-WebSocket-Key`: 16 bytes, base64 (§4.1 step 7).
  package static func isValidKey(_ key: String) -> Bool {
    key.utf8.count == 24 && Base64.decode(key)?.count == 16
  }

  /// A fresh key: 16 random bytes, base64 (§4.1: "randomly selected").
  package static func newKey() -> String {
    var rng = SystemRandomNumberGenerator()
    return Base64.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) })
  }

  /// A client's opening request (§4.1 steps 1–9) for `path` on `host` (with its port when
  /// not the scheme's default), asking for labeld's subprotocol; `headers` are added
  /// (`Authorization`). Header values may not hold line breaks: they are refused.
  package static func request(
    host: String, path: String, key: String, headers: [(String, String)] = []
  ) -> [UInt8]? {
    let all: [(String, String)] =
      [
        ("Host", host), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Protocol", subprotocol),
      ] + headers
    for (name, value) in all + [("", path)] {
      if name.utf8.contains(where: { $0 < 0x21 || $0 == 0x3A || $0 > 0x7E }) && !name.isEmpty {
        return nil
      }
      if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) { return nil }
    }
    guard path.hasPrefix("/"), !path.utf8.contains(0x20) else { return nil }
    var text = "GET \(path) HTTP/1.1\r\n"
    for (name, value) in all { text += "\(name): \(value)\r\n" }
    text += "\r\n"
    return Array(text.utf8)
  }

  /// The head of the server's answer.
  package struct Response: Sendable, Equatable {
    package var status: Int
    package var reason: String
    /// Names in lower case, in the order they came.
    package var headers: [(name: String, value: String)]

    package static func == (a: Response, b: Response) -> Bool {
      a.status == b.status && a.reason == b.reason
        && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
    }

    /// The value of header `name` (any case); several are joined with ", " (RFC 9110 §5.3).
    package func header(_ name: String) -> String? {
      let wanted = name.lowercased()
      let values = headers.filter { $0.name == wanted }.map(\.value)
      return values.isEmpty ? nil : values.joined(separator: ", ")
    }
  }

  package enum Parsed: Sendable, Equatable {
    /// More bytes are needed.
    case incomplete
    /// The head, and how many bytes of the input it took (what follows is frames).
    case response(Response, consumed: Int)
    /// Not an HTTP/1.1 answer, or longer than `maxResponseHead`.
    case invalid(String)
  }

  /// Reads the answer's head from the start of `bytes` (RFC 9112 §2–§5: status line,
  /// header lines, an empty line).
  package static func parseResponse(_ bytes: [UInt8]) -> Parsed {
    guard let end = headEnd(bytes) else {
      return bytes.count > maxResponseHead
        ? .invalid("the handshake's answer is longer than \(maxResponseHead) bytes")
        : .incomplete
    }
    guard end <= maxResponseHead else {
      return .invalid("the handshake's answer is longer than \(maxResponseHead) bytes")
    }
    var lines = bytes[..<end].split(separator: 0x0A, omittingEmptySubsequences: false).map {
      $0.last == 0x0D ? $0.dropLast() : $0
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard let first = lines.first, let statusLine = String(validating: first, as: UTF8.self) else {
      return .invalid("the handshake's answer is not HTTP")
    }
    let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[0] == "HTTP/1.1", parts[1].utf8.count == 3,
      let status = Int(parts[1]), (100...599).contains(status)
    else {
      return .invalid("the handshake's answer is not HTTP/1.1: \(statusLine.prefix(80))")
    }
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex,
        line.first != 0x20, line.first != 0x09,
        let name = String(validating: line[..<colon], as: UTF8.self),
        !name.utf8.contains(where: { $0 <= 0x20 || $0 > 0x7E })
      else {
        return .invalid("the handshake's answer has a malformed header line")
      }
      let value = String(decoding: line[line.index(after: colon)...], as: UTF8.self)
      headers.append((name.lowercased(), value.trimmingSpaces))
    }
    return .response(
      Response(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers),
      consumed: end)
  }

  /// What a 101 answer must say (§4.1, the client's checks 1–6): nil when it says it, else
  /// why not.
  package static func problem(with response: Response, key: String) -> String? {
    guard response.status == 101 else { return "the server answered \(response.status)" }
    guard response.header("upgrade")?.lowercased() == "websocket" else {
      return "the server's answer does not upgrade to websocket"
    }
    guard
      response.header("connection")?.lowercased().split(separator: ",").contains(where: {
        $0.trimmingSpaces == "upgrade"
      }) == true
    else { return "the server's answer has no Connection: Upgrade" }
    guard response.header("sec-websocket-accept")?.trimmingSpaces == accept(key: key) else {
      return "the server's Sec-WebSocket-Accept does not match the key sent"
    }
    if let chosen = response.header("sec-websocket-protocol"), chosen != subprotocol {
      return "the server chose subprotocol \(chosen), not \(subprotocol)"
    }
    if response.header("sec-websocket-extensions") != nil {
      return "the server chose an extension this client did not ask for"
    }
    return nil
  }

  /// The index just past the empty line that ends the head, nil until it has come.
  private static func headEnd(_ bytes: [UInt8]) -> Int? {
    var i = 0
    let limit = min(bytes.count, maxResponseHead + 4)
    while i + 1 < limit {
      if bytes[i] == 0x0A {
        if bytes[i + 1] == 0x0A { return i + 2 }
        if bytes[i + 1] == 0x0D, i + 2 < limit, bytes[i + 2] == 0x0A { return i + 3 }
      }
      i += 1
    }
    return nil
  }
}

extension StringProtocol {
  /// Without spaces and tabs at either end (HTTP's optional whitespace).
  var trimmingSpaces: String {
    var s = Substring(self)
    while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
    while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
    return String(s)
  }
}
