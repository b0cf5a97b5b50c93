import Foundation
import LabelCore
import Observation
import Synchronization
import Testing

@testable import LabelKit

/// The seed's two alerts on one screen: both shown, one after the other, each once.
@Suite struct AlertQueueTests {
  static func printer(_ seq: UInt64, _ name: String, _ state: AlertState = .active) -> AlertUpdate {
    .event(AlertSyncTests.event(seq, name, state))
  }

  static func save(_ seq: UInt64, key: String = "SKU-1", _ state: AlertState = .active)
    -> AlertEvent
  {
    AlertEvent(
      seq: seq, state: state, time: Date(),
      alert: .saveError(
        SaveErrorDetails(
          entity: .product, key: key, reason: .conflict, message: "changed elsewhere",
          expectedVersion: 2, storedVersion: 3)))
  }

  @Test func twoAlertsArrivingTogether_areBothShown_oneAfterTheOther() {
    var q = AlertQueueState()
    q.apply(Self.printer(41, "sim:ql"))
    q.apply(.event(Self.save(42)))
    #expect(q.shown?.id == "printerError:sim:ql")
    #expect(q.waiting.map(\.id) == ["saveError:product:SKU-1"])
    q.acknowledge()
    guard case .saveError(let d, let seq) = q.shown else {
      Issue.record("the save error is not shown next: \(String(describing: q.shown))")
      return
    }
    #expect(seq == 42 && d.expectedVersion == 2 && d.storedVersion == 3)
    q.acknowledge()
    #expect(q.shown == nil && q.waiting.isEmpty)
  }

  @Test func anAlertClearedMeanwhile_isWithdrawn_shownOrWaiting() {
    var q = AlertQueueState()
    q.apply(Self.printer(1, "sim:a"))
    q.apply(Self.printer(2, "sim:b"))
    q.apply(Self.printer(3, "sim:c"))
    q.apply(Self.printer(4, "sim:b", .cleared))
    #expect(q.waiting.map(\.id) == ["printerError:sim:c"])
    q.apply(Self.printer(5, "sim:a", .dismissed))
    #expect(q.shown?.id == "printerError:sim:c", "the next one takes the withdrawn one's place")
    #expect(q.waiting.isEmpty)
  }

  @Test func anAlertUpdatedMeanwhile_keepsItsPlace_withItsLatestWords() {
    var q = AlertQueueState()
    q.apply(Self.printer(1, "sim:a"))
    q.apply(Self.printer(2, "sim:b"))
    q.apply(.event(AlertSyncTests.event(3, "sim:b", reason: .mediaEmpty)))
    q.apply(.event(AlertSyncTests.event(4, "sim:a", reason: .mediaJam)))
    #expect(q.shown?.seq == 4 && q.shown?.message == "sim:a: mediaJam")
    #expect(q.waiting.map(\.seq) == [3])
  }

  @Test func aFailedSaveFromItsAnswer_isShownOnce_whicheverCopyComesFirst() {
    var q = AlertQueueState()
    q.present(Self.save(7))
    q.apply(Self.printer(6, "sim:a"))
    q.apply(.event(Self.save(7)))
    #expect(q.shown?.seq == 7)
    #expect(q.waiting.map(\.seq) == [6], "the channel's copy of 7 is not queued again")

    var r = AlertQueueState()
    r.apply(.event(Self.save(9)))
    r.present(Self.save(9))
    #expect(r.shown?.seq == 9 && r.waiting.isEmpty)
  }

  @Test func aGap_withdrawsWhatEndedUnseen() {
    var q = AlertQueueState()
    q.apply(Self.printer(1, "sim:a"))
    q.apply(Self.printer(2, "sim:b"))
    let ended = AlertSyncTests.event(1, "sim:a")
    q.apply(.gap(AlertGap(after: 2, seq: 90, ended: [ended])))
    #expect(q.shown?.id == "printerError:sim:b" && q.waiting.isEmpty)
  }

  @Test func floor_isJustBeforeTheOldestAlertNotAcknowledged() {
    var q = AlertQueueState()
    #expect(q.floor == nil)
    q.apply(Self.printer(10, "sim:a"))
    q.apply(Self.printer(12, "sim:b"))
    #expect(q.floor == 9)
    q.acknowledge()
    #expect(q.floor == 11)
  }

  /// The observable model a SwiftUI sheet binds `.alert(item:)` to: setting `current` to
  /// nil, as SwiftUI does when the alert closes, shows the next, and observers hear it.
  @MainActor @Test func observableQueue_presentsInTurn_andNotifiesObservers() async {
    let queue = AlertQueue()
    queue.receive(Self.printer(1, "sim:a"))
    queue.receive(Self.printer(2, "sim:b"))
    let changed = Mutex(false)
    withObservationTracking {
      _ = queue.current
    } onChange: {
      changed.withLock { $0 = true }
    }
    #expect(queue.current?.id == "printerError:sim:a")
    queue.current = nil
    #expect(changed.withLock { $0 })
    #expect(queue.current?.id == "printerError:sim:b")
    #expect(queue.receive(.saveFailed(FailedSave(alert: Self.save(3)))))
    #expect(!queue.receive(.printerNotFound(printer: "sim:x")), "other errors are the caller's")
    queue.acknowledge()
    #expect(queue.current?.seq == 3)
  }
}
