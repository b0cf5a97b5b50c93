import Foundation
import LabelCore
import Testing

@testable import LabelKit

/// The alert streams' algorithm, case by case, without a daemon: what labeld sends in, what
/// the stream hands out.
@Suite struct AlertSyncTests {
  static func event(
    _ seq: UInt64, _ printer: String, _ state: AlertState = .active, reason: Reason = .coverOpen
  ) -> AlertEvent {
    AlertEvent(
      seq: seq, state: state, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(seq)),
      alert: .printerError(
        PrinterErrorDetails(printer: printer, reason: reason, message: "\(printer): \(reason)")))
  }

  static func seqs(_ updates: [AlertUpdate]) -> [UInt64] {
    updates.compactMap { if case .event(let e) = $0 { e.seq } else { nil } }
  }

  @Test func freshStart_handsOutTheSnapshotThenLiveEvents_andAskesForNoSince() {
    var sync = AlertSync(position: nil)
    let first = sync.connected()
    #expect(first == ["topics": ["alerts"]])
    let asked = sync.subscribed(SubscribeResult(seq: 10)).snapshot
    #expect(asked)
    let held = sync.received(Self.event(11, "sim:b"))
    #expect(held.isEmpty, "held while the snapshot is asked")
    let out = sync.snapshot([Self.event(4, "sim:a"), Self.event(9, "sim:c")])
    #expect(Self.seqs(out) == [4, 9, 11])
    let got = sync.received(Self.event(12, "sim:a", .cleared))
    #expect(Self.seqs(got) == [12])
    #expect(sync.position == 12)
    #expect(Set(sync.active.keys) == ["printerError:sim:b", "printerError:sim:c"])
  }

  /// The bug of a naive client: a live event read while the snapshot was on its way moved
  /// its watermark past the snapshot's older items, which were then dropped.
  @Test func liveEventRacingTheSnapshot_hidesNoItemOfIt() {
    var sync = AlertSync(position: nil)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 20))
    _ = sync.received(Self.event(21, "sim:x"))
    _ = sync.received(Self.event(22, "sim:y"))
    let out = sync.snapshot([
      Self.event(3, "sim:a"), Self.event(15, "sim:b"), Self.event(22, "sim:y"),
    ])
    #expect(Self.seqs(out) == [3, 15, 21, 22], "every snapshot item, once, in seq order")
  }

  /// The snapshot can be newer than the live events read so far: its item must not come
  /// twice when its live copy arrives.
  @Test func snapshotNewerThanLiveEvents_isNotHandedOutTwice() {
    var sync = AlertSync(position: nil)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 5))
    let out = sync.snapshot([Self.event(7, "sim:a")])
    #expect(Self.seqs(out) == [7])
    let held = sync.received(Self.event(6, "sim:z", .cleared))
    #expect(held.isEmpty)
    let held2 = sync.received(Self.event(7, "sim:a"))
    #expect(held2.isEmpty)
    let got = sync.received(Self.event(8, "sim:a", .cleared))
    #expect(Self.seqs(got) == [8])
  }

  @Test func resume_replaysAfterThePosition_andSkipsDuplicates() {
    var sync = AlertSync(position: 30)
    let first = sync.connected()
    #expect(first == ["topics": ["alerts"], "since": 30])
    let asked = sync.subscribed(SubscribeResult(seq: 33)).snapshot
    #expect(!asked, "no snapshot when resuming")
    var handed: [UInt64] = []
    for seq: UInt64 in [29, 30, 31, 32, 32, 33] {
      handed += Self.seqs(sync.received(Self.event(seq, "sim:a")))
    }
    #expect(handed == [31, 32, 33])
  }

  @Test func reconnectAfterALostConnection_resumesFromThePosition() {
    var sync = AlertSync(position: nil)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 1))
    _ = sync.snapshot([Self.event(1, "sim:a")])
    _ = sync.received(Self.event(2, "sim:b"))
    let first = sync.connected()
    #expect(first == ["topics": ["alerts"], "since": 2])
    let asked = sync.subscribed(SubscribeResult(seq: 4)).snapshot
    #expect(!asked)
    let got = sync.received(Self.event(3, "sim:b", .cleared))
    #expect(Self.seqs(got) == [3])
  }

  /// After a gap, an alert handed out as active whose clearing was lost is named as ended;
  /// one still active and one ended inside the retained replay are not.
  @Test func gap_namesTheAlertsThatEndedUnseen_andHandsOutWhatIsActive() {
    var sync = AlertSync(position: nil)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 3))
    _ = sync.snapshot([Self.event(1, "sim:a"), Self.event(2, "sim:b"), Self.event(3, "sim:c")])
    _ = sync.connected()
    let asked = sync.subscribed(SubscribeResult(seq: 60, gap: true)).snapshot
    #expect(asked)
    // Retained replay starts at 50: sim:c's clearing is in it; sim:a's (at 10) is lost;
    // sim:b is still active (its latest event, 40, is in the snapshot and was lost too).
    _ = sync.received(Self.event(50, "sim:c", .cleared))
    _ = sync.received(Self.event(55, "sim:d"))
    let out = sync.snapshot([Self.event(40, "sim:b", reason: .mediaEmpty), Self.event(55, "sim:d")])
    guard case .gap(let gap) = out.first else {
      Issue.record("no gap first: \(out)")
      return
    }
    #expect(gap.after == 3 && gap.seq == 60)
    #expect(gap.ended.map(\.id) == ["printerError:sim:a"])
    #expect(Self.seqs(Array(out.dropFirst())) == [40, 50, 55])
    #expect(sync.position == 60)
    #expect(Set(sync.active.keys) == ["printerError:sim:b", "printerError:sim:d"])
  }

  /// A `since` newer than the daemon's latest seq (another journal): everything it has is
  /// new, and the alerts handed out before have all ended.
  @Test func reset_whenSinceIsNewerThanTheDaemon_startsAgainFromItsState() {
    var sync = AlertSync(position: nil)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 500))
    _ = sync.snapshot([Self.event(500, "sim:a")])
    _ = sync.connected()
    let asked = sync.subscribed(SubscribeResult(seq: 2, gap: true)).snapshot
    #expect(asked)
    let out = sync.snapshot([Self.event(2, "sim:b")])
    guard case .gap(let gap) = out.first else {
      Issue.record("no gap: \(out)")
      return
    }
    #expect(gap.ended.map(\.id) == ["printerError:sim:a"])
    #expect(Self.seqs(Array(out.dropFirst())) == [2])
    let got = sync.received(Self.event(3, "sim:b", .cleared))
    #expect(Self.seqs(got) == [3])
  }

  @Test func offer_isHandedOutAtOnce_andTheChannelsCopySkipped() {
    var sync = AlertSync(position: 10)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 10))
    let saveError = AlertEvent(
      seq: 13, state: .active, time: Date(),
      alert: .saveError(
        SaveErrorDetails(entity: .product, key: "A", reason: .conflict, message: "conflict")))
    let offered = sync.offer(saveError)
    #expect(offered == .event(saveError))
    let offered2 = sync.offer(saveError)
    #expect(offered2 == nil, "offered twice, handed out once")
    var handed: [UInt64] = []
    for seq: UInt64 in [11, 12] { handed += Self.seqs(sync.received(Self.event(seq, "sim:a"))) }
    handed += Self.seqs(sync.received(saveError))
    handed += Self.seqs(sync.received(Self.event(14, "sim:a", .cleared)))
    #expect(handed == [11, 12, 14], "the channel's copy of 13 is skipped, nothing else")
    #expect(sync.ahead.isEmpty)
    let offered3 = sync.offer(saveError)
    #expect(offered3 == nil, "already handed out")
  }

  @Test func offerOfAnEventTheStreamAlreadyHandedOut_isDropped() {
    var sync = AlertSync(position: 20)
    #expect(sync.offer(Self.event(19, "sim:a")) == nil)
  }

  @Test func anEventBeforeTheSubscribeAnswer_waitsForIt() {
    var sync = AlertSync(position: 5)
    _ = sync.connected()
    let early = sync.received(Self.event(6, "sim:a"))
    #expect(early.isEmpty)
    let (snapshot, updates) = sync.subscribed(SubscribeResult(seq: 6))
    #expect(!snapshot && Self.seqs(updates) == [6])
  }

  @Test func anOlderEventOfAnId_doesNotUndoANewerOne() {
    var sync = AlertSync(position: 10)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 10))
    // A failed save offered from its answer (13) before the channel brings an older event
    // of the same id (12, its first failure).
    _ = sync.offer(AlertQueueTests.save(13))
    _ = sync.received(Self.event(11, "sim:b"))
    _ = sync.received(AlertQueueTests.save(12))
    #expect(sync.active["saveError:product:SKU-1"]?.seq == 13, "the offered event is newer")
    #expect(sync.active["printerError:sim:b"]?.seq == 11)
  }

  @Test func reset_forgetsTheOldJournalsAlerts() {
    var sync = AlertSync(position: nil)
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 900))
    _ = sync.snapshot([Self.event(900, "sim:a")])
    _ = sync.connected()
    _ = sync.subscribed(SubscribeResult(seq: 3, gap: true))
    _ = sync.snapshot([Self.event(2, "sim:a")])
    let cleared = sync.received(Self.event(4, "sim:a", .cleared))
    #expect(Self.seqs(cleared) == [4])
    #expect(sync.active.isEmpty, "the new journal's clearing ends the alert")
  }

  /// A failed save offered while a fresh stream is still subscribing, and cleared before
  /// the stream's starting point: never handed out (its clearing would never follow).
  @Test func anOfferBeforeAFreshStartIsLive_isWeighedOnceLive() {
    var sync = AlertSync(position: nil)
    _ = sync.connected()
    let offered = sync.offer(AlertQueueTests.save(1))
    #expect(offered == nil, "held until the stream is live")
    _ = sync.subscribed(SubscribeResult(seq: 2))
    let out = sync.snapshot([])
    #expect(out.isEmpty, "cleared at 2, before the start: not handed out")
    #expect(sync.active.isEmpty)
    // One that is still active is in the snapshot, and comes from there, once.
    var other = AlertSync(position: nil)
    _ = other.connected()
    _ = other.offer(AlertQueueTests.save(1))
    _ = other.subscribed(SubscribeResult(seq: 1))
    let shown = other.snapshot([AlertQueueTests.save(1)])
    #expect(Self.seqs(shown) == [1])
  }
}
