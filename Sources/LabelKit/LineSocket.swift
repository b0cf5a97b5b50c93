import Synchronization

/// One connection to labeld's socket: protocol v1's framing (one JSON message per `\n`
/// terminated line) over a stream socket. The one owner of its descriptor.
///
/// Reading is for one reader at a time (the thread of a blocking client, or a stream's
/// lane); sending is serialised by a lock, so a reader thread and callers may share one
/// socket. `shutdown()` may be called from anywhere and wakes a blocked reader.
final class LineSocket: @unchecked Sendable {
  let path: String
  private let fd: Int32
  private let sendLock = Mutex(())
  private let closed = Atomic<Bool>(false)
  /// Read state, touched by the one reader only.
  private var buffer = LineBuffer()
  private var chunk = [UInt8](repeating: 0, count: 65536)
  /// The receive timeout set on the socket (nil: none), so a read waits in one call.
  private var receiveTimeout: Double?

  /// Connects to `path`; a failure says why in words (not running, no permission: whose).
  init(path: String) throws(LabelError) {
    self.path = path
    do {
      fd = try OS.connectUnix(path)
    } catch {
      throw .unreachable(
        Unreachable(path: path, errno: error.errno, detail: OS.describe(error.errno)))
    }
  }

  deinit { OS.close(fd) }

  /// Connects to the first of `paths` where labeld listens; when none does, the first's
  /// failure (a later one's when it is not "not running": a permission to ask for).
  static func connect(_ paths: [String]) throws(LabelError) -> LineSocket {
    var first: LabelError?
    for path in paths {
      do {
        return try LineSocket(path: path)
      } catch {
        if case .unreachable(let u) = error, u.cause != .notRunning { throw error }
        first = first ?? error
      }
    }
    if let first { throw first }
    return try LineSocket(path: "")  // no path at all: fails, saying so
  }

  /// The raw descriptor, for tests that stop reading or half-close.
  var descriptor: Int32 { fd }

  /// Writes all of `bytes`.
  func send(_ bytes: [UInt8]) throws(LabelError) {
    let result: Result<Void, LabelError> = sendLock.withLock { _ in
      bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
          switch OS.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...])) {
          case .success(let n): offset += n
          case .failure: return .failure(.connectionLost)
          }
        }
        return .success(())
      }
    }
    try result.get()
  }

  /// The next line (without its `\n`), waiting up to `timeout` seconds (nil or infinity:
  /// for ever).
  func readLine(timeout: Double?) throws(LabelError) -> [UInt8] {
    while true {
      if let line = try buffer.nextLine() { return line }
      try fill(timeout: timeout)
    }
  }

  /// Every complete line there is, waiting up to `timeout` for at least one: a stream
  /// takes a replay's lines a read at a time, not one wait each.
  func readLines(timeout: Double?) throws(LabelError) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    while true {
      while let line = try buffer.nextLine() { lines.append(line) }
      if !lines.isEmpty { return lines }
      try fill(timeout: timeout)
    }
  }

  /// The complete lines there are after waiting up to `waiting` for something to read:
  /// none when nothing came (or only part of a line).
  func readAvailable(waiting: Duration) throws(LabelError) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    while let line = try buffer.nextLine() { lines.append(line) }
    if !lines.isEmpty { return lines }
    let (seconds, attoseconds) = waiting.components
    // Rounded up: a wait of less than a millisecond is not a poll that returns at once.
    let milliseconds = Int32(
      min(seconds, 86_400) * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    guard OS.waitReadable(fd, milliseconds: max(milliseconds, 0)) else { return [] }
    let count = chunk.withUnsafeMutableBytes { OS.receive(fd, into: $0) }
    switch count {
    case .success(let n) where n > 0: buffer.append(chunk[0..<n])
    case .success, .failure: throw .connectionLost
    }
    while let line = try buffer.nextLine() { lines.append(line) }
    return lines
  }

  /// Wakes a blocked reader (it sees the connection closed) and stops further sends.
  func shutdown() {
    if closed.exchange(true, ordering: .acquiringAndReleasing) { return }
    OS.shutdown(fd)
  }

  /// Reads once, waiting up to `timeout` seconds (nil or infinity: for ever) through the
  /// socket's own receive timeout, so each read is one system call.
  private func fill(timeout: Double?) throws(LabelError) {
    let wanted = timeout.flatMap { $0.isFinite ? min(max($0, 0.001), 86_400) : nil }
    if wanted != receiveTimeout {
      OS.setReceiveTimeout(fd, seconds: wanted)
      receiveTimeout = wanted
    }
    let count = chunk.withUnsafeMutableBytes { OS.receive(fd, into: $0) }
    switch count {
    case .success(let n) where n > 0: buffer.append(chunk[0..<n])
    case .failure(let failure) where OS.meansTimedOut(failure.errno): throw .timeout
    case .success, .failure: throw .connectionLost
    }
  }
}

/// Bytes read and not yet split into lines. Lines are taken by moving `head`, and each
/// byte is searched for `\n` once: a 10,000-line replay costs what it is long.
struct LineBuffer {
  /// A line the daemon sends may be long (a page of 10,000 products, a rendered label),
  /// but not without bound: past this the connection is not protocol v1.
  static let longestLine = 64 << 20

  private var bytes: [UInt8] = []
  private var head = 0
  private var scanned = 0

  mutating func append(_ more: ArraySlice<UInt8>) { bytes.append(contentsOf: more) }

  /// The next complete line, nil when none is complete yet.
  mutating func nextLine() throws(LabelError) -> [UInt8]? {
    guard let nl = bytes[max(head, scanned)...].firstIndex(of: 0x0A) else {
      scanned = bytes.count
      if scanned - head > Self.longestLine {
        throw .protocolViolation("a line longer than \(Self.longestLine >> 20) MiB")
      }
      if head > 0 && head * 2 >= bytes.count {
        bytes.removeFirst(head)
        scanned -= head
        head = 0
      }
      return nil
    }
    let line = Array(bytes[head..<nl])
    head = nl + 1
    scanned = head
    if head == bytes.count {
      bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
      head = 0
      scanned = 0
    }
    return line
  }
}
