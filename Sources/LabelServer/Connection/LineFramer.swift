import LabelCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Protocol v1's framing on the Unix socket: one JSON message per line, ended by `\n`
/// (protocol-v1 §2). A line longer than `maxMessageBytes` is refused with -32600
/// (`messageTooLarge`, naming the limit) as soon as it is known to be, without waiting for
/// its end.
package struct LineFramer: Framer {
  private let maxMessageBytes: Int
  private var buffer: [UInt8] = []
  /// How much of `buffer` has been searched for a newline already: a long line read in
  /// many chunks costs its length once, not once per chunk.
  private var scanned = 0
  private var ended = false

  package init(maxMessageBytes: Int) {
    self.maxMessageBytes = maxMessageBytes
  }

  package var partialBytes: Int { buffer.count }

  package mutating func take(_ bytes: UnsafeRawBufferPointer, into inbound: inout [Inbound])
    -> Framed
  {
    guard !ended else { return Framed(discarded: bytes.count) }
    buffer.append(contentsOf: bytes)
    var start = 0
    var from = min(scanned, buffer.count)
    scanned = buffer.count
    while let nl = newline(from: from) {
      from = nl + 1
      if nl - start > maxMessageBytes { return refuse(from: start, into: &inbound) }
      inbound.append(.message(Array(buffer[start..<nl]), wireBytes: nl - start + 1))
      start = nl + 1
    }
    if start > 0 {
      buffer.removeFirst(start)
      scanned = buffer.count
    }
    if buffer.count > maxMessageBytes { return refuse(from: 0, into: &inbound) }
    return Framed()
  }

  /// The index of the first `\n` in `buffer` at or after `from`, found with the C
  /// library's `memchr` (vectorised: a request of 100 KB and more is searched in a few
  /// microseconds, where a loop over its bytes showed in profiles).
  private func newline(from: Int) -> Int? {
    buffer.withUnsafeBufferPointer { b -> Int? in
      guard from < b.count, let base = b.baseAddress,
        let found = memchr(base + from, 0x0A, b.count - from)
      else { return nil }
      return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }
  }

  /// The line starting at `start` is too long: it and everything after it are dropped.
  private mutating func refuse(from start: Int, into inbound: inout [Inbound]) -> Framed {
    inbound.append(.refused(.messageTooLarge(limitBytes: maxMessageBytes)))
    let dropped = buffer.count - start
    buffer = []
    scanned = 0
    ended = true
    return Framed(discarded: dropped, ended: true)
  }

  package mutating func dropPartial() -> Int {
    defer {
      buffer = []
      scanned = 0
    }
    return buffer.count
  }

  package func outbound(_ line: [UInt8]) -> [UInt8] { line }
}
