import Dispatch
import Foundation
import LabelCore
import LabelKit
import LabelPOSIX
import LabelWire
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// The client kit's cost over the wire it wraps: a call through LabelKit against the same
// request on a raw socket, and how fast an alert stream replays a full journal.

/// Runs `body` on Swift's cooperative pool and waits for it (the sections are synchronous).
func runAsync<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let result = Mutex<Result<T, any Error>?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    let r: Result<T, any Error>
    do { r = .success(try await body()) } catch { r = .failure(error) }
    result.withLock { $0 = r }
    done.signal()
  }
  done.wait()
  return try result.withLock { $0! }.get()
}

/// `count` round trips of one request line on a plain socket: write the line, read up to
/// its answer's newline, no JSON parsed; latencies in ns, sorted.
func rawRoundTrips(_ socket: String, line: [UInt8], count: Int) throws -> [UInt64] {
  let fd = try UnixSocket.connect(path: socket)
  defer { close(fd) }
  var buffer = [UInt8](repeating: 0, count: 65536)
  var out: [UInt64] = []
  out.reserveCapacity(count)
  for _ in 0..<count {
    let t = now()
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    while true {
      let n = read(fd, &buffer, buffer.count)
      guard n > 0 else { throw BenchError.failed("labeld closed the raw connection") }
      if buffer[n - 1] == 0x0A { break }
    }
    out.append(now() - t)
  }
  return out.sorted()
}

