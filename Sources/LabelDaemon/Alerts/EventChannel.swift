import Foundation
import LabelCore
import Synchronization

/// Something that receives the channel's notifications: a client connection.
///
/// `deliver` is called with the channel's lock held, so that every subscriber sees events
/// in seq order; it must queue and return, never block, and never call back into the channel.
protocol EventSubscriber: AnyObject, Sendable {
  var subscriberID: UInt64 { get }
  func deliver(_ message: OutboundMessage)
  /// The subscription starts after `seq`: the point an `overflow` resumes from if no alert
  /// has been written to this subscriber yet.
  func subscribed(after seq: UInt64)
  /// How many replayed events the subscriber can take now without exceeding its bound.
  var replayBudget: Int { get }
  /// Whether a replay is still in progress: the subscriber asks for more (`pump`) as its
  /// queue drains.
  func setCatchingUp(_ catchingUp: Bool)
  /// Events it had yet to replay were dropped by retention: overflow, so it resumes and
  /// learns of the gap.
  func overflowNow()
}

/// The one alert channel, and the fan-out of job and printer notifications.
///
/// Alerts of both kinds (`printerError`, `saveError`) get their seq and reach every
/// subscriber under one lock, so two alerts raised in one flow arrive in the order they
/// were raised, to everyone, and neither can hide the other.
final class EventChannel: Sendable {
  private struct Subscription {
    let subscriber: any EventSubscriber
    var topics: Set<Topic>
    /// While replaying: the last seq handed over. Live alerts wait in the journal until
    /// the replay reaches them, so replay and live never overlap or leave a hole.
    var cursor: UInt64?
  }
  private struct State {
    var journal: AlertJournal
    var subscriptions: [UInt64: Subscription] = [:]
    /// Seqs up to here are reserved on disk (never handed out again after a restart).
    var reservedThrough: UInt64
    var persistedSinceForget = 0
  }
  private let state: Mutex<State>
  private let log: Logger
  private let persistence: (any AlertPersistence)?

  init(
    journal: AlertJournal = AlertJournal(), persistence: (any AlertPersistence)? = nil, log: Logger
  ) {
    self.state = Mutex(
      State(journal: journal, reservedThrough: persistence == nil ? .max : journal.latestSeq))
    self.log = log
    self.persistence = persistence
  }

  /// Seqs are reserved on disk in blocks, so reserving costs one write per block.
  private static let reservationBlock: UInt64 = 1024

  /// Records a new event: reserves its seq first if needed, queues the write, and forgets
  /// what retention dropped now and then. Under the lock, so writes go in seq order.
  private func persist(_ event: AlertEvent, in s: inout State) {
    guard let persistence else { return }
    persistence.append(event)
    s.persistedSinceForget += 1
    if s.persistedSinceForget >= 256 {
      s.persistedSinceForget = 0
      persistence.forget(through: s.journal.droppedThrough)
    }
  }

  /// On a clean stop, after every event is written: the reservation shrinks back to the
  /// last seq used, so the sequence continues without a jump.
  func sealSequence() {
    state.withLock { s in
      guard let persistence else { return }
      s.reservedThrough = s.journal.latestSeq
      persistence.reserve(through: s.journal.latestSeq)
    }
  }

  /// Called before the journal hands out the next seq.
  private func reserveNextSeq(in s: inout State) {
    guard let persistence, s.journal.latestSeq + 1 > s.reservedThrough else { return }
    s.reservedThrough = s.journal.latestSeq + Self.reservationBlock
    persistence.reserve(through: s.reservedThrough)
  }

  // MARK: alerts

  /// Raises (or updates) an alert. Returns the event, or the active one when unchanged.
  @discardableResult
  func raise(_ alert: Alert) -> AlertEvent {
    let (event, isNew) = state.withLock { s in
      reserveNextSeq(in: &s)
      if let event = s.journal.raise(alert, at: Date()) {
        persist(event, in: &s)
        fanOut(event, in: &s)
        return (event, true)
      }
      return (s.journal.active[alert.id]!, false)
    }
    if isNew { logEvent(event) }
    return event
  }

  /// Clears the active alert `id`, if any: its condition went away.
  @discardableResult
  func clear(id: String) -> AlertEvent? {
    let event: AlertEvent? = state.withLock { s in
      reserveNextSeq(in: &s)
      guard let event = s.journal.clear(id: id, at: Date()) else { return nil }
      persist(event, in: &s)
      fanOut(event, in: &s)
      return event
    }
    if let event { logEvent(event) }
    return event
  }

  /// A client acknowledged the alert. False for an unknown or inactive id.
  func dismiss(id: String) -> Bool {
    let event: AlertEvent? = state.withLock { s in
      reserveNextSeq(in: &s)
      guard let event = s.journal.dismiss(id: id, at: Date()) else { return nil }
      persist(event, in: &s)
      fanOut(event, in: &s)
      return event
    }
    if let event { logEvent(event) }
    return event != nil
  }

