import LabelCore

/// The alert stream for command-line tools and scripts (`labelctl alerts --follow`): the
/// same algorithm as `AlertStream` (`AlertSync`: every event once, in seq order; the
/// alerts active at a fresh start first; resume after an `overflow`; gaps said), over a
/// `BlockingConnection`, one update per `next()`.
///
/// A lost connection is opened again at once, from the position; when that fails, or the
/// new connection is lost before labeld answered `subscribe`, `next()` throws (a tool then
/// exits, where an app's `AlertStream` would keep trying).
public final class BlockingAlertStream {
  /// Where labeld is looked for, in order.
  public let socketPaths: [String]
  private var sync: AlertSync
  private var connection: BlockingConnection?
  private var ready = FIFOLine<AlertUpdate>()

  /// A stream from `since` (a seq already seen; 0 replays everything retained), or from
  /// now with the alerts active now first.
  public convenience init(socketPath: String, since: UInt64? = nil) {
    self.init(socketPaths: [socketPath], since: since)
  }

  /// The same, at the first of `socketPaths` where labeld listens.
  public init(socketPaths: [String], since: UInt64? = nil) {
    self.socketPaths = socketPaths
    sync = AlertSync(position: since)
  }

  /// The next update, waiting as long as it takes.
  public func next() throws(LabelError) -> AlertUpdate {
    while true {
      if let update = ready.removeFirst() { return update }
      guard let connection else {
        try subscribe()
        continue
      }
      let notification: ServerNotification
      do {
        notification = try connection.nextNotification(timeout: .infinity)
      } catch .connectionLost {
        self.connection = nil
        continue
      }
      try take(notification)
    }
  }

  /// Opens a connection, subscribes from the position and, for a fresh start or after a
  /// gap, merges the active alerts in.
  private func subscribe() throws(LabelError) {
    let opened = try BlockingConnection(socketPaths: socketPaths)
    opened.timeout = 60
    let subscribed = try opened.call(
      Method.subscribe.rawValue, sync.connected(), as: SubscribeResult.self)
    let (snapshot, early) = sync.subscribed(subscribed)
    for update in early { ready.append(update) }
    if snapshot {
      let active = try opened.call(Method.alertsActive.rawValue, [:], as: AlertsResult.self)
      for notification in opened.takeNotifications() { try take(notification) }
      for update in sync.snapshot(active.alerts) { ready.append(update) }
    }
    connection = opened
  }

  private func take(_ notification: ServerNotification) throws(LabelError) {
    switch notification.method {
    case NotificationMethod.alert.rawValue:
      let event = try RequestLine.decode(AlertEvent.self, from: notification.params)
      for update in sync.received(event) { ready.append(update) }
    case NotificationMethod.overflow.rawValue:
      // Dropped for falling behind: the next `next()` resumes from the position, which
      // replays what was sent and not read.
      connection = nil
    default: break
    }
  }
}
