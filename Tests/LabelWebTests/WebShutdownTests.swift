import Dispatch
import Foundation
import LabelPOSIX
import LabelServer
import LabelStore
import LabelTestKit
import Synchronization
import Testing

@testable import LabelWeb

/// Stopping the endpoint while an answer is still being made: libmicrohttpd aborts the
/// process if it is stopped with a request left suspended ("MHD_stop_daemon() called while
/// we have suspended connections", seen here before the fix), so what is still waiting is
/// answered 503 first (the library may close the connection before it goes out), and the
/// answer made later changes nothing.
@Suite struct WebShutdownTests {
  @Test func aMetricsAnswerStillBeingMade_atStop_isEnded_andNothingTraps() throws {
    let stack = try TestStack()
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("s.sock").path
    let server = try Server(
      listenFD: try UnixSocket.listen(path: path), ownedPath: path,
      dispatcher: stack.dispatcher, channel: stack.channel, limits: ConnectionLimits(),
      log: stack.log)
    try server.start()
    var settings = WebSettings()
    settings.listen = [.tcp(host: "127.0.0.1", port: 0)]
    // An answer that takes long (it need not even start: the request waits from the moment
    // it is read, on libmicrohttpd's thread, whatever the cooperative pool is doing).
    let web = WebEndpoint(
      settings: settings, server: server, tokens: WebTokens(store: TokenStore(store: stack.store)),
      metrics: {
        try? await Task.sleep(for: .seconds(30))
        return Array("late\n".utf8)
      }, log: stack.log)
    try web.start()
    let port = try #require(
      web.boundAddresses.first.flatMap { Int($0.split(separator: ":").last ?? "") })
    let answer = Mutex<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      let head = try? WebSocketClient.exchange(
        port: port, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
      ).head
      answer.withLock { $0 = head }
      done.signal()
    }
    try poll("the request waits for its answer", timeout: 30) { web.answersInProgress == 1 }
    server.stop()
    web.stop()
    #expect(done.wait(timeout: .now() + 30) == .success)
    let head = answer.withLock { $0 } ?? ""
    #expect(head.isEmpty || WebSocketClient.status(head) == 503, "\(head)")
  }
}
