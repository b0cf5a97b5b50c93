import Foundation
import LabelCore

/// The alert channel's bookkeeping, without locks or I/O: the one sequence, the retained
/// events for `since` replay, and the active set keyed by alert id.
///
/// Retention is by count and by age; what falls out is remembered as `droppedThrough` so a
/// replay from before it reports a gap.
struct AlertJournal {
  private(set) var latestSeq: UInt64
  private var retained: [AlertEvent] = []
  private var head = 0
  private(set) var active: [String: AlertEvent] = [:]
  /// The highest seq no longer retained (0 when nothing has been dropped).
  private(set) var droppedThrough: UInt64
  var maxCount: Int
  var maxAge: TimeInterval

  init(latestSeq: UInt64 = 0, maxCount: Int = 10_000, maxAge: TimeInterval = 7 * 86_400) {
    self.latestSeq = latestSeq
    self.droppedThrough = latestSeq
    self.maxCount = max(1, maxCount)
    self.maxAge = maxAge
  }

  /// A journal as it was stored: `events` oldest first, `active` the active set.
  init(
    restoring events: [AlertEvent], active: [AlertEvent], latestSeq: UInt64, maxCount: Int,
    maxAge: TimeInterval
  ) {
    self.init(latestSeq: latestSeq, maxCount: maxCount, maxAge: maxAge)
    retained = events
    droppedThrough = events.first.map { $0.seq - 1 } ?? latestSeq
    for event in active { self.active[event.id] = event }
    prune(now: Date())
  }

  var retainedCount: Int { retained.count - head }

  /// Raises or updates `alert`. Returns nil when an identical alert is already active:
  /// repeating an unchanged condition is not a new event.
  mutating func raise(_ alert: Alert, at time: Date) -> AlertEvent? {
    if let current = active[alert.id], current.alert == alert { return nil }
    let event = append(alert, state: .active, at: time)
    active[alert.id] = event
    return event
  }

  /// Clears the active alert with `id` (the condition went away). Nil when none is active.
  mutating func clear(id: String, at time: Date) -> AlertEvent? {
    guard let current = active.removeValue(forKey: id) else { return nil }
    return append(current.alert, state: .cleared, at: time)
  }

  /// Marks the active alert `id` dismissed by a client. Nil when none is active.
  mutating func dismiss(id: String, at time: Date) -> AlertEvent? {
    guard let current = active.removeValue(forKey: id) else { return nil }
    return append(current.alert, state: .dismissed, at: time)
  }

  /// Active alerts, oldest first.
  var activeEvents: [AlertEvent] { active.values.sorted { $0.seq < $1.seq } }

  /// Every retained event with `seq > since`, oldest first, and whether some events after
  /// `since` are no longer retained (or `since` is from a sequence this journal never had).
  func events(since: UInt64, limit: Int = .max) -> (events: [AlertEvent], gap: Bool) {
    let gap = since < droppedThrough || since > latestSeq
    let slice = retained[head...]
    // Events are in seq order: binary-search the first one after `since`.
    var lo = slice.startIndex
    var hi = slice.endIndex
    while lo < hi {
      let mid = (lo + hi) / 2
      if retained[mid].seq <= since { lo = mid + 1 } else { hi = mid }
    }
    let end = limit >= retained.count - lo ? retained.count : lo + limit
    return (Array(retained[lo..<end]), gap)
  }

  /// Drops events beyond the count limit or older than the age limit.
  mutating func prune(now: Date) {
    let cutoff = now.addingTimeInterval(-maxAge)
    while head < retained.count
      && (retained.count - head > maxCount || retained[head].time < cutoff)
    {
      droppedThrough = retained[head].seq
      head += 1
    }
    if head > 4096 && head * 2 > retained.count {
      retained.removeFirst(head)
      head = 0
    }
  }

  private mutating func append(_ alert: Alert, state: AlertState, at time: Date) -> AlertEvent {
    latestSeq += 1
    let event = AlertEvent(seq: latestSeq, state: state, time: time, alert: alert)
    retained.append(event)
    prune(now: time)
    return event
  }
}