@MainActor func kitSection() throws {
  let home = config.work.appendingPathComponent("kit")
  try? FileManager.default.removeItem(at: home)
  let (daemon, socket) = try startDaemon(
    home, benchPrinters + ["--alert-retention", "100000", "--max-queued-messages", "100000"])
  defer { stopDaemon(daemon) }
  let calls = max(config.requests, 5000)

  // Calls, one at a time from one client: the same `hello` each way, in alternating
  // rounds of 500 (so a slower minute of the machine weighs on every way alike), after a
  // warm-up round.
  let hello = Array(#"{"jsonrpc":"2.0","id":1,"method":"hello"}"#.utf8) + [0x0A]
  let connection = try BlockingConnection(socketPath: socket)
  let client = LabeldClient(socketPath: socket)
  let round = 500
  let rounds = max(calls / round, 4)
  var raw: [UInt64] = []
  var sync: [UInt64] = []
  var kit: [UInt64] = []
  var typed: [UInt64] = []
  var framed: [UInt64] = []
  var rawKept: [UInt64] = []
  let keptFD = try UnixSocket.connect(path: socket)
  var parsed: [UInt64] = []
  for r in 0...rounds {
    progress("round \(r) of \(rounds): \(round) calls each way")
    let rawRound = try rawRoundTrips(socket, line: hello, count: round)
    var rawSame: [UInt64] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    for _ in 0..<round {
      let t = now()
      _ = hello.withUnsafeBytes { write(keptFD, $0.baseAddress, $0.count) }
      while true {
        let n = read(keptFD, &buf, buf.count)
        if n <= 0 || buf[n - 1] == 0x0A { break }
      }
      rawSame.append(now() - t)
    }
    rawKept += rawSame
    var syncRound: [UInt64] = []
    for _ in 0..<round {
      let t = now()
      _ = try connection.call("hello")
      syncRound.append(now() - t)
    }
    for _ in 0..<round {
      let t = now()
      try connection.sendRaw(hello)
      _ = try connection.readLine()
      framed.append(now() - t)
    }
    for _ in 0..<round {
      let t = now()
      try connection.sendRaw(hello)
      _ = try JSONValue.parse(try connection.readLine())
      parsed.append(now() - t)
    }
    let (kitRound, typedRound) = try runAsync { () async throws -> ([UInt64], [UInt64]) in
      var untyped: [UInt64] = []
      var typed: [UInt64] = []
      for _ in 0..<round {
        let t = now()
        _ = try await client.call("hello")
        untyped.append(now() - t)
      }
      for _ in 0..<round {
        let t = now()
        _ = try await client.hello()
        typed.append(now() - t)
      }
      return (untyped, typed)
    }
    if r == 0 { continue }  // the warm-up
    raw += rawRound
    sync += syncRound
    kit += kitRound
    typed += typedRound
  }
  raw.sort()
  sync.sort()
  kit.sort()
  typed.sort()
  // Encoding a request and reading its answer, without a socket.
  let answerLine = Array(
    #"{"id":1,"jsonrpc":"2.0","result":{"protocol":1,"server":"labeld","version":"0.1.0"}}"#.utf8)
  let t0 = now()
  for i in 0..<calls {
    let bytes = RequestLine.encodeForBench(id: i, method: "hello")
    let answer = try JSONValue.parse(answerLine)
    if bytes.isEmpty || answer["id"] == nil { throw BenchError.failed("encode") }
  }
  let codec = Double(now() - t0) / Double(calls) / 1000
  let base = percentile(raw, 0.5)
  func row(_ name: String, _ l: [UInt64]) -> String {
    let ratio = percentile(l, 0.5) / base
    return String(
      format: "| %@ | %.3f | %.3f | %.2f× |", name, percentile(l, 0.5), percentile(l, 0.99), ratio)
  }
  emit(
    """
    | `hello`, one client, one call at a time (\(raw.count) each, interleaved) | median ms | p99 ms | median vs raw |
    |---|---|---|---|
    \(row("raw socket (write the line, read to its newline)", raw))
    \(row("raw socket, one connection for every round", rawKept.sorted()))
    \(row("`BlockingConnection` framing only (`sendRaw`, `readLine`)", framed.sorted()))
    \(row("the same, and the answer parsed (`JSONValue.parse`)", parsed.sorted()))
    \(row("`BlockingConnection.call` (labelctl's)", sync))
    \(row("`LabeldClient.call` (async, the app's)", kit))
    \(row("`LabeldClient.hello()` (typed result)", typed))

    Encoding a request and parsing its answer in memory: \(String(format: "%.2f", codec)) µs a call.
    """)

  // Replay: a journal of `events` alert events, read from seq 0.
  let events = 50_000
  progress("raising \(events) alert events")
  let raiser = try BlockingConnection(socketPath: socket)
  var sent = 0
  while sent < events {
    let batch = min(50, events - sent)
    var lines: [UInt8] = []
    for i in sent..<(sent + batch) {
      let fault = i % 2 == 0 ? "\"mediaEmpty\"" : "null"
      lines +=
        Array(
          #"{"jsonrpc":"2.0","id":\#(i),"method":"printers.simulate","params":{"printer":"sim:zebra","fault":\#(fault)}}"#
            .utf8) + [0x0A]
    }
    try raiser.sendRaw(lines)
    for _ in 0..<batch { _ = try raiser.readLine() }
    sent += batch
    if sent % 10_000 == 0 { progress("raised \(sent)") }
  }
  let latest = try raiser.call("subscribe", ["topics": ["printers"]], as: SubscribeResult.self).seq

  progress("replaying \(latest) events through each reader")
  // The wire alone: subscribe from 0 and read lines to the last seq's, nothing decoded;
  // the lines are kept for the stand-in below.
  var replayed: [[UInt8]] = []
  let wire = try measureReplay {
    let c = try BlockingConnection(socketPath: socket)
    try c.sendLine(
      Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"since":0}}"#.utf8))
    _ = try c.readLine()
    let needle = Array("\"seq\":\(latest),".utf8)
    while true {
      let line = try c.readLine()
      replayed.append(line)
      if contains(line, needle) { return }
    }
  }
  func readers(_ socket: String) throws -> (Double, Double) {
    let blocking = try measureReplay {
      let stream = BlockingAlertStream(socketPath: socket, since: 0)
      while true {
        if case .event(let e) = try stream.next(), e.seq >= latest { return }
      }
    }
    let async = try measureReplay {
      try runAsync {
        let client = LabeldClient(socketPath: socket)
        for try await update in client.alerts(since: 0) {
          if case .event(let e) = update, e.seq >= latest { return }
        }
      }
    }
    return (blocking, async)
  }
  let (blocking, async) = try readers(socket)
  // The same lines from a stand-in that writes them as fast as they are read: the kit's
  // own cost, apart from labeld's pace of replay.
  let canned = try CannedReplay(home.appendingPathComponent("canned.sock").path, replayed, latest)
  defer { canned.stop() }
  let (cannedBlocking, cannedAsync) = try readers(canned.path)
  func rate(_ seconds: Double) -> String {
    String(format: "%.2f s, %d/s", seconds, Int(Double(replayed.count) / seconds))
  }
  emit(
    """
    | replaying \(replayed.count) alert events (`subscribe` from 0) | from labeld | from a stand-in at wire speed |
    |---|---|---|
    | the wire: lines read, nothing decoded | \(rate(wire)) | — |
    | `BlockingAlertStream` (labelctl's) | \(rate(blocking)) | \(rate(cannedBlocking)) |
    | `LabeldClient.alerts(since: 0)` (the app's) | \(rate(async)) | \(rate(cannedAsync)) |
    """)
}

/// A stand-in daemon that answers `subscribe` with `latest` and then writes `lines`, each
/// connection as fast as it reads; it answers nothing else.
final class CannedReplay: @unchecked Sendable {
  let path: String
  private let listener: Int32
  private let stopped = Atomic<Bool>(false)
  private let body: [UInt8]
  private let latest: UInt64

  init(_ path: String, _ lines: [[UInt8]], _ latest: UInt64) throws {
    self.path = path
    self.latest = latest
    body = lines.flatMap { $0 + [0x0A] }
    listener = try UnixSocket.listen(path: path)
    Thread.detachNewThread { self.serve() }
  }

  func stop() {
    stopped.store(true, ordering: .relaxed)
    close(listener)
  }

  private func serve() {
    while !stopped.load(ordering: .relaxed) {
      var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 200) > 0, let fd = try? UnixSocket.accept(listener) else { continue }
      Thread.detachNewThread { self.replay(fd) }
    }
  }

  private func replay(_ fd: Int32) {
    defer { close(fd) }
    // The request: up to its newline; the answer takes its id.
    var request: [UInt8] = []
    var byte = [UInt8](repeating: 0, count: 4096)
    while !request.contains(0x0A) {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 5000) > 0 else { return }
      let n = read(fd, &byte, byte.count)
      guard n > 0 else { return }
      request += byte[0..<n]
    }
    let line = Array(request[..<request.firstIndex(of: 0x0A)!])
    let id = (try? JSONValue.parse(line))?["id"]?.intValue ?? 1
    let answer = Array(#"{"id":\#(id),"jsonrpc":"2.0","result":{"seq":\#(latest)}}"#.utf8) + [0x0A]
    let all = answer + body
    var offset = 0
    while offset < all.count {
      var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      guard poll(&p, 1, 10_000) > 0 else { return }
      let n = all.withUnsafeBytes {
        send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard n > 0 else { return }
      offset += n
    }
    // Held open until the reader closes it.
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while !stopped.load(ordering: .relaxed) {
      if poll(&p, 1, 200) > 0, read(fd, &byte, byte.count) <= 0 { return }
    }
  }
}

/// Seconds `body` takes (it reads `events` events).
func measureReplay(_ body: () throws -> Void) throws -> Double {
  let t = now()
  try body()
  return Double(now() - t) / 1e9
}

/// The `kitloop` section's calls, for a profiler.
func kitLoopCalls(_ socket: String) throws {
  let c = try BlockingConnection(socketPath: socket)
  for _ in 0..<30_000 { _ = try c.call("hello") }
}

/// Whether `needle` occurs in `haystack` (a plain scan: `Collection.contains(_:)` of a
/// subsequence costs tens of microseconds a line).
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
  guard let first = needle.first, haystack.count >= needle.count else { return false }
  var i = 0
  let last = haystack.count - needle.count
  while i <= last {
    if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) {
      return true
    }
    i += 1
  }
  return false
}
