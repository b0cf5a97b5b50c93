import Foundation
import LabelKit

extension LabeldRoute {
  /// labeld's web endpoint (`labeld --listen-http`): protocol v1 over a WebSocket at
  /// `url` (`wss://labels.local:8443/v1/ws`), signed in with `token` (`labelctl tokens
  /// create`). With `pinnedSHA256` (the fingerprint labeld logs for its certificate, hex,
  /// colons allowed), the server's certificate must be that one, whatever signed it; it is
  /// checked during the TLS handshake, before the token is sent. Without it the system's
  /// trust and the host name decide.
  ///
  /// The same on every platform: RFC 6455 by LabelKit's own codec (the one labeld uses)
  /// over a TCP connection: GnuTLS on Linux, Network.framework on Apple platforms. A
  /// route that can never work (not ws:// or wss://, a pin over ws:// or one that is not
  /// a SHA-256) fails every call with `.transportUnsupported`.
  public static func webSocket(url: URL, token: String, pinnedSHA256: String? = nil)
    -> LabeldRoute
  {
    let target = WebSocketTarget.parse(
      scheme: url.scheme, host: url.host, port: url.port,
      path: url.path(percentEncoded: true), query: url.query(percentEncoded: true))
    let pin: Result<[UInt8]?, LabelError> =
      switch pinnedSHA256 {
      case nil: .success(nil)
      case let text?:
        PinCheck.parse(text).map { .success($0) }
          ?? .failure(
            .transportUnsupported(
              "the pin \(text) is not a SHA-256 fingerprint (64 hex digits, colons allowed)"))
      }
    return LabeldRoute(description: url.absoluteString) { () throws(LabelError) in
      let target = try target.get()
      let pin = try pin.get()
      if pin != nil && !target.secure {
        throw .transportUnsupported("a pinned certificate needs a wss:// URL, not ws://")
      }
      let stream = try openStream(target, pin: pin)
      return try WebSocketLink(stream: stream, target: target, token: token)
    }
  }

  private static func openStream(_ target: WebSocketTarget, pin: [UInt8]?) throws(LabelError)
    -> any ByteStream
  {
    #if canImport(Network)
      try NetworkStream(target, pin: pin, timeout: WebSocketLink.openTimeout)
    #else
      try POSIXStream(target, pin: pin, timeout: WebSocketLink.openTimeout)
    #endif
  }
}
