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
  }
  private struct State {
    var journal: AlertJournal
    var subscriptions: [UInt64: Subscription] = [:]
  }
  private let state: Mutex<State>
  private let log: Logger

  init(journal: AlertJournal = AlertJournal(), log: Logger) {
    self.state = Mutex(State(journal: journal))
    self.log = log
  }

  // MARK: alerts

  /// Raises (or updates) an alert. Returns the event, or the active one when unchanged.
  @discardableResult
  func raise(_ alert: Alert) -> AlertEvent {
    state.withLock { s in
      if let event = s.journal.raise(alert, at: Date()) {
        publish(event, in: &s)
        return event
      }
      return s.journal.active[alert.id]!
    }
  }

  /// Clears the active alert `id`, if any: its condition went away.
  @discardableResult
  func clear(id: String) -> AlertEvent? {
    state.withLock { s in
      guard let event = s.journal.clear(id: id, at: Date()) else { return nil }
      publish(event, in: &s)
      return event
    }
  }

  /// A client acknowledged the alert. False for an unknown or inactive id.
  func dismiss(id: String) -> Bool {
    state.withLock { s in
      guard let event = s.journal.dismiss(id: id, at: Date()) else { return false }
      publish(event, in: &s)
      return true
    }
  }

  func activeEvent(id: String) -> AlertEvent? { state.withLock { $0.journal.active[id] } }

  var active: [AlertEvent] { state.withLock { $0.journal.activeEvents } }
  var latestSeq: UInt64 { state.withLock { $0.journal.latestSeq } }

  private func publish(_ event: AlertEvent, in s: inout State) {
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
    let message = OutboundMessage(
      bytes: Wire.notification(.alert, event), kind: .notification, alertSeq: event.seq)
    for sub in s.subscriptions.values where sub.topics.contains(.alerts) {
      sub.subscriber.deliver(message)
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
  /// `respond`, then every retained alert after `since`, then live events, with no gap and
  /// no duplicate between replay and live since all three happen under the lock.
  func subscribe(
    _ subscriber: any EventSubscriber, topics: Set<Topic>, since: UInt64?,
    respond: (SubscribeResult) -> [UInt8]
  ) {
    state.withLock { s in
      var replay: [AlertEvent] = []
      var gap = false
      if let since, topics.contains(.alerts) {
        (replay, gap) = s.journal.events(since: since)
      }
      let result = SubscribeResult(seq: s.journal.latestSeq, gap: gap ? true : nil)
      subscriber.deliver(OutboundMessage(bytes: respond(result), kind: .response, alertSeq: nil))
      for event in replay {
        subscriber.deliver(
          OutboundMessage(
            bytes: Wire.notification(.alert, event), kind: .replay, alertSeq: event.seq))
      }
      s.subscriptions[subscriber.subscriberID] = Subscription(
        subscriber: subscriber, topics: topics)
    }
  }

  func unsubscribe(_ id: UInt64) {
    _ = state.withLock { $0.subscriptions.removeValue(forKey: id) }
  }

  var subscriberCount: Int { state.withLock { $0.subscriptions.count } }
}
