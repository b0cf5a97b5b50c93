import LabelEvents

#if canImport(Glibc)
  import Glibc
#endif

/// The last stage of a connection: messages waiting to be written, in order, sent without
/// ever blocking (the alert channel delivers under its lock), gathered into few `send`s,
/// and the seq of the last alert written whole (where an `overflow` resumes).
package struct Outbox: Sendable {
  private var messages: [OutboundMessage] = []
  private var head = 0
  /// Bytes of `messages[head]` already written.
  private var headOffset = 0
  /// Bytes of the messages queued and not yet written whole.
  package private(set) var bytes = 0
  package private(set) var lastWrittenAlertSeq: UInt64 = 0
  /// Gathering copies lines into one buffer up to this size; a longer one is sent from
  /// where it is.
  private static let gatherBytes = 65_536

  package init() {}

  /// Messages queued and not yet written whole.
  package var count: Int { messages.count - head }

  package mutating func append(_ message: OutboundMessage) {
    messages.append(message)
    bytes += message.bytes.count
  }

  /// The subscription starts after `seq` (nothing written yet resumes from there).
  package mutating func subscribed(after seq: UInt64) { lastWrittenAlertSeq = seq }

  package enum Flushed: Sendable, Equatable {
    /// Everything queued is written.
    case drained
    /// The socket is full: wait for it to be writable.
    case wouldBlock
    /// The peer is gone (EPIPE, ECONNRESET): nothing more can reach it.
    case failed
  }

  /// Writes queued messages through `send` (a non-blocking send: bytes sent, or -1 and the
  /// errno) until the socket would block or the queue is empty. Messages queued together
  /// go out together: up to 64 KiB of them are gathered into one `send`.
  package mutating func flush(_ send: (UnsafeRawBufferPointer) -> (Int, Int32)) -> Flushed {
    var gathered: [UInt8] = []
    while head < messages.count {
      let (n, e): (Int, Int32)
      let first = messages[head].bytes
      if head + 1 == messages.count || first.count - headOffset >= Self.gatherBytes {
        (n, e) = first.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[headOffset...])) }
      } else {
        gathered.removeAll(keepingCapacity: true)
        gathered.append(contentsOf: first[headOffset...])
        var i = head + 1
        while i < messages.count && gathered.count + messages[i].bytes.count <= Self.gatherBytes {
          gathered.append(contentsOf: messages[i].bytes)
          i += 1
        }
        (n, e) = gathered.withUnsafeBytes { send($0) }
      }
      if n >= 0 {
        advance(by: n)
        continue
      }
      if e == EAGAIN || e == EWOULDBLOCK {
        compact()
        return .wouldBlock
      }
      return .failed
    }
    messages.removeAll(keepingCapacity: messages.count < 64)
    head = 0
    bytes = 0
    return .drained
  }

  /// `n` bytes from the head of the queue were written: the messages they complete leave
  /// it.
  private mutating func advance(by n: Int) {
    var left = n
    while left > 0 && head < messages.count {
      let message = messages[head]
      let take = min(left, message.bytes.count - headOffset)
      headOffset += take
      left -= take
      if headOffset == message.bytes.count {
        if let seq = message.alertSeq { lastWrittenAlertSeq = seq }
        head += 1
        headOffset = 0
        bytes -= message.bytes.count
      }
    }
  }

  private mutating func compact() {
    if head > 256 && head * 2 > messages.count {
      messages.removeFirst(head)
      head = 0
    }
  }

  /// The client fell too far behind: drops every message it has not started to receive
  /// (one partly written stays, or the stream would be cut mid-message). Returns how many
  /// were dropped and the seq of the last alert it will have received whole, where it
  /// resumes.
  package mutating func dropUnstarted() -> (dropped: Int, resumeAfter: UInt64) {
    var seq = lastWrittenAlertSeq
    var keep: [OutboundMessage] = []
    if headOffset > 0 {
      let partial = messages[head]
      keep.append(partial)
      if let partialSeq = partial.alertSeq { seq = partialSeq }
    }
    let dropped = count - keep.count
    messages = keep
    head = 0
    bytes = keep.reduce(0) { $0 + $1.bytes.count }
    return (dropped, seq)
  }

  package mutating func removeAll() {
    messages.removeAll()
    head = 0
    headOffset = 0
    bytes = 0
  }
}
