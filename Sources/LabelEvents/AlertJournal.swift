import FoundationEssentials
import LabelCore

/// The alert channel's bookkeeping, without locks or I/O: the one sequence, the retained
/// events for `since` replay, and the active set keyed by alert id.
///
/// Retention is by count and by age; what falls out is remembered as `droppedThrough` so a
/// replay from before it reports a gap. Events a previous run may have delivered without
/// journaling them (or whose rows could not be read back) are `lost`: a replay over them
/// reports a gap too, never a silent hole.
package struct AlertJournal {
  /// The last seq handed out (not necessarily delivered yet: see `EventChannel`).
  package private(set) var latestSeq: UInt64
  private var retained: [AlertEvent] = []
  /// Each retained event's notification line (same index as `retained`), encoded the
  /// first time it is sent and kept while the event is: a replay copies lines instead of
  /// encoding the journal again for every `subscribe` with an old `since` (which made
  /// such a replay cost more CPU, under the channel's lock, the fuller the journal).
  /// About 300 bytes an event sent.
  private var lines: [[UInt8]?] = []
  private var head = 0
  package private(set) var active: [String: AlertEvent] = [:]
  /// The highest seq no longer retained (0 when nothing has been dropped).
  package private(set) var droppedThrough: UInt64
  /// Seqs that may have reached clients but are not in the journal (from a previous run).
  package private(set) var lost: ClosedRange<UInt64>?
  package var maxCount: Int
  package var maxAge: TimeInterval
  /// Events after this seq are kept whatever retention says: they have not reached
  /// subscribers yet (the channel moves it as it delivers).
  package var keepAfter: UInt64 = .max

  package init(latestSeq: UInt64 = 0, maxCount: Int = 10_000, maxAge: TimeInterval = 7 * 86_400) {
    self.latestSeq = latestSeq
    self.droppedThrough = latestSeq
    self.maxCount = max(1, maxCount)
    self.maxAge = maxAge
  }

  /// A journal as it was stored: `events` oldest first (seqs ≥ 1, increasing, at most
  /// `latestSeq`), `active` the active set, `lost` what a replay cannot give back.
  package init(
    restoring events: [AlertEvent], active: [AlertEvent], latestSeq: UInt64,
    lost: ClosedRange<UInt64>? = nil, maxCount: Int, maxAge: TimeInterval
  ) {
    self.init(latestSeq: latestSeq, maxCount: maxCount, maxAge: maxAge)
    retained = events
    lines = Array(repeating: nil, count: events.count)
    // Before the oldest retained event nothing can be replayed; with none retained, nothing
    // up to now can (the store may hold events this run could not read).
    if let first = events.first { droppedThrough = first.seq > 0 ? first.seq - 1 : 0 }
    self.lost = lost
    for event in active { self.active[event.id] = event }
    prune(now: Date())
  }

  package var retainedCount: Int { retained.count - head }

  /// Raises or updates `alert`. Returns nil when an identical alert is already active:
  /// repeating an unchanged condition is not a new event.
  package mutating func raise(_ alert: Alert, at time: Date) -> AlertEvent? {
    if let current = active[alert.id], current.alert == alert { return nil }
    let event = append(alert, state: .active, at: time)
    active[alert.id] = event
    return event
  }

  /// Clears the active alert with `id` (the condition went away). Nil when none is active.
  package mutating func clear(id: String, at time: Date) -> AlertEvent? {
    guard let current = active.removeValue(forKey: id) else { return nil }
    return append(current.alert, state: .cleared, at: time)
  }

  /// Marks the active alert `id` dismissed by a client. Nil when none is active.
  package mutating func dismiss(id: String, at time: Date) -> AlertEvent? {
    guard let current = active.removeValue(forKey: id) else { return nil }
    return append(current.alert, state: .dismissed, at: time)
  }

  /// Active alerts, oldest first.
  package var activeEvents: [AlertEvent] { active.values.sorted { $0.seq < $1.seq } }

  /// Whether a replay of everything after `since` would miss events: some were dropped by
  /// retention or lost by a previous run, or `since` is newer than anything published
  /// (`newest`), so it comes from a sequence this journal never had.
  package func gap(since: UInt64, newest: UInt64) -> Bool {
    since < droppedThrough || since > newest || (lost.map { since < $0.upperBound } ?? false)
  }

  /// Every retained event with `since < seq ≤ through`, oldest first, at most `limit`,
  /// and whether a replay from `since` misses events (`gap(since:newest:)`).
  package func events(since: UInt64, limit: Int = .max, through: UInt64 = .max) -> (
    events: [AlertEvent], gap: Bool
  ) {
    let newest = min(through, latestSeq)
    let lo = firstIndex(after: since)
    var end = lo
    while end < retained.count && end - lo < limit && retained[end].seq <= newest { end += 1 }
    return (Array(retained[lo..<end]), gap(since: since, newest: newest))
  }

  /// Retained events with `since < seq ≤ through`, oldest first, at most `limit`, as
  /// notification lines; `encode` makes those not encoded yet, which are kept.
  package mutating func lines(
    since: UInt64, limit: Int = .max, through: UInt64 = .max, encode: (AlertEvent) -> [UInt8]
  ) -> [(seq: UInt64, line: [UInt8])] {
    let newest = min(through, latestSeq)
    var out: [(seq: UInt64, line: [UInt8])] = []
    var index = firstIndex(after: since)
    while index < retained.count && out.count < limit && retained[index].seq <= newest {
      let line = lines[index] ?? encode(retained[index])
      lines[index] = line
      out.append((retained[index].seq, line))
      index += 1
    }
    return out
  }

  /// Retained events with `after < seq ≤ through` (the journal writer's next batch).
  package func events(after: UInt64, through: UInt64) -> ArraySlice<AlertEvent> {
    let lo = firstIndex(after: after)
    var end = lo
    while end < retained.count && retained[end].seq <= through { end += 1 }
    return retained[lo..<end]
  }

  /// Events are in seq order: binary-search the first retained one after `seq`.
  private func firstIndex(after seq: UInt64) -> Int {
    var lo = head
    var hi = retained.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if retained[mid].seq <= seq { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }

  /// Drops events beyond the count limit or older than the age limit.
  package mutating func prune(now: Date) {
    let cutoff = now.addingTimeInterval(-maxAge)
    while head < retained.count && retained[head].seq <= keepAfter
      && (retained.count - head > maxCount || retained[head].time < cutoff)
    {
      droppedThrough = retained[head].seq
      lines[head] = nil  // its line goes with it, not at the next compaction
      head += 1
    }
    if head > 4096 && head * 2 > retained.count {
      retained.removeFirst(head)
      lines.removeFirst(head)
      head = 0
    }
    // Once retention is past the lost seqs, `droppedThrough` reports the gap alone.
    if let lost, droppedThrough >= lost.upperBound { self.lost = nil }
  }

  private mutating func append(_ alert: Alert, state: AlertState, at time: Date) -> AlertEvent {
    latestSeq += 1
    let event = AlertEvent(seq: latestSeq, state: state, time: time, alert: alert)
    retained.append(event)
    lines.append(nil)
    prune(now: time)
    return event
  }
}
