import LabelCore

/// How an alert stream's connection is doing, for an app that shows it ("labeld is not
/// reachable; retrying").
public enum AlertStreamStatus: Sendable, Equatable {
  /// Subscribed: events arrive as they happen.
  case live
  /// Not connected; the next attempt is in `retryIn`.
  case waiting(LabelError, retryIn: Duration)
  /// The position could not be stored: after a restart of the app, events since the last
  /// stored one would be handed out again.
  case positionNotStored(String)
  /// Ended for good with what no retry mends (`LabelError.isLasting`: a refused token or
  /// certificate, a route that cannot work, a missing permission): the stream threw it,
  /// and `AlertQueue.run` returns by throwing it. Show it and ask for what mends it.
  case ended(LabelError)
}

extension LabeldClient {
  /// The alert channel, every event exactly once and in seq order (`AlertUpdate`), from
  /// `since` (a seq already handled), else from the position `store` holds, else from now:
  /// the alerts active now first, then everything that follows. `store` is written either
  /// way.
  ///
  /// The stream owns a connection, subscribes, resumes from its position after labeld
  /// restarts or drops it (`overflow`), reconnects with back-off, and after a `gap` says
  /// which alerts it had handed out have ended unseen. With `store`, the position is saved
  /// each time the next update is asked for, and when the loop is left (the one before is
  /// then handled). It ends when the task iterating it is cancelled.
  public nonisolated func alerts(
    since: UInt64? = nil, store: (any AlertPositionStore)? = nil,
    status: (@Sendable (AlertStreamStatus) -> Void)? = nil
  ) -> AlertStream {
    AlertStream(
      route: route, since: since, store: store, status: status, offers: offerBoard)
  }
}

/// See `LabeldClient.alerts(since:store:status:)`.
public struct AlertStream: AsyncSequence, Sendable {
  public typealias Element = AlertUpdate
  public typealias Failure = LabelError

  let route: LabeldRoute
  let since: UInt64?
  let store: (any AlertPositionStore)?
  let status: (@Sendable (AlertStreamStatus) -> Void)?
  let offers: OfferBoard

  public func makeAsyncIterator() -> Iterator {
    let inbox = OfferInbox()
    offers.register(inbox)
    return Iterator(
      feed: AlertFeed(route: route, since: since, store: store, status: status, inbox: inbox))
  }

  public struct Iterator: AsyncIteratorProtocol {
    let feed: AlertFeed

    /// The next update; nil once the task is cancelled. Throws only what retrying cannot
    /// mend: a stored position that cannot be read, a socket this user may not open, an
    /// answer that is not protocol v1.
    public mutating func next() async throws(LabelError) -> AlertUpdate? {
      try await feed.next()
    }

    public mutating func next(isolation actor: isolated (any Actor)?) async throws(LabelError)
      -> AlertUpdate?
    {
      try await feed.next()
    }
  }
}

