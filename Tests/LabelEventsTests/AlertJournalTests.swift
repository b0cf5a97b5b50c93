import Foundation
import LabelCore
import Testing

@testable import LabelEvents

struct AlertJournalTests {
  static func fault(_ printer: String, _ reason: Reason, job: Int? = nil) -> Alert {
    .printerError(PrinterErrorDetails(printer: printer, reason: reason, job: job, message: "m"))
  }
  static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func oneSequence_activeSetKeyedById() throws {
    var j = AlertJournal()
    let aResult = j.raise(Self.fault("sim:a", .coverOpen), at: Self.t0)
    let a = try #require(aResult)
    let repeated = j.raise(Self.fault("sim:a", .coverOpen), at: Self.t0)
    #expect(repeated == nil)  // unchanged: no event
    let bResult = j.raise(Self.fault("sim:a", .coverOpen, job: 3), at: Self.t0)
    let b = try #require(bResult)
    let save = Alert.saveError(
      SaveErrorDetails(entity: .product, key: "k", reason: .conflict, message: "m"))
    let cResult = j.raise(save, at: Self.t0)
    let c = try #require(cResult)
    #expect([a.seq, b.seq, c.seq] == [1, 2, 3])
    #expect(j.activeEvents.map(\.seq) == [2, 3])  // b replaced a
    let clearedResult = j.clear(id: b.id, at: Self.t0)
    let cleared = try #require(clearedResult)
    #expect(cleared.state == .cleared && cleared.seq == 4)
    let again = j.clear(id: b.id, at: Self.t0)
    #expect(again == nil)
    let dismissedResult = j.dismiss(id: c.id, at: Self.t0)
    let dismissed = try #require(dismissedResult)
    #expect(dismissed.state == .dismissed && dismissed.seq == 5)
    #expect(j.activeEvents.isEmpty)
    #expect(j.events(since: 0).events.map(\.seq) == [1, 2, 3, 4, 5])
  }

  @Test func retentionByCount_reportsGap() {
    var j = AlertJournal(maxCount: 3)
    for i in 0..<6 {
      _ = j.raise(Self.fault("sim:a", i % 2 == 0 ? .mediaEmpty : .mediaJam), at: Self.t0)
    }
    #expect(j.retainedCount == 3)
    #expect(j.droppedThrough == 3)
    let (events, gap) = j.events(since: 1)
    #expect(gap)
    #expect(events.map(\.seq) == [4, 5, 6])
    #expect(j.events(since: 3).gap == false)
    #expect(j.events(since: 5, limit: 10).events.map(\.seq) == [6])
    #expect(j.events(since: 3, limit: 2).events.map(\.seq) == [4, 5])
    #expect(j.events(since: 99).gap)  // from a sequence this journal never had
  }

  @Test func retentionByAge() {
    var j = AlertJournal(maxCount: 100, maxAge: 60)
    _ = j.raise(Self.fault("sim:a", .offline), at: Self.t0)
    _ = j.raise(Self.fault("sim:b", .offline), at: Self.t0.addingTimeInterval(30))
    _ = j.raise(Self.fault("sim:c", .offline), at: Self.t0.addingTimeInterval(90))
    #expect(j.events(since: 0).events.map(\.seq) == [2, 3])
    #expect(j.events(since: 0).gap)
    // Retention drops history, never the active set.
    #expect(j.activeEvents.count == 3)
  }

  /// Replays send each event's line as first encoded: one encoding per event, however
  /// many replays, and the lines follow retention.
  @Test func lines_areEncodedOncePerEvent_andFollowRetention() {
    var j = AlertJournal(maxCount: 3)
    for i in 0..<5 { _ = j.raise(Self.fault("sim:a", .coverOpen, job: i), at: Self.t0) }
    var encoded: [UInt64] = []
    let encode: (AlertEvent) -> [UInt8] = { event in
      encoded.append(event.seq)
      return Array("line \(event.seq)".utf8)
    }
    let first = j.lines(since: 0, encode: encode)
    let second = j.lines(since: 0, encode: encode)
    #expect(first.map(\.seq) == [3, 4, 5])  // retention kept three
    #expect(second.map(\.line) == first.map(\.line))
    #expect(
      first.map { String(decoding: $0.line, as: UTF8.self) } == ["line 3", "line 4", "line 5"])
    #expect(encoded == [3, 4, 5])  // the second replay encoded nothing
    #expect(j.lines(since: 3, limit: 1, encode: encode).map(\.seq) == [4])
    #expect(j.lines(since: 0, through: 4, encode: encode).map(\.seq) == [3, 4])
    _ = j.raise(Self.fault("sim:a", .coverOpen, job: 9), at: Self.t0)
    #expect(j.lines(since: 0, encode: encode).map(\.seq) == [4, 5, 6])
    #expect(encoded == [3, 4, 5, 6])
  }
}
