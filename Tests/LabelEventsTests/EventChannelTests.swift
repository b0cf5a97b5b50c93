import Foundation
import LabelCore
import LabelWire
import Synchronization
import Testing

@testable import LabelEvents
@testable import LabelLog

/// A subscriber that records what it is given, with a settable replay budget.
final class RecordingSubscriber: EventSubscriber, Sendable {
  let subscriberID: UInt64
  private let state = Mutex<
    (lines: [[UInt8]], budget: Int, catchingUp: Bool, overflowed: Bool, after: UInt64)
  >(
    ([], 1000, false, false, 0))
  init(_ id: UInt64, budget: Int = 1000) {
    subscriberID = id
    state.withLock { $0.budget = budget }
  }
  func deliver(_ message: OutboundMessage) {
    guard !message.bytes.isEmpty else { return }  // as Connection does
    if let seq = message.alertSeq, let check = hook.withLock({ $0 }) { check(seq) }
    state.withLock { $0.lines.append(message.bytes) }
    if message.alertSeq != nil { alertLines.withLock { $0.append(message.bytes) } }
  }
  private let alertLines = Mutex<[[UInt8]]>([])
  /// The alert events received, decoded without going through `JSONValue` (whose decoding
  /// throws and catches on the way, which Swift Testing makes slow in a polling loop).
  var alertEvents: [AlertEvent] {
    struct Line: Decodable { var params: AlertEvent }
    return alertLines.withLock { $0 }.compactMap {
      try? LabelJSON.decoder().decode(Line.self, from: Data($0)).params
    }
  }
  var deliveredSeqs: [UInt64] { alertEvents.map(\.seq) }
  /// Called with each alert's seq as it is delivered (under the channel's lock).
  private let hook = Mutex<(@Sendable (UInt64) -> Void)?>(nil)
  var onDeliver: (@Sendable (UInt64) -> Void)? {
    get { hook.withLock { $0 } }
    set { hook.withLock { $0 = newValue } }
  }
  var lines: [[UInt8]] { state.withLock { $0.lines } }
  func subscribed(after seq: UInt64) { state.withLock { $0.after = seq } }
  var replayBudget: Int { state.withLock { $0.budget } }
  func setCatchingUp(_ c: Bool) { state.withLock { $0.catchingUp = c } }
  func overflowNow() { state.withLock { $0.overflowed = true } }
  var catchingUp: Bool { state.withLock { $0.catchingUp } }
  var overflowed: Bool { state.withLock { $0.overflowed } }
  var after: UInt64 { state.withLock { $0.after } }

  /// Seqs of the alert notifications received, in order.
  var alertSeqs: [Int] {
    state.withLock { $0.lines }.compactMap { line in
      let v = try? LabelJSON.decoder().decode(JSONValue.self, from: Data(line))
      return v?["method"] == "alert" ? v?["params"]?["seq"]?.intValue : nil
    }
  }
  var methods: [String] {
    state.withLock { $0.lines }.map { line in
      let v = try? LabelJSON.decoder().decode(JSONValue.self, from: Data(line))
      return v?["method"]?.stringValue ?? "response"
    }
  }
}

struct EventChannelTests {
  static let log = Logger(level: .error, sink: MemorySink())

  static func fault(_ reason: Reason) -> Alert {
    .printerError(PrinterErrorDetails(printer: "sim:a", reason: reason, message: "m"))
  }
  static let conflict = Alert.saveError(
    SaveErrorDetails(entity: .product, key: "k", reason: .conflict, message: "m"))

  @Test func bothKinds_reachEverySubscriber_inOneOrder() {
    let channel = EventChannel(log: Self.log)
    let subs = (1...3).map { RecordingSubscriber(UInt64($0)) }
    for s in subs {
      channel.subscribe(s, topics: [.alerts], since: nil) { _ in [0x7B, 0x7D, 0x0A] }
    }
    channel.raise(Self.fault(.coverOpen))
    channel.raise(Self.conflict)
    channel.clear(id: Self.fault(.coverOpen).id)
    for s in subs {
      #expect(s.alertSeqs == [1, 2, 3])
      #expect(s.methods == ["response", "alert", "alert", "alert"])
    }
  }

