import LabelCore
import LabelWire

/// Something that receives the channel's notifications: a client connection.
///
/// `deliver` is called with the channel's lock held, so that every subscriber sees events
/// in seq order; it must queue and return, never block, and never call back into the channel.
package protocol EventSubscriber: AnyObject, Sendable {
  var subscriberID: UInt64 { get }
  func deliver(_ message: OutboundMessage)
  /// Several messages at once (a replay chunk): the subscriber may write them together.
  func deliver(contentsOf messages: [OutboundMessage])
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

extension EventSubscriber {
  package func deliver(contentsOf messages: [OutboundMessage]) {
    for message in messages { deliver(message) }
  }
}

/// The channel's subscribers, their topics and replay cursors. No lock of its own: it lives
/// in the channel's state and every call is made under the channel's lock, which is what
/// gives every subscriber the same order.
package struct SubscriberSet {
  private struct Subscription {
    let subscriber: any EventSubscriber
    let topics: Set<Topic>
    /// `topics` has `.alerts`: asked of every subscriber for every alert, so kept rather
    /// than hashed each time.
    let alerts: Bool
    /// While replaying: the last seq handed over. Live alerts wait in the journal until
    /// the replay reaches them, so replay and live never overlap or leave a hole.
    var cursor: UInt64?
  }
  private var all: [UInt64: Subscription] = [:]

  package var count: Int { all.count }

  /// Newly delivered alert events (in seq order) to every live alert subscriber; those
  /// still replaying reach them through their replay.
  package func deliver(after: UInt64, through: UInt64, journal: inout AlertJournal) {
    // Subscriber by subscriber, each given the events in seq order. No list of the live
    // subscribers is made first: with a thousand of them, copying it out of the
    // dictionary was a measurable part of a fan-out (docs/benchmarks.md).
    var messages: [OutboundMessage]?
    for sub in all.values where sub.alerts && sub.cursor == nil {
      let events =
        messages
        ?? journal.lines(since: after, through: through, encode: Self.encode).map {
          OutboundMessage(bytes: $0.line, kind: .notification, alertSeq: $0.seq)
        }
      messages = events
      for message in events { sub.subscriber.deliver(message) }
    }
  }

  /// An alert event's notification line (the journal keeps it for replays).
  package static func encode(_ event: AlertEvent) -> [UInt8] { Wire.notification(.alert, event) }

  /// A job or printer notification, encoded only if someone wants it.
  package func publish(_ topic: Topic, _ encode: () -> [UInt8]) {
    var message: OutboundMessage?
    for sub in all.values where sub.topics.contains(topic) {
      if message == nil {
        message = OutboundMessage(bytes: encode(), kind: .notification, alertSeq: nil)
      }
      sub.subscriber.deliver(message!)
    }
  }

  /// Subscribes (or re-subscribes with new topics): queues the response line made by
  /// `respond`, then replays every retained alert after `since` up to `delivered` in
  /// chunks the subscriber can take, then it is live. The result's seq is `newest`, the
  /// newest event published, so a replay always reaches it.
  package mutating func subscribe(
    _ subscriber: any EventSubscriber, topics: Set<Topic>, since: UInt64?,
    journal: inout AlertJournal, newest: UInt64, delivered: UInt64,
    respond: (SubscribeResult) -> [UInt8]
  ) {
    let replaying = since != nil && topics.contains(.alerts)
    let gap = replaying && journal.gap(since: since!, newest: newest)
    let result = SubscribeResult(seq: newest, gap: gap ? true : nil)
    let start = replaying ? max(since!, gap ? journal.droppedThrough : 0) : newest
    subscriber.subscribed(after: topics.contains(.alerts) ? (since ?? start) : 0)
    subscriber.deliver(OutboundMessage(bytes: respond(result), kind: .response, alertSeq: nil))
    all[subscriber.subscriberID] = Subscription(
      subscriber: subscriber, topics: topics, alerts: topics.contains(.alerts),
      cursor: replaying ? min(start, newest) : nil)
    pump(subscriber.subscriberID, journal: &journal, delivered: delivered)
  }

  /// Hands a replaying subscriber its next chunk (called again as its queue drains).
  package mutating func pump(_ id: UInt64, journal: inout AlertJournal, delivered: UInt64) {
    guard let sub = all[id], var cursor = sub.cursor else { return }
    if cursor < journal.droppedThrough {
      all[id] = nil
      sub.subscriber.overflowNow()
      return
    }
    let budget = sub.subscriber.replayBudget
    let events = journal.lines(
      since: cursor, limit: budget, through: delivered, encode: Self.encode)
    sub.subscriber.deliver(
      contentsOf: events.map { OutboundMessage(bytes: $0.line, kind: .replay, alertSeq: $0.seq) })
    if let last = events.last { cursor = last.seq }
    // Fewer than asked for: there is nothing more up to the delivered mark.
    let caughtUp = events.count < budget || cursor >= delivered
    all[id]?.cursor = caughtUp ? nil : cursor
    sub.subscriber.setCatchingUp(!caughtUp)
  }

  package mutating func remove(_ id: UInt64) { all[id] = nil }
}
