import Dispatch
import Foundation
import LabelCore
import LabelKit
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What the load did in one interval (from one `takeInterval` to the next).
public struct LoadInterval: Sendable {
  /// Wall time the interval covers, in seconds.
  public var seconds: Double = 0
  /// Calls that came back, answered or failed, per operation (the fault thread included).
  public var calls: [LoadOperation: Int] = [:]
  /// Latency of every call that came back, per operation and over all.
  public var latency: [LoadOperation: LatencyHistogram] = [:]
  public var overall = LatencyHistogram()
  /// Real failures by kind: "rpc -32603" (any RPC error the mix does not expect),
  /// "closed", "timeout", "protocol", "unreachable".
  public var failures: [String: Int] = [:]
  /// Failed calls per operation.
  public var failed: [LoadOperation: Int] = [:]
  /// RPC errors the mix expects (`LoadMix.expectedErrorCodes`), by code.
  public var expected: [Int: Int] = [:]
  /// The first few failures' messages, for a report.
  public var failureSamples: [String] = []
  /// The highest job id any submit got back so far (not reset between intervals).
  public var highestJobID = 0

  public init() {}

  public var requests: Int { calls.values.reduce(0, +) }
  public var failureCount: Int { failures.values.reduce(0, +) }
  public var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }

  /// Adds another interval (totals of a run).
  public mutating func merge(_ other: LoadInterval) {
    seconds += other.seconds
    calls.merge(other.calls, uniquingKeysWith: +)
    for (op, h) in other.latency { latency[op, default: LatencyHistogram()].merge(h) }
    overall.merge(other.overall)
    failures.merge(other.failures, uniquingKeysWith: +)
    failed.merge(other.failed, uniquingKeysWith: +)
    expected.merge(other.expected, uniquingKeysWith: +)
    failureSamples += other.failureSamples.prefix(max(0, 10 - failureSamples.count))
    highestJobID = max(highestJobID, other.highestJobID)
  }

  /// "closed 3, timeout 1", or "none".
  public var failureSummary: String {
    failures.isEmpty
      ? "none"
      : failures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
        separator: ", ")
  }
}

/// The soak's mixed load against one labeld: `mix.clients` threads, each with its own
/// connection, drawing calls from the mix's weights, plus one thread toggling a simulated
/// printer's fault. Counts are kept per interval (`takeInterval`), so memory stays flat
/// however long it runs.
///
/// The clients are plain threads with blocking `BlockingConnection`s, as a real app would be; a
/// failed connection (closed, timed out, out of step) is replaced by a new one.
public final class LoadGenerator: Sendable {
  public let socketPath: String
  public let mix: LoadMix
  private let running = Atomic<Bool>(false)
  private let stats = Mutex(LoadInterval())
  private let intervalStart = Mutex<UInt64>(0)
  private let highestJob = Atomic<Int>(0)
  private let threads = DispatchGroup()

  public init(socketPath: String, mix: LoadMix = LoadMix()) {
    self.socketPath = socketPath
    self.mix = mix
  }

  /// Saves the load's template and products (idempotent: saving again replaces them).
  public static func prepare(socketPath: String) throws {
    let c = try BlockingConnection(socketPath: socketPath)
    try c.call("templates.save", ["template": LoadFixtures.template])
    for i in 0..<LoadFixtures.productCount {
      try c.call("products.save", ["product": LoadFixtures.product(i)])
    }
  }

  /// Raises and clears `printer`'s mediaEmpty until `events` alert events were published
  /// (one per call; the printer is left without the fault): the alert journal is then as
  /// full as weeks of faults leave it, and a `subscribe` with `since: 0` replays all it
  /// keeps from the start. `progress` is told every 1,000 events.
  public static func fillJournal(
    socketPath: String, printer: String, events: Int, progress: (Int) -> Void
  ) throws {
    let c = try BlockingConnection(socketPath: socketPath)
    let calls = events + events % 2  // an even count ends cleared
    for i in 0..<calls {
      try c.call(
        "printers.simulate",
        ["printer": .string(printer), "fault": i % 2 == 0 ? "mediaEmpty" : nil])
      if (i + 1) % 1000 == 0 { progress(i + 1) }
    }
  }

  /// Starts the clients and the fault thread.
  public func start() {
    guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
    intervalStart.withLock { $0 = Self.now() }
    for i in 0..<mix.clients {
      threads.enter()
      Thread.detachNewThread { [self] in
        defer { threads.leave() }
        client(i)
      }
    }
    if let every = mix.faultInterval {
      threads.enter()
      Thread.detachNewThread { [self] in
        defer { threads.leave() }
        faultToggler(every: every)
      }
    }
  }

  /// Stops every thread (each finishes the call in hand; one in a call waits at most
  /// `mix.callTimeout`); the fault is cleared. False when a thread had not ended within
  /// `timeout` seconds.
  @discardableResult
  public func stop(timeout: Double = 60) -> Bool {
    running.store(false, ordering: .releasing)
    return threads.wait(timeout: .now() + timeout) == .success
  }

