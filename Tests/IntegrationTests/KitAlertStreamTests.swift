import Foundation
import LabelCore
import LabelKit
import LabelLoad
import LabelSQLite
import LabelTestKit
import Synchronization
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// LabelKit's alert stream against a real labeld: every event once, in seq order, across
/// kill -9 and restarts, replays, gaps and overflows; a failed save once; AlertQueue.
@Suite struct KitAlertStreamTests {
  /// What a stream handed out, in order.
  final class Collected: Sendable {
    let updates = Mutex<[AlertUpdate]>([])
    var events: [AlertEvent] {
      updates.withLock { $0.compactMap { if case .event(let e) = $0 { e } else { nil } } }
    }
    var gaps: [AlertGap] {
      updates.withLock { $0.compactMap { if case .gap(let g) = $0 { g } else { nil } } }
    }
  }

  /// Iterates `stream` into `into` until the task is cancelled.
  static func collect(_ stream: AlertStream, into collected: Collected) -> Task<Void, any Error> {
    Task(executorPreference: KitExecutor.shared) {
      for try await update in stream { collected.updates.withLock { $0.append(update) } }
    }
  }

  /// Polls `condition` until it holds or `seconds` pass (then records why).
  static func eventually(
    _ what: String, seconds: Double = 30, isolation: isolated (any Actor)? = #isolation,
    _ condition: () -> Bool
  ) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("not within \(seconds) s: \(what)")
    return false
  }

  /// Every event labeld's journal holds, in seq order.
  static func journal(_ d: DaemonProcess) throws -> [UInt64] {
    let db = try Database(
      path: d.stateDirectory.appendingPathComponent("labeld.db").path, readOnly: true)
    return try db.statement("SELECT seq FROM alerts ORDER BY seq").all { UInt64($0.int(0)) }
  }

  /// Every event the journal holds, once the stream has reached them. The last labeld
  /// started may still be adding to it (alerts of the run before that it clears at
  /// start): waits until the stream has reached the journal's end and the journal stays
  /// there.
  static func untilTheStreamHasTheJournal(_ d: DaemonProcess, _ collected: Collected)
    async throws -> [UInt64]
  {
    var journal = try Self.journal(d)
    for _ in 0..<20 {
      let last = journal.last ?? 0
      _ = await Self.eventually("the stream reaches seq \(last)") {
        (collected.events.last?.seq ?? 0) >= last
      }
      try await Task.sleep(for: .milliseconds(200))
      let now = try Self.journal(d)
      if now == journal { break }
      journal = now
    }
    return journal
  }

  /// The proof: labeld is killed (-9) and restarted on a random schedule while another
  /// client raises and clears faults; the stream hands out every event the journal holds,
  /// each exactly once and in seq order.
  @Test func killNineAndRestartOnARandomSchedule_loseNoEvent_andRepeatNone() async throws {
    try await onKitExecutor {
      let seed =
        ProcessInfo.processInfo.environment["LABELD_KIT_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...UInt64(UInt32.max))
      print("kill -9 schedule: seed \(seed) (LABELD_KIT_SEED=\(seed) replays it)")
      var rng = SplitMix64(seed: seed)
      let home = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: home) }
      let printers = ["a", "b", "c", "d"]
      let args =
        ["--alert-retention", "1000000"] + printers.flatMap { ["--simulate", "\($0)=zpl"] }
      var d = try DaemonProcess(args, directory: home)
      let client = LabeldClient(socketPath: d.socketPath)
      let collected = Collected()
      let consumer = Self.collect(client.alerts(since: 0), into: collected)

      // The raiser: toggles faults as fast as labeld answers, reconnecting after each kill.
      let stop = Atomic<Bool>(false)
      let raised = Atomic<Int>(0)
      let path = d.socketPath
      let raiserSeed = rng.next()
      let raiser = Thread {
        var rng = SplitMix64(seed: raiserSeed)
        let faults: [JSONValue] = ["coverOpen", "mediaEmpty", "paused", .null]
        var c: BlockingConnection?
        while !stop.load(ordering: .relaxed) {
          if c == nil {
            c = try? BlockingConnection(socketPath: path)
            c?.timeout = 5
            if c == nil { usleep(2_000) }
            continue
          }
          let printer = printers[Int(rng.next() % UInt64(printers.count))]
          let fault = faults[Int(rng.next() % UInt64(faults.count))]
          do {
            try c?.call(
              "printers.simulate", ["printer": .string("sim:\(printer)"), "fault": fault])
            raised.add(1, ordering: .relaxed)
          } catch {
            c = nil
          }
        }
      }
      raiser.start()
      for _ in 0..<8 {
        let before = raised.load(ordering: .relaxed)
        // A random moment: after 20 to 150 further faults were toggled.
        let more = 20 + Int(rng.next() % 130)
        while raised.load(ordering: .relaxed) < before + more {
          try await Task.sleep(for: .milliseconds(1))
        }
        d.kill9()
        d = try DaemonProcess(args, directory: home)
      }
      stop.store(true, ordering: .relaxed)
      while !raiser.isFinished { try await Task.sleep(for: .milliseconds(5)) }
      defer { d.stop() }

      let journal = try await Self.untilTheStreamHasTheJournal(d, collected)
      consumer.cancel()
      let handed = collected.events.map(\.seq)
      #expect(collected.gaps.isEmpty, "kill -9 loses nothing: no gap \(collected.gaps)")
      #expect(zip(handed, handed.dropFirst()).allSatisfy { $0 < $1 }, "in seq order, none twice")
      #expect(
        handed == journal,
        "handed out \(handed.count) events, the journal holds \(journal.count); missing: \(Set(journal).subtracting(handed).sorted().prefix(20)), extra: \(Set(handed).subtracting(journal).sorted().prefix(20))"
      )
      #expect(journal.count > 160, "the run raised too few events to prove much: \(journal.count)")
    }
  }

  /// A failed save comes both as the save's answer and on the channel: the stream of the
  /// same client hands it out once, and the caller still learns it failed.
  @Test func aFailedSave_reachesTheStreamOnce_andTheCaller() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess()
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      let collected = Collected()
      let consumer = Self.collect(client.alerts(), into: collected)
      defer { consumer.cancel() }
      _ = try await client.simulate(printer: "sim:ql", fault: .coverOpen)
      _ = await Self.eventually("the printer's alert") { collected.events.count == 1 }
      _ = try await client.saveProduct(ProductInput(sku: "S", name: "one"))
      var thrown: FailedSave?
      do {
        _ = try await client.saveProduct(ProductInput(sku: "S", name: "stale"), expectedVersion: 7)
      } catch {
        if let error = error as? LabelError, case .saveFailed(let failure) = error {
          thrown = failure
        }
      }
      #expect(thrown?.storedVersion == 1)
      _ = try await client.simulate(printer: "sim:ql", fault: nil)
      _ = await Self.eventually("the cleared event after the save error") {
        collected.events.contains { $0.state == .cleared }
      }
      let saveErrors = collected.events.filter { $0.id == "saveError:product:S" }
      #expect(saveErrors.count == 1, "once, not twice: \(saveErrors.map(\.seq))")
      #expect(saveErrors.first?.seq == thrown?.alert.seq)
      #expect(
        collected.events.map(\.id) == [
          "printerError:sim:ql", "saveError:product:S", "printerError:sim:ql",
        ])
    }
  }

  /// Resuming from a seq labeld no longer retains: the stream says so, names the alert
  /// whose clearing was lost, and hands out what is still active.
  @Test func gapAfterRetention_endsWhatWasLost_andHandsOutWhatIsActive() async throws {
    try await onKitExecutor {
      let home = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: home) }
      let args = [
        "--alert-retention", "5", "--simulate", "a=zpl", "--simulate", "b=zpl",
        "--simulate", "c=zpl",
      ]
      let d = try DaemonProcess(args, directory: home)
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      let first = Collected()
      var consumer = Self.collect(client.alerts(), into: first)
      _ = try await client.simulate(printer: "sim:a", fault: .coverOpen)
      _ = try await client.simulate(printer: "sim:b", fault: .mediaEmpty)
      _ = await Self.eventually("two alerts") { first.events.count == 2 }
      consumer.cancel()
      _ = await consumer.result
      let position = first.events.last!.seq
      // While away: sim:a clears (an event that retention then drops), sim:c faults and
      // many more events push the first ones out of the journal.
      _ = try await client.simulate(printer: "sim:a", fault: nil)
      _ = try await client.simulate(printer: "sim:c", fault: .paused)
      for _ in 0..<4 {
        _ = try await client.simulate(printer: "sim:b", fault: .mediaJam)
        _ = try await client.simulate(printer: "sim:b", fault: .mediaEmpty)
      }
      let second = Collected()
      // The same stream's memory across the gap: a new stream from the position, told
      // what it had handed out by resuming in the same process.
      consumer = Self.collect(client.alerts(since: position), into: second)
      defer { consumer.cancel() }
      _ = await Self.eventually("the gap and the active alerts") {
        !second.gaps.isEmpty && second.events.contains { $0.id == "printerError:sim:c" }
      }
      let gap = second.gaps.first
      #expect(gap?.after == position)
      let active = try await client.activeAlerts()
      #expect(Set(active.map(\.id)) == ["printerError:sim:b", "printerError:sim:c"])
      #expect(second.events.contains { $0.id == "printerError:sim:c" && $0.state == .active })
      #expect(!second.events.contains { $0.id == "printerError:sim:a" && $0.seq <= position })
    }
  }

  /// Raises `count` fault changes on `printer` (alternating `fault` and clear), pipelined
  /// 50 requests a write (labeld reads at most 64 ahead of its answers): thousands of
  /// alert events in about a second.
  static func raise(_ d: DaemonProcess, _ printer: String, _ fault: String, count: Int) throws {
    let c = try d.client()
    var sent = 0
    while sent < count {
      let batch = min(50, count - sent)
      var lines = ""
      for i in sent..<(sent + batch) {
        let value = i % 2 == 0 ? "\"\(fault)\"" : "null"
        lines +=
          #"{"jsonrpc":"2.0","id":\#(i),"method":"printers.simulate","params":{"printer":"\#(printer)","fault":\#(value)}}"#
        lines += "\n"
      }
      try c.sendRaw(Array(lines.utf8))
      for _ in 0..<batch { _ = try c.readLine() }
      sent += batch
    }
  }

  /// A labeld that overflows a subscriber 16 messages behind, keeps `retention` alert
  /// events, and has two ZPL printers, sim:a and sim:b.
  static func smallQueueDaemon(retention: Int) throws -> DaemonProcess {
    try DaemonProcess([
      "--max-queued-messages", "16", "--alert-retention", String(retention), "--simulate",
      "a=zpl", "--simulate", "b=zpl",
    ])
  }

  /// Waits until labeld has overflowed a connection (its log says so).
  static func overflowed(_ d: DaemonProcess) async -> Bool {
    await eventually("labeld overflows the consumer") { d.log.contains("overflowed") }
  }

  /// A gap inside one stream's life: the alert it had handed out as active, whose clearing
  /// labeld no longer holds when the stream comes back, is named in `ended`.
  @Test func gapInsideAStream_namesTheAlertThatEndedUnseen() async throws {
    try await onKitExecutor {
      let d = try Self.smallQueueDaemon(retention: 4)
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      _ = try await client.simulate(printer: "sim:a", fault: .coverOpen)
      var iterator = client.alerts().makeAsyncIterator()
      var updates: [AlertUpdate] = []
      if let update = try await iterator.next() { updates.append(update) }
      guard case .event(let first) = updates.first, first.id == "printerError:sim:a" else {
        Issue.record("the fresh start did not hand out sim:a's alert: \(updates)")
        return
      }
      // The consumer stops iterating: thousands of events fill its socket and labeld drops
      // it. Only then sim:a clears, and retention (4) forgets that before it comes back.
      try Self.raise(d, "sim:b", "mediaJam", count: 4000)
      guard await Self.overflowed(d) else { return }
      _ = try await client.simulate(printer: "sim:a", fault: nil)
      try Self.raise(d, "sim:b", "paused", count: 9)
      while true {
        guard let update = try await iterator.next() else { break }
        updates.append(update)
        if case .event(let e) = update, case .printerError(let p) = e.alert, p.printer == "sim:b",
          p.reason == .paused
        {
          break
        }
      }
      let gaps = updates.compactMap { if case .gap(let g) = $0 { g } else { nil } }
      #expect(gaps.count == 1)
      #expect(gaps.first?.ended.map(\.id) == ["printerError:sim:a"])
      let seqs = updates.compactMap { if case .event(let e) = $0 { e.seq } else { nil } }
      #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "in seq order, none twice")
    }
  }

  /// A consumer that stops iterating while thousands of alerts are raised: labeld
  /// overflows its connection, and once it iterates again it gets every event, once, in
  /// order.
  @Test func slowConsumer_isOverflowed_andLosesNothing() async throws {
    try await onKitExecutor {
      let d = try Self.smallQueueDaemon(retention: 100_000)
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      var iterator = client.alerts(since: 0).makeAsyncIterator()
      var handed: [UInt64] = []
      _ = try await client.simulate(printer: "sim:a", fault: .coverOpen)
      if case .event(let e) = try await iterator.next() { handed.append(e.seq) }
      try Self.raise(d, "sim:b", "mediaJam", count: 4000)
      guard await Self.overflowed(d) else { return }
      let journal = try Self.journal(d)
      while handed.last ?? 0 < journal.last ?? 0 {
        guard let update = try await iterator.next() else { break }
        guard case .event(let e) = update else {
          Issue.record("unexpected \(update)")
          break
        }
        handed.append(e.seq)
      }
      #expect(handed.count == 4001)
      #expect(handed == journal, "missing \(Set(journal).subtracting(handed).sorted().prefix(10))")
    }
  }

  /// The seed's bug, end to end: two alerts raised within a millisecond are both presented
  /// by AlertQueue, one after the other.
  @MainActor @Test func twoAlertsWithinAMillisecond_areBothPresented() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess()
      defer { d.stop() }
      let client = LabeldClient(socketPath: d.socketPath)
      let queue = AlertQueue()
      let runner = Task(executorPreference: KitExecutor.shared) { [queue] in
        try await queue.run(client)
      }
      defer { runner.cancel() }
      _ = await Self.eventually("the queue is live") { queue.connection == .live }
      // Both requests in one write: labeld raises the two alerts back to back.
      let c = try d.client()
      try c.sendRaw(
        Array(
          """
          {"jsonrpc":"2.0","id":1,"method":"printers.simulate","params":{"printer":"sim:ql","fault":"coverOpen"}}
          {"jsonrpc":"2.0","id":2,"method":"products.save","params":{"product":{"sku":"M","name":"m"},"expectedVersion":3}}

          """.utf8))
      _ = try c.readLine()
      _ = try c.readLine()
      _ = await Self.eventually("both alerts in the queue") {
        queue.current != nil && queue.waiting.count == 1
      }
      let first = queue.current
      queue.acknowledge()
      let second = queue.current
      #expect(first?.id == "printerError:sim:ql")
      #expect(second?.id == "saveError:product:M")
      queue.acknowledge()
      #expect(queue.current == nil)
    }
  }

  /// A store keeps the position across two lives of a stream (two runs of an app): no
  /// event twice, none missing.
  @Test func storedPosition_resumesWithoutRepeatingOrMissing() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess()
      defer { d.stop() }
      let file = d.directory.appendingPathComponent("position.json").path
      let store = FileAlertStore(path: file)
      let client = LabeldClient(socketPath: d.socketPath)
      var handed: [UInt64] = []
      var iterator = client.alerts(store: store).makeAsyncIterator()
      _ = try await client.simulate(printer: "sim:ql", fault: .coverOpen)
      _ = try await client.simulate(printer: "sim:zebra", fault: .mediaEmpty)
      for _ in 0..<2 {
        if case .event(let e) = try await iterator.next() { handed.append(e.seq) }
      }
      // The app stops here: the second event was handed out but not yet handled, so it is
      // handed out again; the first is not.
      _ = try await client.simulate(printer: "sim:ql", fault: nil)
      #expect(try store.load() == handed.first)
      var again = client.alerts(store: store).makeAsyncIterator()
      for _ in 0..<2 {
        if case .event(let e) = try await again.next() { handed.append(e.seq) }
      }
      #expect(handed.count == 4 && handed[1] == handed[2], "\(handed)")
      #expect(Set(handed).count == 3)
      #expect(try store.load() == handed[2])
    }
  }
}