/// The stream's state and connection; `next()` reads labeld only when nothing is ready, so
/// a consumer that stops asking stops reading, and labeld's own bound (`overflow`, then a
/// resume from the position) protects both sides.
actor AlertFeed {
  private enum Request { case subscribe, snapshot }

  private let route: LabeldRoute
  private let store: (any AlertPositionStore)?
  private let status: (@Sendable (AlertStreamStatus) -> Void)?
  private let inbox: OfferInbox
  private var sync: AlertSync
  private var loaded: Bool
  private var ready: [AlertUpdate] = []
  private var readyHead = 0
  private var connection: StreamConnection?
  private var requests: [Int: Request] = [:]
  private var backoff = Backoff()
  private var lastFailure: LabelError?
  /// The seq of the last event handed out, and the last position stored.
  private var handedOut: UInt64?
  private var stored: UInt64?

  init(
    route: LabeldRoute, since: UInt64?, store: (any AlertPositionStore)?,
    status: (@Sendable (AlertStreamStatus) -> Void)?, inbox: OfferInbox
  ) {
    self.route = route
    self.store = store
    self.status = status
    self.inbox = inbox
    sync = AlertSync(position: since)
    loaded = since != nil || store == nil
    stored = nil
  }

  /// Leaving the loop counts the last update as handled, as asking for the next one does.
  deinit {
    connection?.close()
    let position = readyHead < ready.count ? handedOut : sync.position
    guard let store, loaded, let position, position != stored else { return }
    do {
      try store.save(position)
    } catch {
      status?(.positionNotStored("\(error)"))
    }
  }

  func next() async throws(LabelError) -> AlertUpdate? {
    if !loaded { try load() }
    storePosition()
    while true {
      if Task.isCancelled {
        connection?.close()
        connection = nil
        return nil
      }
      for event in inbox.take() {
        if let update = sync.offer(event) { ready.append(update) }
      }
      if readyHead < ready.count {
        let update = ready[readyHead]
        readyHead += 1
        if readyHead == ready.count {
          ready.removeAll(keepingCapacity: ready.count <= 1024)
          readyHead = 0
        }
        if case .event(let event) = update, !sync.ahead.contains(event.seq) {
          handedOut = event.seq
        }
        return update
      }
      guard let connection else {
        await connect()
        if let lastFailure, lastFailure.isLasting { throw lastFailure }
        continue
      }
      let messages: [JSONValue]
      do {
        messages = try await connection.read()
      } catch .cancelled {
        continue
      } catch {
        if error.isLasting { throw error }
        lost(error)
        continue
      }
      for message in messages { try handle(message) }
    }
  }

  private func load() throws(LabelError) {
    do {
      sync = AlertSync(position: try store?.load())
    } catch let error as LabelError {
      throw error
    } catch {
      throw .storedPosition("\(error)")
    }
    stored = sync.position
    loaded = true
  }

  /// Stores how far the consumer has got: everything accounted for when nothing waits to
  /// be handed out, else the last event handed out.
  private func storePosition() {
    guard let store else { return }
    let position = readyHead < ready.count ? handedOut : sync.position
    guard let position, position != stored else { return }
    do {
      try store.save(position)
      stored = position
    } catch {
      status?(.positionNotStored("\(error)"))
    }
  }

  private func connect() async {
    let wait = backoff.next()
    if let lastFailure, wait > .zero { status?(.waiting(lastFailure, retryIn: wait)) }
    await inbox.sleep(for: wait)
    if Task.isCancelled { return }
    do {
      let opened = try StreamConnection(route: route)
      requests = [try opened.send(.subscribe, sync.connected()): .subscribe]
      connection = opened
    } catch {
      lastFailure = error
    }
  }

  private func lost(_ error: LabelError) {
    connection?.close()
    connection = nil
    lastFailure = error
  }

  private func handle(_ message: JSONValue) throws(LabelError) {
    if let notification = ServerNotification(message) {
      switch notification.method {
      case NotificationMethod.alert.rawValue:
        let event = try RequestLine.decode(AlertEvent.self, from: notification.params)
        append(sync.received(event))
      case NotificationMethod.overflow.rawValue:
        // Dropped for falling behind: resume at once from our own position, which
        // replays whatever was sent and not read.
        lost(.connectionLost)
        backoff.reset()
      default: break
      }
      return
    }
    guard let id = message["id"]?.intValue, let request = requests.removeValue(forKey: id) else {
      return
    }
    let result: JSONValue
    switch try RequestLine.answer(message) {
    case .success(let value): result = value
    case .failure(let error): throw LabelError(error)
    }
    switch request {
    case .subscribe:
      let subscribed = try RequestLine.decode(SubscribeResult.self, from: result)
      let (snapshot, early) = sync.subscribed(subscribed)
      append(early)
      if snapshot, let connection {
        do {
          requests[try connection.send(.alertsActive, [:])] = .snapshot
        } catch {
          return lost(error)
        }
      }
      backoff.reset()
      lastFailure = nil
      status?(.live)
    case .snapshot:
      let active = try RequestLine.decode(AlertsResult.self, from: result)
      append(sync.snapshot(active.alerts))
    }
  }

  private func append(_ updates: [AlertUpdate]) { ready += updates }
}