  /// What was done since the last call (or the start), and a fresh interval.
  public func takeInterval() -> LoadInterval {
    let t = Self.now()
    let start = intervalStart.withLock { s in
      defer { s = t }
      return s
    }
    var taken = stats.withLock { s in
      defer { s = LoadInterval() }
      return s
    }
    taken.seconds = Double(t - start) / 1e9
    taken.highestJobID = highestJob.load(ordering: .relaxed)
    return taken
  }

  // MARK: the threads

  static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

  private var isRunning: Bool { running.load(ordering: .acquiring) }

  /// A new connection, retried until it works or the load stops (each failure counted
  /// against `op`, whose call it was for).
  private func connect(for op: LoadOperation) -> BlockingConnection? {
    while isRunning {
      do {
        let c = try BlockingConnection(socketPath: socketPath)
        c.timeout = mix.callTimeout
        return c
      } catch {
        record(op, failure: "unreachable", "\(error)", latency: nil)
        usleep(100_000)  // labeld is gone or full: do not spin
      }
    }
    return nil
  }

  private func client(_ index: Int) {
    var rng = SplitMix64(seed: mix.seed &+ UInt64(index))
    let table = mix.weights.filter { $0.value > 0 }.sorted { $0.key < $1.key }
    let total = table.reduce(0) { $0 + $1.value }
    guard total > 0 else { return }
    let pace = mix.rate.map { Double(mix.clients) / $0 }  // seconds between this client's calls
    var next = Self.now() + UInt64(Double(rng.next() % 1000) / 1000 * (pace ?? 0) * 1e9)
    var counter = index
    var connection: BlockingConnection?
    while isRunning {
      if let pace {
        let t = Self.now()
        if next > t { usleep(UInt32(min(1_000_000, (next - t) / 1000))) }
        if Self.now() < next { continue }  // woke early to look at `running`
        next += UInt64(pace * 1e9)
      }
      var draw = Int(rng.next() % UInt64(total))
      let op = table.first { entry in
        defer { draw -= entry.value }
        return draw < entry.value
      }!.key
      counter += 1
      if op == .subscribeReplay {
        subscribeReplay()
        continue
      }
      if connection == nil { connection = connect(for: op) }
      guard let c = connection else { return }
      if !call(op, on: c, counter: counter, rng: &rng) { connection = nil }
    }
  }

  /// One call of `op`; false when the connection is no longer usable.
  private func call(
    _ op: LoadOperation, on c: BlockingConnection, counter: Int, rng: inout SplitMix64
  )
    -> Bool
  {
    let printer = counter % 2 == 0 ? mix.zplPrinter : mix.qlPrinter
    let sku = JSONValue.string(
      LoadFixtures.sku(Int(rng.next() % UInt64(LoadFixtures.productCount))))
    let (method, params): (String, JSONValue) =
      switch op {
      case .submitNative:
        (
          "jobs.submit",
          [
            "printer": .string(printer),
            "document": [
              "format": "native",
              "data": .string(
                Data(printer == mix.zplPrinter ? LoadFixtures.zplDocument : LoadFixtures.qlDocument)
                  .base64EncodedString()),
            ],
          ]
        )
      case .submitTemplate:
        (
          "jobs.submit",
          ["printer": .string(printer), "template": .string(LoadFixtures.templateName), "sku": sku]
        )
      case .save:
        (
          "products.save",
          [
            "product": LoadFixtures.product(
              Int(rng.next() % UInt64(LoadFixtures.productCount)), revision: counter)
          ]
        )
      case .renderPNG, .renderNative:
        (
          "labels.render",
          [
            "template": .string(LoadFixtures.templateName), "sku": sku, "printer": .string(printer),
            "format": op == .renderPNG ? "png" : "native",
          ]
        )
      case .printersList: ("printers.list", [:])
      case .jobsList: ("jobs.list", ["limit": 100])
      case .subscribeReplay, .faultToggle: preconditionFailure("not a client call")
      }
    let t = Self.now()
    do {
      let result = try c.call(method, params)
      record(op, latency: Self.now() - t)
      if let id = result["job"]?["id"]?.intValue { noteJob(id) }
      return true
    } catch {
      return failed(op, error, since: t)
    }
  }

  /// A connection of its own: subscribe with `since: 0`, read the replay up to the result's
  /// seq, close. Its latency is the whole exchange, connect to the last replayed alert.
  private func subscribeReplay() {
    let t = Self.now()
    guard let c = connect(for: .subscribeReplay) else { return }
    do {
      let result = try c.call("subscribe", ["since": 0])
      guard let last = result["seq"]?.intValue else {
        throw LabelError.protocolViolation("subscribe result without a seq")
      }
      var seq = 0
      c.timeout = mix.callTimeout
      while seq < last {
        let line = try c.readLine()
        guard let s = ReplayLine.alertSeq(line) else {
          if ReplayLine.contains(line, ReplayLine.overflow) {
            throw LabelError.protocolViolation("overflow while reading a replay")
          }
          continue
        }
        seq = s
      }
      record(.subscribeReplay, latency: Self.now() - t)
    } catch {
      _ = failed(.subscribeReplay, error, since: t)
    }
  }

