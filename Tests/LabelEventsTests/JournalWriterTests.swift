import Foundation
import LabelCore
import Synchronization
import Testing

@testable import LabelEvents
@testable import LabelLog

/// A journal whose writes succeed, fail or hang on command, and that remembers what it
/// holds and in which batches it was given.
final class FakeJournal: AlertPersistence {
  enum Mode: Sendable {
    case ok
    case fail(SaveReason)
    case hang
  }
  private struct State {
    var mode = Mode.ok
    var stored: [UInt64: AlertEvent] = [:]
    var batches: [[UInt64]] = []
    var held: [@Sendable () -> Void] = []
  }
  private let state = Mutex(State())

  func write(
    _ events: [AlertEvent], forgetThrough: UInt64?,
    done: @escaping @Sendable (SaveFailure?) -> Void
  ) {
    let commit: @Sendable () -> Void = { [self] in
      state.withLock { s in for e in events { s.stored[e.seq] = e } }
      done(nil)
    }
    let mode: Mode = state.withLock { s in
      s.batches.append(events.map(\.seq))
      if case .hang = s.mode { s.held.append(commit) }
      return s.mode
    }
    switch mode {
    case .ok: commit()
    case .fail(let reason): done(SaveFailure(reason: reason, message: "fake \(reason)"))
    case .hang: break
    }
  }

  func set(_ mode: Mode) { state.withLock { $0.mode = mode } }
  /// Lets the hung writes commit.
  func release() {
    for commit in state.withLock({ s in
      defer { s.held = [] }; return s.held
    }) { commit() }
  }
  func has(_ seq: UInt64) -> Bool { state.withLock { $0.stored[seq] != nil } }
  var batches: [[UInt64]] { state.withLock { $0.batches } }
  var heldCount: Int { state.withLock { $0.held.count } }
}

/// Waits for a condition (the writer runs on its own thread): outcomes, never durations.
func eventually(_ what: Comment, _ condition: () -> Bool) {
  for _ in 0..<6_000 where !condition() { usleep(5_000) }
  #expect(condition(), what)
}

struct JournalWriterTests {
  static let log = Logger(level: .error, sink: MemorySink())
  static func fault(_ reason: Reason) -> Alert {
    .printerError(PrinterErrorDetails(printer: "sim:a", reason: reason, message: "m"))
  }
  static let journalAlertID = "saveError:settings:alert-journal"
  static var quick: JournalWriter.Timing {
    var t = JournalWriter.Timing()
    t.firstRetry = .milliseconds(5)
    t.longestRetry = .milliseconds(20)
    return t
  }

  static func channel(
    _ fake: FakeJournal, sequence: AlertSequence? = nil, timing: JournalWriter.Timing = quick
  ) -> EventChannel {
    EventChannel(
      writer: JournalWriter(
        persistence: fake, sequence: sequence, reserved: 0, timing: timing, log: log),
      log: log)
  }

  static func alerts(_ s: RecordingSubscriber) -> [AlertEvent] { s.alertEvents }

  @Test func anEventIsDelivered_onlyOnceTheJournalHasIt_andSubscribeSaysTheNewestDelivered() {
    let fake = FakeJournal()
    fake.set(.hang)
    var timing = Self.quick
    timing.deadline = .seconds(3600)  // a slow machine must not turn this into a stall
    let channel = Self.channel(fake, timing: timing)
    let s = RecordingSubscriber(1)
    // Checked as each event is delivered (on the writer's thread), reported here.
    let early = Mutex<[UInt64]>([])
    s.onDeliver = { seq in if !fake.has(seq) { early.withLock { $0.append(seq) } } }
    channel.subscribe(s, topics: [.alerts], since: nil) { _ in [] }
    channel.raise(Self.fault(.coverOpen))
    eventually("the write is out") { fake.heldCount == 1 }
    #expect(s.deliveredSeqs == [])
    #expect(channel.latestSeq == 1 && channel.newestDelivered == 0)
    // A burst while the write is out goes to the journal as one more batch, not one each.
    for i in 0..<49 { channel.raise(Self.fault(i % 2 == 0 ? .mediaEmpty : .mediaJam)) }
    fake.set(.ok)
    fake.release()
    eventually("every event delivered") { s.deliveredSeqs == Array(UInt64(1)...50) }
    #expect(early.withLock { $0 } == [], "delivered before the journal had them")
    #expect(fake.batches == [[1], Array(2...50)])
    let late = RecordingSubscriber(2)
    var result: SubscribeResult?
    channel.subscribe(late, topics: [.alerts], since: 0) { r in
      result = r
      return []
    }
    #expect(result?.seq == 50 && result?.gap == nil)
    #expect(late.deliveredSeqs == Array(UInt64(1)...50))
  }

