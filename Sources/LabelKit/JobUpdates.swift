import LabelCore

extension LabeldClient {
  /// Every change of job `id` from now until it ends (completed, canceled or aborted),
  /// the ending included. The sequence owns a connection: it subscribes to jobs, then asks
  /// for the job, so no change falls between; after labeld restarts it reconnects and asks
  /// again, so a job that ended meanwhile is reported ended. A change is handed out when
  /// its state, printed count or time differ from the last one, never going back.
  public nonisolated func jobUpdates(job id: Int) -> JobUpdates {
    JobUpdates(route: route, job: id)
  }

  /// Waits until job `id` ends and returns it as it ended: `completed` (every copy
  /// confirmed), `canceled` or `aborted` (its `error` says why). Survives restarts of
  /// labeld; `jobNotFound` when there is no such job.
  public nonisolated func wait(job id: Int) async throws(LabelError) -> Job {
    var last: Job?
    for try await job in jobUpdates(job: id) { last = job }
    guard let last, last.state.isTerminal else { throw .cancelled }
    return last
  }
}

/// See `LabeldClient.jobUpdates(job:)`.
public struct JobUpdates: AsyncSequence, Sendable {
  public typealias Element = Job
  public typealias Failure = LabelError

  let route: LabeldRoute
  let job: Int

  public func makeAsyncIterator() -> Iterator { Iterator(feed: JobFeed(route: route, job: job)) }

  public struct Iterator: AsyncIteratorProtocol {
    let feed: JobFeed

    /// The next change; nil after the one that ended the job, or once the task is
    /// cancelled. Throws `jobNotFound` for an unknown job, `unreachable` for a socket this
    /// user may not open; waits through labeld's restarts.
    public mutating func next() async throws(LabelError) -> Job? { try await feed.next() }

    public mutating func next(isolation actor: isolated (any Actor)?) async throws(LabelError)
      -> Job?
    {
      try await feed.next()
    }
  }
}

actor JobFeed {
  private let route: LabeldRoute
  private let job: Int
  private var ready: [Job] = []
  private var last: Job?
  private var connection: StreamConnection?
  private var getID: Int?
  private var backoff = Backoff()
  private let inbox = OfferInbox()

  init(route: LabeldRoute, job: Int) {
    self.route = route
    self.job = job
  }

  deinit { connection?.close() }

  func next() async throws(LabelError) -> Job? {
    while true {
      if !ready.isEmpty { return ready.removeFirst() }
      if last?.state.isTerminal == true || Task.isCancelled {
        connection?.close()
        connection = nil
        return nil
      }
      guard let connection else {
        await inbox.sleep(for: backoff.next())
        if Task.isCancelled { continue }
        do {
          let opened = try StreamConnection(route: route)
          _ = try opened.send(.subscribe, ["topics": ["jobs"]])
          getID = try opened.send(.jobsGet, ["job": .int(job)])
          self.connection = opened
        } catch {
          // labeld away: try again; what no retry mends (a socket this user may not
          // open, a refused token or certificate): say so.
          if error.isLasting { throw error }
        }
        continue
      }
      let messages: [JSONValue]
      do {
        messages = try await connection.read()
      } catch {
        if error.isLasting { throw error }
        connection.close()
        self.connection = nil
        continue
      }
      for message in messages { try handle(message) }
    }
  }

  private func handle(_ message: JSONValue) throws(LabelError) {
    if let notification = ServerNotification(message) {
      switch notification.method {
      case NotificationMethod.job.rawValue:
        guard notification.params["id"]?.intValue == job else { return }
        consider(try RequestLine.decode(Job.self, from: notification.params))
      case NotificationMethod.overflow.rawValue:
        // Fell behind a busy labeld: ask again on a new connection.
        connection?.close()
        connection = nil
        backoff.reset()
      default: break
      }
      return
    }
    guard let id = message["id"]?.intValue, id == getID else {
      // The subscribe result.
      backoff.reset()
      return
    }
    switch try RequestLine.answer(message) {
    case .success(let result):
      consider(try RequestLine.decode(JobResult.self, from: result).job)
    case .failure(let error): throw LabelError(error)
    }
  }

  /// Hands out `job` if it is news: never older than the last, never the same again, and
  /// nothing after the end.
  private func consider(_ job: Job) {
    if let last {
      // Times have whole seconds: a printed count that went down is older too.
      if last.state.isTerminal || job.updatedAt < last.updatedAt || job.printed < last.printed {
        return
      }
      if job.state == last.state && job.printed == last.printed && job.updatedAt == last.updatedAt {
        return
      }
    }
    last = job
    ready.append(job)
  }
}
