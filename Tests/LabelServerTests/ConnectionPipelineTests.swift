import Dispatch
import LabelCore
import LabelEvents
import LabelLog
import LabelPOSIX
import Testing

@testable import LabelServer

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A connection's framing is one replaceable stage: the same budget, inbox and outbox
/// serve a second framing, here a 2-byte length before each message (as a WebSocket's
/// frames will), over a real socket pair and the real event loop.
@Suite struct ConnectionPipelineTests {
  /// Each message is its length (2 bytes, big-endian) and its bytes.
  struct LengthPrefixFramer: Framer {
    private var buffer: [UInt8] = []
    var partialBytes: Int { buffer.count }

    mutating func take(_ bytes: UnsafeRawBufferPointer, into inbound: inout [Inbound]) -> Framed {
      buffer.append(contentsOf: bytes)
      var start = 0
      while buffer.count - start >= 2 {
        let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
        guard buffer.count - start - 2 >= length else { break }
        inbound.append(
          .message(Array(buffer[(start + 2)..<(start + 2 + length)]), wireBytes: length + 2))
        start += 2 + length
      }
      buffer.removeFirst(start)
      return Framed()
    }

    mutating func dropPartial() -> Int {
      defer { buffer = [] }
      return buffer.count
    }

    func outbound(_ line: [UInt8]) -> [UInt8] {
      let message = line.last == 0x0A ? line.dropLast() : line[...]
      return Self.frame(Array(message))
    }

    static func frame(_ message: [UInt8]) -> [UInt8] {
      [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }
  }

  /// The client's end of a socket pair whose other end is served by a `Connection`.
  final class Pair: Sendable {
    let client: Int32
    let connection: Connection
    let loop: EventLoop

    init(framer: any Framer) throws {
      var fds: [Int32] = [0, 0]
      #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
      client = fds[0]
      // A read that never comes fails the test instead of hanging it.
      var timeout = timeval(tv_sec: 60, tv_usec: 0)
      let size = socklen_t(MemoryLayout<timeval>.size)
      setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
      try UnixSocket.setNonBlocking(fds[1])
      loop = try EventLoop()
      try loop.start()
      connection = Connection(
        id: 1, fd: fds[1], caller: Caller(peer: PeerCredentials(pid: 0, uid: 0, gid: 0)),
        framer: framer,
        limits: ConnectionLimits(), loop: loop,
        log: Logger(level: .error, sink: MemorySink()),
        budget: ReadAheadBudget(total: 1 << 20),
        handler: { message, _ in Pair.answer(message) },
        // Answered on the loop's thread: no task, so the suite's other tests cannot keep
        // these waiting for a cooperative thread (a blocked test holds one).
        immediate: { message, _ in .answered(Pair.answer(message)) },
        onClose: { _ in }, onReplayDrained: { _ in })
      connection.start()
    }

    func write(_ bytes: [UInt8]) {
      let written = bytes.withUnsafeBytes { Glibc.write(client, $0.baseAddress, $0.count) }
      #expect(written == bytes.count)
    }

    static func answer(_ message: [UInt8]) -> [UInt8] { Array("ok:".utf8) + message + [0x0A] }

    /// Reads exactly `count` bytes (or fewer if the connection closes or, after a minute,
    /// nothing came).
    func read(_ count: Int) -> [UInt8] {
      var out: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 4096)
      while out.count < count {
        let wanted = min(chunk.count, count - out.count)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(client, $0.baseAddress, wanted) }
        guard n > 0 else { break }
        out.append(contentsOf: chunk[..<n])
      }
      return out
    }

    deinit {
      connection.close()
      loop.stop()
      Glibc.close(client)
    }
  }

  @Test func aSecondFraming_carriesRequestsAnswersAndNotifications() throws {
    let pair = try Pair(framer: LengthPrefixFramer())
    let frame = LengthPrefixFramer.frame
    // Three in one write, then one cut in the middle of its length and of its bytes.
    pair.write(frame(Array("a".utf8)) + frame(Array("bb".utf8)) + frame(Array("ccc".utf8)))
    let fourth = frame(Array(repeating: 0x64, count: 300))
    pair.write(Array(fourth[..<1]))
    pair.write(Array(fourth[1..<100]))
    pair.write(Array(fourth[100...]))
    let expected = ["a", "bb", "ccc", String(repeating: "d", count: 300)].map {
      frame(Array("ok:\($0)".utf8))
    }
    #expect(pair.read(expected.joined().count) == Array(expected.joined()), "in order")
    pair.connection.deliver(
      OutboundMessage(bytes: Array("{\"n\":1}\n".utf8), kind: .notification, alertSeq: 1))
    #expect(pair.read(9) == frame(Array("{\"n\":1}".utf8)))
  }

  /// (A line over the limit, refused with -32600 before the connection closes, is
  /// FramingTests' against the daemon: the refusal is answered from a task.)
  @Test func theLineFraming_answersPipelinedLinesInOrder() throws {
    let pair = try Pair(framer: LineFramer(maxMessageBytes: 1000))
    // Fewer than the 32 answered on the loop's thread in a row (the rest go to a task).
    let lines = (0..<30).map { String(repeating: "x", count: $0 % 7) + "\($0)" }
    pair.write(Array(lines.map { $0 + "\n" }.joined().utf8))
    let answers = Array(lines.map { "ok:\($0)\n" }.joined().utf8)
    #expect(pair.read(answers.count) == answers)
  }

  /// An overflowed subscriber is told where to resume, closed, and marked for the server's
  /// count (`labeld_clients_overflowed_total`).
  @Test func anOverflow_isSent_andMarked() throws {
    let pair = try Pair(framer: LineFramer(maxMessageBytes: 1000))
    #expect(!pair.connection.overflowed)
    pair.connection.overflowNow()
    #expect(pair.connection.overflowed)
    // Up to the close (the read ends there, long before 4096 bytes).
    let said = String(decoding: pair.read(4096), as: UTF8.self)
    #expect(said.contains(#""method":"overflow""#), "\(said)")
  }
}