  @Test func raise_neverWaitsForStorage() {
    let fake = FakeJournal()
    fake.set(.hang)
    var timing = Self.quick
    timing.deadline = .seconds(3600)  // a hang, not a stall: nothing is delivered
    let channel = Self.channel(fake, timing: timing)
    for i in 0..<2000 { channel.raise(Self.fault(i % 2 == 0 ? .paused : .offline)) }
    #expect(channel.latestSeq == 2000)
    #expect(channel.newestDelivered == 0)
    fake.set(.ok)
    fake.release()
    eventually("delivered once written") { channel.newestDelivered == 2000 }
  }

  @Test func aFailedWrite_isDeliveredAnyway_withOneSaveError_andTheRecoveredDiskFillsTheHole()
    throws
  {
    let dir = AlertSequenceTests.tempDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let sequence = AlertSequence(stateDirectory: dir, runtimeDirectory: nil)
    let fake = FakeJournal()
    fake.set(.fail(.storageFull))
    let channel = Self.channel(fake, sequence: sequence)
    let s = RecordingSubscriber(1)
    channel.subscribe(s, topics: [.alerts], since: nil) { _ in [] }
    channel.raise(Self.fault(.coverOpen))
    channel.raise(Self.fault(.mediaEmpty))
    // Two printer events and the journal's alert (which may come between them).
    eventually("delivered with the journal's alert") {
      Self.alerts(s).count == 3 && Self.alerts(s).filter { $0.id == Self.journalAlertID }.count == 1
    }
    let journalAlert = try #require(Self.alerts(s).first { $0.id == Self.journalAlertID })
    guard case .saveError(let d) = journalAlert.alert else {
      Issue.record("not a saveError")
      return
    }
    #expect(d.entity == .settings && d.key == "alert-journal" && d.reason == .storageFull)
    // Retries keep failing: still one alert, and the record names the range.
    eventually("retried") { fake.batches.count >= 4 }
    #expect(Self.alerts(s).filter { $0.id == Self.journalAlertID }.count == 1)
    guard case .valid(let failing) = SequenceFile(path: dir + "/alert-seq", syncs: true).read()
    else {
      Issue.record("no sequence record")
      return
    }
    #expect(failing.gap == 1...3)
    #expect(failing.reserved >= 3)

    fake.set(.ok)
    eventually("the journal caught up") { Self.alerts(s).last?.state == .cleared }
    #expect(Self.alerts(s).last?.id == Self.journalAlertID)
    #expect((1...3).allSatisfy(fake.has))
    guard case .valid(let recovered) = SequenceFile(path: dir + "/alert-seq", syncs: true).read()
    else {
      Issue.record("no sequence record")
      return
    }
    #expect(recovered.gap == nil)
  }

  @Test func aStalledWrite_isDeliveredAfterTheDeadline_andSoIsWhatFollows() {
    let fake = FakeJournal()
    fake.set(.hang)
    var timing = Self.quick
    timing.deadline = .milliseconds(50)
    let channel = Self.channel(fake, timing: timing)
    let s = RecordingSubscriber(1)
    channel.subscribe(s, topics: [.alerts], since: nil) { _ in [] }
    channel.raise(Self.fault(.coverOpen))
    eventually("delivered past the deadline, with the stall reported") {
      Self.alerts(s).map(\.id) == ["printerError:sim:a", Self.journalAlertID]
    }
    channel.raise(Self.fault(.offline))
    eventually("delivered while the write still hangs") { s.deliveredSeqs == [1, 2, 3] }
    #expect(fake.heldCount == 1)
    fake.set(.ok)
    fake.release()
    eventually("caught up") { Self.alerts(s).last?.state == .cleared }
    #expect((1...4).allSatisfy(fake.has))
  }

  @Test func seqsAreReservedInTheSequenceFile_beforeTheyAreDelivered_andStopSeals() throws {
    let dir = AlertSequenceTests.tempDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let sequence = AlertSequence(stateDirectory: dir, runtimeDirectory: nil)
    let fake = FakeJournal()
    let channel = Self.channel(fake, sequence: sequence)
    let s = RecordingSubscriber(1)
    let reader = SequenceFile(path: dir + "/alert-seq", syncs: true)
    let unreserved = Mutex<[UInt64]>([])
    s.onDeliver = { seq in
      guard case .valid(let r) = reader.read(), r.reserved >= seq else {
        unreserved.withLock { $0.append(seq) }
        return
      }
    }
    channel.subscribe(s, topics: [.alerts], since: nil) { _ in [] }
    for i in 0..<3000 { channel.raise(Self.fault(i % 2 == 0 ? .paused : .offline)) }
    eventually("all delivered") { channel.newestDelivered == 3000 }
    #expect(unreserved.withLock { $0 } == [], "delivered beyond the recorded reservation")
    channel.stopJournal(timeout: .seconds(30))
    guard case .valid(let sealed) = reader.read() else {
      Issue.record("no sequence record after the stop")
      return
    }
    #expect(sealed.reserved == 3000 && sealed.sealed && sealed.gap == nil && !sealed.degraded)
  }
}
