/// Where the alert sequence continues at start-up, decided from everything that survived the
/// last run: the sequence file's copies, the journal's stored seqs and the legacy SQLite
/// reservation. Pure, so every case is a table test.
///
/// The rule: the next seq is one past the highest seq any of them knows (a clean stop sealed
/// the last seq used, so it continues without a jump; after a crash it jumps past the
/// reserved block). When that cannot be trusted (nothing readable, a corrupt or missing
/// sequence file beside stored events, a previous run that could not record its
/// reservations, or one that crashed with no runtime mirror to confirm the state copy), the
/// Unix time in milliseconds is a floor: a seq handed out before is below it unless more
/// than 1,000 seqs a second were used, or the clock went back. What that run delivered
/// after its newest stored event is then unknown, so a replay over it reports a gap.
package struct SequenceStart: Equatable {
  /// What the journal's store holds (nil when it could not be read at all).
  package struct Stored: Equatable {
    /// The highest seq of a readable event row (alerts or alert_latest), 0 for none.
    package var maxSeq: UInt64 = 0
    /// `alert_seq_reserved` in `settings`, left by labeld before the sequence file.
    package var legacyReserved: UInt64?
    package var hasEvents = false
    /// Rows whose seq is known but whose event cannot be read: holes for a replay.
    package var unreadable: [UInt64] = []

    package init(
      maxSeq: UInt64 = 0, legacyReserved: UInt64? = nil, hasEvents: Bool = false,
      unreadable: [UInt64] = []
    ) {
      self.maxSeq = maxSeq
      self.legacyReserved = legacyReserved
      self.hasEvents = hasEvents
      self.unreadable = unreadable
    }
  }

  /// The first seq to hand out.
  package var next: UInt64
  /// The newest event stored: what `subscribe` reports until something newer is delivered.
  package var newest: UInt64
  /// Seqs a replay cannot give back: events delivered without being journaled, unreadable rows.
  package var lost: ClosedRange<UInt64>?
  package var usesFloor = false
  /// Why the floor was taken, or what else is worth a log line.
  package var notes: [String] = []
  /// Corrupt copies: reported as a saveError.
  package var problems: [String] = []
  /// The highest generation read, so the next write is newer than every copy.
  package var generation: UInt64 = 0

  /// `state`: the copy in the state directory; `mirror`: the runtime directory's (nil when
  /// there is none).
  package static func decide(
    state: (name: String, read: SequenceFile.Read),
    mirror: (name: String, read: SequenceFile.Read)?, stored: Stored?, nowMillis: UInt64
  ) -> SequenceStart {
    var valid: [SequenceRecord] = []
    var problems: [String] = []
    for (name, read) in [state] + (mirror.map { [$0] } ?? []) {
      switch read {
      case .valid(let r): valid.append(r)
      case .corrupt(let why):
        problems.append("the alert sequence file \(name) cannot be read: \(why)")
      case .missing: break
      }
    }
    let witnessed: Bool
    if case .valid? = mirror?.read { witnessed = true } else { witnessed = false }
    let newestRecord = valid.max { $0.generation < $1.generation }
    let known =
      ([stored?.maxSeq, stored?.legacyReserved] + valid.map(\.reserved)).compactMap { $0 }
      .max() ?? 0
    var start = SequenceStart(
      next: known + 1, newest: stored?.maxSeq ?? 0,
      lost: stored.flatMap { s in s.unreadable.min().map { $0...s.unreadable.max()! } },
      problems: problems, generation: newestRecord?.generation ?? 0)
    start.lost = hull(start.lost, newestRecord?.gap)

    var why: String?
    if !problems.isEmpty {
      why = "a copy of the sequence file is corrupt"
    } else if newestRecord == nil, stored == nil {
      why = "neither the sequence file nor the store can be read"
    } else if newestRecord == nil, let stored, stored.hasEvents, stored.legacyReserved == nil {
      why = "the sequence file is missing but the journal has events"
    } else if let r = newestRecord, !r.sealed, r.degraded {
      why = "the last run could not record every reservation"
    } else if let r = newestRecord, let stored, stored.maxSeq > r.reserved {
      // Even after a seal: the sequence file took no writes while the journal did.
      why = "the journal is ahead of the sequence file"
    } else if newestRecord?.sealed == false, !witnessed {
      // A crash with no mirror to confirm it (a reboot, or no runtime directory): the state
      // copy may have stopped taking writes before the crash without a trace.
      why = "the last run did not stop cleanly and no runtime mirror confirms its record"
    }
    if let why {
      start.takeFloor(nowMillis: nowMillis, because: why)
      // What the last run delivered after the newest stored event is unknown too.
      if start.next - 1 > start.newest {
        start.lost = hull(start.lost, (start.newest + 1)...(start.next - 1))
      }
    }
    return start
  }

  /// Raises `next` to the clock floor (no-op when it is already past it).
  package mutating func takeFloor(nowMillis: UInt64, because why: String) {
    usesFloor = true
    notes.append(why)
    next = max(next, min(nowMillis, SequenceRecord.maxSeq / 2))
  }

  package init(
    next: UInt64, newest: UInt64, lost: ClosedRange<UInt64>? = nil, notes: [String] = [],
    problems: [String] = [], generation: UInt64 = 0
  ) {
    self.next = next
    self.newest = newest
    self.lost = lost
    self.notes = notes
    self.problems = problems
    self.generation = generation
  }
}
