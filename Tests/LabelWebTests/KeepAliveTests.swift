import Dispatch
import LabelLog
import LabelPOSIX
import LabelServer
import LabelTestKit
import Testing

@testable import LabelWeb

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The WebSocket keep-alive through a real connection of the pipeline (a socketpair, the
/// daemon's event loop): a quiet client is pinged; one that answers stays; one that never
/// does is closed at the next ping.
@Suite struct KeepAliveTests {
  private final class Peer {
    let client: Int32
    let loop: EventLoop
    let connection: Connection
    let closed = DispatchSemaphore(value: 0)

    init() throws {
      var fds: [Int32] = [0, 0]
      guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
        throw HarnessError.failed("socketpair: \(errno)")
      }
      client = fds[0]
      var timeout = timeval(tv_sec: 10, tv_usec: 0)
      setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      try UnixSocket.setNonBlocking(fds[1])
      loop = try EventLoop()
      try loop.start()
      var limits = ConnectionLimits()
      limits.keepAliveSeconds = 0.2
      let closed = self.closed
      connection = Connection(
        id: 1, fd: fds[1], caller: Caller(token: "t", role: .viewer),
        framer: WebSocketFramer(maxMessageBytes: 1 << 20), limits: limits, loop: loop,
        log: Logger(level: .error, sink: MemorySink()), budget: ReadAheadBudget(total: 1 << 20),
        handler: { _, _ in nil }, onClose: { _ in closed.signal() }, onReplayDrained: { _ in })
      connection.start()
    }

    deinit {
      connection.close()
      loop.stop()
      close(client)
    }

    /// The next two bytes the connection sent (a ping with no payload is two), or nil.
    func readFrameHead() -> [UInt8]? {
      var head = [UInt8](repeating: 0, count: 2)
      return read(client, &head, 2) == 2 ? head : nil
    }
  }

  @Test func aQuietClientThatAnswers_staysOpen() throws {
    let peer = try Peer()
    for _ in 0..<4 {
      #expect(peer.readFrameHead() == [0x89, 0x00])
      let pong = WebSocketClient.frame(opcode: 0xA, [])
      _ = pong.withUnsafeBytes { write(peer.client, $0.baseAddress, $0.count) }
    }
    #expect(!peer.connection.isClosed)
  }

  @Test func aClientThatNeverAnswers_isClosedAtTheNextPing() throws {
    let peer = try Peer()
    #expect(peer.readFrameHead() == [0x89, 0x00])
    #expect(peer.closed.wait(timeout: .now() + 10) == .success)
    #expect(peer.connection.isClosed)
    var byte: UInt8 = 0
    #expect(read(peer.client, &byte, 1) == 0)
  }
}
