import LabelCore

/// What an alert stream hands out.
public enum AlertUpdate: Sendable, Equatable {
  /// An event of the channel. Every event after the stream's start is handed out exactly
  /// once, in increasing seq order (an alert offered by a failed save of the same client
  /// comes at once, ahead of its place, and its copy from the channel is skipped).
  case event(AlertEvent)
  /// labeld no longer holds events after `after` (retention), or its journal is another
  /// one: the alerts in `ended` had been handed out as active, are active no more, and the
  /// events that ended them are lost. Withdraw them. Alerts still active follow as events.
  case gap(AlertGap)
}

/// See `AlertUpdate.gap`.
public struct AlertGap: Sendable, Equatable {
  /// The last seq handed out before the gap (nil: none).
  public var after: UInt64?
  /// labeld's latest seq when it said so.
  public var seq: UInt64
  /// Alerts handed out as active whose ending was lost: no longer active.
  public var ended: [AlertEvent]
}

/// The alert streams' algorithm, without a connection: fed what labeld sends, it says what
/// to hand out, so that every event comes exactly once and in seq order across
/// reconnects, replays, gaps and overflows (docs/clients.md, "The algorithm"; the Python
/// kit's `AlertSync` is the same machine).
struct AlertSync {
  enum Phase: Equatable { case subscribing, syncing, live }

  /// The seq of the last event handed out or accounted for; nil before anything.
  private(set) var position: UInt64?
  /// Alerts handed out as active and not ended since, by id.
  private(set) var active: [String: AlertEvent] = [:]
  private(set) var phase = Phase.subscribing
  /// Events that came while `alerts.active` was on its way.
  private var buffer: [AlertEvent] = []
  /// Seqs handed out early (offered), above `position`.
  private(set) var ahead: Set<UInt64> = []
  /// Offers that came before the stream was live: weighed once it is (an offer older than
  /// where a fresh start begins has ended or is in the snapshot; handing it out then would
  /// show an alert whose clearing never follows).
  private var offers: [AlertEvent] = []
  private var gap = false
  private var reset = false
  private var latest: UInt64 = 0

  init(position: UInt64?) { self.position = position }

  /// A new connection: what to send first (`subscribe` with `since`, unless fresh).
  mutating func connected() -> JSONValue {
    phase = .subscribing
    buffer = []
    var params: [String: JSONValue] = ["topics": ["alerts"]]
    if let position, let since = Int(exactly: position) { params["since"] = .int(since) }
    return .object(params)
  }

  /// The subscribe result; true when `alerts.active` must be asked now (a fresh start or
  /// a gap).
  mutating func subscribed(_ result: SubscribeResult) -> (snapshot: Bool, updates: [AlertUpdate]) {
    latest = result.seq
    gap = result.gap == true
    reset = position.map { $0 > result.seq } ?? false
    if position == nil || gap {
      phase = .syncing
      return (true, [])
    }
    phase = .live
    let early = buffer
    buffer = []
    return (false, deliver(early) + takeOffers())
  }

  /// An `alert` notification. labeld answers `subscribe` before it sends any, but one that
  /// came first would wait for the answer, not jump it.
  mutating func received(_ event: AlertEvent) -> [AlertUpdate] {
    switch phase {
    case .subscribing, .syncing:
      buffer.append(event)
      return []
    case .live:
      return deliver([event])
    }
  }

  /// The answer to `alerts.active` asked after `subscribed` returned true.
  mutating func snapshot(_ alerts: [AlertEvent]) -> [AlertUpdate] {
    var bySeq: [UInt64: AlertEvent] = [:]
    for event in alerts + buffer { bySeq[event.seq] = event }
    let merged = bySeq.values.sorted { $0.seq < $1.seq }
    var out: [AlertUpdate] = []
    if gap {
      let floor = reset ? nil : position
      let stillActive = Set(alerts.map(\.id))
      let touched = Set(merged.filter { floor == nil || $0.seq > floor! }.map(\.id))
      let ended = active.values
        .filter { !stillActive.contains($0.id) && !touched.contains($0.id) }
        .sorted { $0.seq < $1.seq }
      for event in ended { active[event.id] = nil }
      out.append(.gap(AlertGap(after: position, seq: latest, ended: ended)))
      if reset {
        // Another journal: its seqs say nothing about the old one's.
        position = nil
        ahead = []
        active = [:]
      }
    }
    out += deliver(merged)
    position = max(position ?? 0, latest)
    ahead = ahead.filter { $0 > position! }
    phase = .live
    buffer = []
    return out + takeOffers()
  }

  /// An event offered from elsewhere (a failed save's answer): handed out now unless it
  /// already was; its copy from the channel is then skipped.
  mutating func offer(_ event: AlertEvent) -> AlertUpdate? {
    guard phase == .live else {
      offers.append(event)
      return nil
    }
    if let position, event.seq <= position { return nil }
    guard ahead.insert(event.seq).inserted else { return nil }
    note(event)
    return .event(event)
  }

  private mutating func takeOffers() -> [AlertUpdate] {
    let waiting = offers
    offers = []
    return waiting.compactMap { offer($0) }
  }

  private mutating func deliver(_ events: [AlertEvent]) -> [AlertUpdate] {
    var out: [AlertUpdate] = []
    for event in events {
      if let position, event.seq <= position { continue }
      position = event.seq
      if ahead.remove(event.seq) != nil { continue }
      note(event)
      out.append(.event(event))
    }
    if let position, !ahead.isEmpty { ahead = ahead.filter { $0 > position } }
    return out
  }

  /// Keeps `active` as the consumer sees it: an event older than the one known for its id
  /// (an offered one came first) changes nothing.
  private mutating func note(_ event: AlertEvent) {
    if let known = active[event.id], known.seq > event.seq { return }
    active[event.id] = event.state == .active ? event : nil
  }
}