  /// Toggles `mix.faultPrinter` between mediaEmpty and no fault; clears it when stopping.
  private func faultToggler(every seconds: Double) {
    var connection: BlockingConnection?
    var faulted = false
    var next = Self.now()
    while true {
      let stopping = !isRunning
      if !stopping {
        next += UInt64(seconds * 1e9)
        while isRunning, Self.now() < next { usleep(20_000) }
      }
      if stopping && !faulted { return }
      if connection == nil {
        // Not `connect()`: when stopping it would give up at once, and the fault would stay.
        connection = try? BlockingConnection(socketPath: socketPath)
        connection?.timeout = mix.callTimeout
      }
      guard let c = connection else {
        record(.faultToggle, failure: "unreachable", "cannot connect", latency: nil)
        if stopping { return }
        usleep(100_000)
        continue
      }
      let t = Self.now()
      do {
        try c.call(
          "printers.simulate",
          ["printer": .string(mix.faultPrinter), "fault": faulted ? nil : "mediaEmpty"])
        record(.faultToggle, latency: Self.now() - t)
        faulted.toggle()
      } catch {
        if !failed(.faultToggle, error, since: t) { connection = nil }
        if stopping { return }
      }
    }
  }

  // MARK: counting

  private func noteJob(_ id: Int) {
    var seen = highestJob.load(ordering: .relaxed)
    while id > seen {
      let (exchanged, original) = highestJob.compareExchange(
        expected: seen, desired: id, ordering: .relaxed)
      if exchanged { break }
      seen = original
    }
  }

  private func record(_ op: LoadOperation, latency: UInt64) {
    stats.withLock { s in
      s.calls[op, default: 0] += 1
      s.latency[op, default: LatencyHistogram()].record(latency)
      s.overall.record(latency)
    }
  }

  private func record(
    _ op: LoadOperation, failure kind: String, _ message: String, latency: UInt64?
  ) {
    stats.withLock { s in
      if let latency {
        s.calls[op, default: 0] += 1
        s.latency[op, default: LatencyHistogram()].record(latency)
        s.overall.record(latency)
      }
      s.failures[kind, default: 0] += 1
      s.failed[op, default: 0] += 1
      if s.failureSamples.count < 10 { s.failureSamples.append("\(op.rawValue): \(message)") }
    }
  }

  /// Counts a failed call; true when the connection can still be used (an RPC error).
  private func failed(_ op: LoadOperation, _ error: any Error, since t: UInt64) -> Bool {
    let latency = Self.now() - t
    guard let error = error as? LabelError else {
      record(op, failure: "other", "\(error)", latency: latency)
      return false
    }
    if let code = error.code {
      if mix.expectedErrorCodes.contains(code) {
        stats.withLock { s in
          s.calls[op, default: 0] += 1
          s.latency[op, default: LatencyHistogram()].record(latency)
          s.overall.record(latency)
          s.expected[code, default: 0] += 1
        }
      } else {
        record(op, failure: "rpc \(code)", "\(error)", latency: latency)
      }
      return true
    }
    switch error {
    case .connectionLost: record(op, failure: "closed", "\(error)", latency: latency)
    case .timeout: record(op, failure: "timeout", "\(error)", latency: latency)
    case .protocolViolation: record(op, failure: "protocol", "\(error)", latency: latency)
    case .unreachable: record(op, failure: "unreachable", "\(error)", latency: latency)
    default: record(op, failure: "other", "\(error)", latency: latency)
    }
    return false
  }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same draws, so a
/// load run or a failing fuzz seed replays exactly (the fuzzer in the tests uses it too).
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// A number in 0..<n (n > 0).
  public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
}

/// Replayed alert lines read without decoding them: the seq is all the replay loop needs,
/// and decoding every replayed alert made the generator (sharing labeld's cores), not
/// labeld, the soak's bottleneck. labeld writes compact JSON with sorted keys; in a JSON
/// string a quote is always escaped, so `"seq":` can only be a member name.
enum ReplayLine {
  static let alert = Array(#""method":"alert""#.utf8)
  static let overflow = Array(#""method":"overflow""#.utf8)
  static let seq = Array(#""seq":"#.utf8)

  /// The seq of an `alert` notification, nil for any other line.
  static func alertSeq(_ line: [UInt8]) -> Int? {
    guard contains(line, alert), var i = end(of: seq, in: line) else { return nil }
    var value = 0
    var digits = 0
    while i < line.count, line[i] >= 0x30, line[i] <= 0x39, digits < 18 {
      value = value * 10 + Int(line[i] - 0x30)
      digits += 1
      i += 1
    }
    return digits > 0 ? value : nil
  }

  static func contains(_ line: [UInt8], _ needle: [UInt8]) -> Bool {
    end(of: needle, in: line) != nil
  }

  /// The index just after the first occurrence of `needle` in `line`.
  private static func end(of needle: [UInt8], in line: [UInt8]) -> Int? {
    guard let first = needle.first, line.count >= needle.count else { return nil }
    var i = 0
    while i + needle.count <= line.count {
      if line[i] == first && line[i..<(i + needle.count)].elementsEqual(needle) {
        return i + needle.count
      }
      i += 1
    }
    return nil
  }
}