  /// Alert events are logged at info: a printer's fault toggled fifty times is a hundred
  /// info lines and no warning. Only a store that cannot keep labeld's state warns, when
  /// its alert is raised; a version conflict (the client's) and the clearing are info.
  @Test func alertEvents_loggedAtInfo_onlyAFailingStoreWarns() {
    let logged = MemorySink()
    let channel = EventChannel(log: Logger(level: .debug, sink: logged))
    for _ in 0..<50 {
      channel.raise(Self.fault(.mediaEmpty))
      channel.clear(id: Self.fault(.mediaEmpty).id)
    }
    channel.raise(Self.conflict)
    let full = Alert.saveError(
      SaveErrorDetails(entity: .product, key: "k", reason: .storageFull, message: "disk full"))
    channel.raise(full)
    channel.clear(id: full.id)
    let info = logged.lines(at: .info)
    #expect(info.filter { $0.contains("printer=sim:a reason=mediaEmpty") }.count == 100)
    #expect(info.contains { $0.contains("reason=conflict") })
    #expect(info.contains { $0.hasPrefix("alert 103 cleared save") && $0.contains("storageFull") })
    #expect(logged.lines(at: .warning).count == 1)
    #expect(logged.lines(at: .warning).first?.hasPrefix("alert 102 active save") == true)
    #expect(logged.lines(at: .error).isEmpty && logged.lines(at: .notice).isEmpty)
    #expect(logged.all.count == 103)
  }

  @Test func topics_filterJobsAndPrinters() {
    let channel = EventChannel(log: Self.log)
    let alertsOnly = RecordingSubscriber(1)
    let jobsOnly = RecordingSubscriber(2)
    channel.subscribe(alertsOnly, topics: [.alerts], since: nil) { _ in [] }
    channel.subscribe(jobsOnly, topics: [.jobs], since: nil) { _ in [] }
    let now = Date()
    channel.publish(
      job: Job(
        id: 1, printer: "sim:a", copies: 1, createdAt: now, updatedAt: now, owner: JobOwner(uid: 0))
    )
    channel.raise(Self.conflict)
    #expect(alertsOnly.methods == ["alert"])
    #expect(jobsOnly.methods == ["job"])
  }

  @Test func replay_comesInBudgetedChunks_thenGoesLive_withoutGapOrDuplicate() {
    let channel = EventChannel(log: Self.log)
    for i in 0..<10 { channel.raise(Self.fault(i % 2 == 0 ? .mediaEmpty : .mediaJam)) }
    let s = RecordingSubscriber(1, budget: 4)
    channel.subscribe(s, topics: [.alerts], since: 2) { _ in [] }
    #expect(s.after == 2)
    #expect(s.alertSeqs == [3, 4, 5, 6])
    #expect(s.catchingUp)
    channel.raise(Self.fault(.paused))  // seq 11 waits in the journal while replaying
    #expect(s.alertSeqs == [3, 4, 5, 6])
    channel.pump(1)
    channel.pump(1)
    #expect(s.alertSeqs == Array(3...11))
    #expect(!s.catchingUp)
    channel.raise(Self.fault(.offline))
    #expect(s.alertSeqs == Array(3...12))
  }

  @Test func replayOverrunByRetention_overflowsTheSubscriber() {
    let channel = EventChannel(journal: AlertJournal(maxCount: 5), log: Self.log)
    for i in 0..<5 { channel.raise(Self.fault(i % 2 == 0 ? .mediaEmpty : .mediaJam)) }
    let s = RecordingSubscriber(1, budget: 2)
    channel.subscribe(s, topics: [.alerts], since: 0) { _ in [] }
    #expect(s.alertSeqs == [1, 2])
    for i in 0..<5 { channel.raise(Self.fault(i % 2 == 0 ? .coverOpen : .headError)) }
    channel.pump(1)
    #expect(s.overflowed)
  }
}