  func activeEvent(id: String) -> AlertEvent? { state.withLock { $0.journal.active[id] } }

  var active: [AlertEvent] { state.withLock { $0.journal.activeEvents } }
  var latestSeq: UInt64 { state.withLock { $0.journal.latestSeq } }

  /// Changes how many alert events (and for how long) are kept for replay (SIGHUP); the
  /// journal trims to the new limits with its next event.
  func setRetention(count: Int, age: TimeInterval) {
    state.withLock {
      $0.journal.maxCount = max(1, count)
      $0.journal.maxAge = age
    }
  }

  /// Queues the event for every alert subscriber. Called with the lock held: this is what
  /// puts one order on the channel.
  private func fanOut(_ event: AlertEvent, in s: inout State) {
    let message = OutboundMessage(
      bytes: Wire.notification(.alert, event), kind: .notification, alertSeq: event.seq)
    for sub in s.subscriptions.values where sub.topics.contains(.alerts) && sub.cursor == nil {
      sub.subscriber.deliver(message)
    }
  }

  /// Logged outside the lock: a slow log reader must never hold up the channel.
  private func logEvent(_ event: AlertEvent) {
    switch event.alert {
    case .printerError(let d):
      log.warning(
        "alert \(event.seq) \(event.state.rawValue) printer=\(d.printer) reason=\(d.reason.rawValue)"
          + (d.job.map { " job=\($0)" } ?? "") + ": \(d.message)")
    case .saveError(let d):
      log.warning(
        "alert \(event.seq) \(event.state.rawValue) save entity=\(d.entity.rawValue) "
          + "key=\(d.key) reason=\(d.reason.rawValue): \(d.message)")
    }
  }

  // MARK: jobs and printers

  func publish(job: Job) {
    publish(.jobs) { Wire.notification(.job, job) }
  }

  func publish(printer: Printer) {
    publish(.printers) { Wire.notification(.printer, printer) }
  }

  private func publish(_ topic: Topic, _ encode: () -> [UInt8]) {
    state.withLock { s in
      var message: OutboundMessage?
      for sub in s.subscriptions.values where sub.topics.contains(topic) {
        if message == nil {
          message = OutboundMessage(bytes: encode(), kind: .notification, alertSeq: nil)
        }
        sub.subscriber.deliver(message!)
      }
    }
  }

  // MARK: subscriptions

  /// Subscribes (or re-subscribes with new topics): queues the response line made by
  /// `respond`, then replays every retained alert after `since` in chunks the subscriber
  /// can take, then streams live events. Both happen under the lock, from one cursor, so
  /// there is no gap and no duplicate between replay and live.
  func subscribe(
    _ subscriber: any EventSubscriber, topics: Set<Topic>, since: UInt64?,
    respond: (SubscribeResult) -> [UInt8]
  ) {
    state.withLock { s in
      let replaying = since != nil && topics.contains(.alerts)
      let gap = replaying && s.journal.events(since: since!, limit: 0).gap
      let result = SubscribeResult(seq: s.journal.latestSeq, gap: gap ? true : nil)
      let start = replaying ? max(since!, gap ? s.journal.droppedThrough : 0) : s.journal.latestSeq
      subscriber.subscribed(after: topics.contains(.alerts) ? (since ?? start) : 0)
      subscriber.deliver(OutboundMessage(bytes: respond(result), kind: .response, alertSeq: nil))
      s.subscriptions[subscriber.subscriberID] = Subscription(
        subscriber: subscriber, topics: topics,
        cursor: replaying ? min(start, s.journal.latestSeq) : nil)
      pump(subscriber.subscriberID, in: &s)
    }
  }

  /// Hands a replaying subscriber its next chunk (called again as its queue drains).
  func pump(_ id: UInt64) {
    state.withLock { pump(id, in: &$0) }
  }

  private func pump(_ id: UInt64, in s: inout State) {
    guard let sub = s.subscriptions[id], var cursor = sub.cursor else { return }
    if cursor < s.journal.droppedThrough {
      s.subscriptions[id] = nil
      sub.subscriber.overflowNow()
      return
    }
    let (events, _) = s.journal.events(since: cursor, limit: sub.subscriber.replayBudget)
    for event in events {
      sub.subscriber.deliver(
        OutboundMessage(bytes: Wire.notification(.alert, event), kind: .replay, alertSeq: event.seq)
      )
      cursor = event.seq
    }
    let caughtUp = cursor >= s.journal.latestSeq
    s.subscriptions[id]?.cursor = caughtUp ? nil : cursor
    sub.subscriber.setCatchingUp(!caughtUp)
  }

  func unsubscribe(_ id: UInt64) {
    _ = state.withLock { $0.subscriptions.removeValue(forKey: id) }
  }

  var subscriberCount: Int { state.withLock { $0.subscriptions.count } }
}
