import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

@testable import LabelKitWeb

/// LabelKit over labeld's web endpoint (LabelKitWeb: `LabeldClient(route: .webSocket(…))`),
/// against the built daemon. Through `URLSessionWebSocketTask`, which works on Apple's
/// platforms and, on Linux, only where Foundation's libcurl speaks WebSocket: Debian 12's
/// (7.88) does not, so here the client must fail at once with that reason, typed; where it
/// works the same test checks the calls, an alert, and a revoked token. Run it on macOS
/// (`swift test --filter KitWebSocketTests`) to see the whole path.
@Suite struct KitWebSocketTests {
  /// Whether this Foundation's URLSession opens WebSockets at all.
  static func unsupported(_ error: LabelError) -> Bool {
    if case .unreachable(let u) = error { return u.detail.contains("not supported") }
    return false
  }

  @Test func labelKit_overAWebSocket() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess(DaemonProcess.defaultArguments + ["--listen-http", "127.0.0.1:0"])
      defer { d.stop() }
      let port = try d.webPort()
      let secret = try d.token("kit", role: "operator")
      let url = try #require(URL(string: "ws://127.0.0.1:\(port)/v1/ws"))
      let client = LabeldClient(route: .webSocket(url: url, token: secret))
      #expect(client.socketPath == url.absoluteString)
      let hello: HelloResult
      do {
        hello = try await client.hello(client: "kit-web")
      } catch let error as LabelError {
        // This platform's URLSession has no WebSocket: said at once, typed, naming why.
        #expect(Self.unsupported(error), "\(error)")
        return
      }
      #expect(hello.server == "labeld")
      #expect(try await client.printers().map(\.id).sorted() == ["sim:ql", "sim:zebra"])
      var alerts = client.alerts().makeAsyncIterator()
      try d.client().call("printers.simulate", ["printer": "sim:ql", "fault": "coverOpen"])
      let first = try await alerts.next()
      #expect(first != nil)
      // A wrong token: refused at the handshake, as unreachable with the reason.
      let refused = LabeldClient(route: .webSocket(url: url, token: "ldt_wrong"))
      await #expect(throws: LabelError.self) { try await refused.hello() }
    }
  }

  /// A pin is compared as hex digits, whatever the case and the colons.
  @Test func pins_areNormalized() {
    #expect(WebSocketLink.normalized("C9:69:76:F6") == "c96976f6")
    #expect(WebSocketLink.normalized("c96976f6") == "c96976f6")
  }
}
