import LabelEvents
import Testing

@testable import LabelServer

#if canImport(Glibc)
  import Glibc
#endif

/// The writer stage: messages leave whole and in order however little the socket takes,
/// an alert counts as written only once its last byte is, and an overflow keeps the one
/// message already begun.
struct OutboxTests {
  /// A socket that takes at most `take` bytes a call and is full after `calls` calls.
  private struct Socket {
    var take: Int
    var calls: Int
    var written: [UInt8] = []
    var error: Int32 = EAGAIN

    mutating func send(_ bytes: UnsafeRawBufferPointer) -> (Int, Int32) {
      guard calls > 0 else { return (-1, error) }
      calls -= 1
      let n = min(take, bytes.count)
      written.append(contentsOf: bytes[..<n])
      return (n, 0)
    }
  }

  private func flush(_ outbox: inout Outbox, _ socket: inout Socket) -> Outbox.Flushed {
    outbox.flush { socket.send($0) }
  }

  private func alert(_ seq: UInt64, size: Int = 10) -> OutboundMessage {
    OutboundMessage(
      bytes: Array(repeating: UInt8(0x30 + seq % 10), count: size - 1) + [0x0A],
      kind: .notification, alertSeq: seq)
  }

  @Test func messagesLeaveInOrder_throughShortWritesAndAFullSocket() {
    var outbox = Outbox()
    let messages = (1...50).map { alert(UInt64($0), size: 7 + $0 % 13) }
    for m in messages { outbox.append(m) }
    #expect(outbox.count == 50)
    #expect(outbox.bytes == messages.reduce(0) { $0 + $1.bytes.count })
    var socket = Socket(take: 33, calls: 4)
    #expect(flush(&outbox, &socket) == .wouldBlock)
    #expect(socket.written.count == 132)
    // Alerts wholly written count; the one cut at byte 132 does not, and its bytes count
    // as queued until it is written whole.
    var whole = 0
    var seq: UInt64 = 0
    for m in messages {
      guard whole + m.bytes.count <= 132 else { break }
      whole += m.bytes.count
      seq = m.alertSeq!
    }
    #expect(outbox.lastWrittenAlertSeq == seq)
    #expect(outbox.bytes == messages.reduce(0) { $0 + $1.bytes.count } - whole)
    socket.calls = .max
    #expect(flush(&outbox, &socket) == .drained)
    #expect(socket.written == messages.flatMap(\.bytes))
    #expect(outbox.count == 0 && outbox.bytes == 0)
    #expect(outbox.lastWrittenAlertSeq == 50)
  }

  @Test func messagesQueuedTogether_areGatheredIntoFewSends() {
    var outbox = Outbox()
    for seq in 1...1000 { outbox.append(alert(UInt64(seq), size: 100)) }
    var socket = Socket(take: .max, calls: .max)
    #expect(flush(&outbox, &socket) == .drained)
    #expect(socket.written.count == 100_000)
    #expect(Int.max - socket.calls == 2, "64 KiB at a time: 655 messages, then the rest")
  }

  @Test func aGonePeer_failsTheFlush() {
    var outbox = Outbox()
    outbox.append(alert(1))
    var socket = Socket(take: .max, calls: 0, error: EPIPE)
    #expect(flush(&outbox, &socket) == .failed)
  }

  @Test func overflow_dropsWhatHasNotStarted_keepsTheMessageBegun() {
    var outbox = Outbox()
    outbox.subscribed(after: 7)
    for seq in 8...20 { outbox.append(alert(UInt64(seq))) }
    var socket = Socket(take: 25, calls: 1)
    #expect(flush(&outbox, &socket) == .wouldBlock)
    // 8 and 9 written whole, 10 half-way.
    #expect(outbox.lastWrittenAlertSeq == 9)
    let (dropped, resume) = outbox.dropUnstarted()
    #expect(dropped == 10)
    #expect(resume == 10, "the message begun will arrive whole")
    #expect(outbox.count == 1)
    socket.calls = .max
    #expect(flush(&outbox, &socket) == .drained)
    #expect(socket.written == (8...10).flatMap { alert(UInt64($0)).bytes })
  }

  @Test func overflowBeforeAnyAlert_resumesFromTheSubscription() {
    var outbox = Outbox()
    outbox.subscribed(after: 41)
    outbox.append(alert(42))
    #expect(outbox.dropUnstarted() == (1, 41))
    #expect(outbox.count == 0 && outbox.bytes == 0)
  }
}
