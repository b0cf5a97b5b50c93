import LabelKit

/// A connected byte stream to labeld's web endpoint, TLS or plain: what the WebSocket
/// codec runs on. One per platform: `POSIXStream` (a TCP socket, TLS through GnuTLS) on
/// Linux, `NetworkStream` (Network.framework's `NWConnection`) on Apple platforms.
///
/// One reader at a time; `write` is serialised by the link; `shutdown` may come from any
/// thread and wakes a reader, which then sees the end.
protocol ByteStream: AnyObject, Sendable {
  /// Writes all of `bytes`; `.connectionLost` when the connection has failed.
  func write(_ bytes: [UInt8]) throws(LabelError)
  /// What has arrived, waiting up to `timeout` seconds (nil: for ever) for something:
  /// nil when the time passed first, empty at the end of the stream.
  func read(timeout: Double?) throws(LabelError) -> [UInt8]?
  func shutdown()
}

/// Where to connect, from a `ws://` or `wss://` URL (RFC 6455 §3).
struct WebSocketTarget: Sendable, Equatable {
  var secure: Bool
  var host: String
  var port: UInt16
  /// The request target: path and query.
  var resource: String

  /// The Host header's value (§4.1 step 4): the port when it is not the scheme's own,
  /// an IPv6 address in brackets.
  var hostHeader: String {
    let name = host.contains(":") ? "[\(host)]" : host
    return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
  }

  /// Nil with why when `url` is not a WebSocket URL.
  static func parse(scheme: String?, host: String?, port: Int?, path: String, query: String?)
    -> Result<WebSocketTarget, LabelError>
  {
    let secure: Bool
    switch scheme?.lowercased() {
    case "wss": secure = true
    case "ws": secure = false
    default:
      return .failure(
        .transportUnsupported(
          "labeld's web endpoint is a ws:// or wss:// URL, not \(scheme ?? "one without a scheme")")
      )
    }
    guard var host, !host.isEmpty else {
      return .failure(.transportUnsupported("the WebSocket URL names no host"))
    }
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    let chosen = port ?? (secure ? 443 : 80)
    guard let port = UInt16(exactly: chosen), port > 0 else {
      return .failure(.transportUnsupported("the WebSocket URL's port \(chosen) is not a port"))
    }
    let resource = (path.isEmpty ? "/" : path) + (query.map { "?\($0)" } ?? "")
    return .success(WebSocketTarget(secure: secure, host: host, port: port, resource: resource))
  }
}

/// Seconds on a monotonic clock, for deadlines.
enum Clock {
  private static let origin = ContinuousClock.now

  static var now: Double {
    let (seconds, attoseconds) = (ContinuousClock.now - origin).components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
