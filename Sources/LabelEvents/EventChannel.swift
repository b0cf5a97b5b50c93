import FoundationEssentials
import LabelCore
import LabelLog
import LabelWire
import Synchronization

/// The one alert channel, and the fan-out of job and printer notifications.
///
/// Alerts of both kinds (`printerError`, `saveError`) get their seq under one lock and reach
/// every subscriber under it, in seq order, so two alerts raised in one flow arrive in the
/// order they were raised, to everyone, and neither can hide the other.
///
/// With a `JournalWriter`, an event is delivered only once the journal has it (or, when the
/// journal fails or stalls, once the sequence file records that it may be missing): an
/// event a client has seen is in the replay after any crash, or the replay says `gap`.
/// The lock never waits for I/O; the writer calls back (`markWritten`, `release`).
package final class EventChannel: Sendable {
  private struct State {
    var journal: AlertJournal
    var subscribers = SubscriberSet()
    /// Seqs up to here have been fanned out (or never existed: the reserved block a crash
    /// skipped): replays go no further, and `waitForDelivery` waits for it.
    var delivered: UInt64
    /// The newest event fanned out (or stored by the last run): `subscribe`'s seq.
    var newest: UInt64
    /// Events up to here are in the journal on disk.
    var written: UInt64
    /// Journal rows up to here have been deleted (retention).
    var forgotten: UInt64
    /// Whether events go through the writer (false without one, and after it stopped).
    var journaled: Bool
    /// The writer has been woken for events it has not looked at yet.
    var writerWoken = false
    /// `waitForDelivery` callers and the seq each waits for.
    var waiters: [(seq: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
  }
  private let state: Mutex<State>
  private let printerObservers = Mutex<[@Sendable (Printer) -> Void]>([])
  private let log: Logger
  private let writer: JournalWriter?

  /// `newest`: the newest event already published (a restored journal's newest stored
  /// event); everything the journal holds up to `latestSeq` is on disk already.
  package init(
    journal: AlertJournal = AlertJournal(), newest: UInt64? = nil, writer: JournalWriter? = nil,
    log: Logger
  ) {
    var journal = journal
    journal.keepAfter = journal.latestSeq
    self.state = Mutex(
      State(
        journal: journal, delivered: journal.latestSeq,
        newest: writer == nil ? journal.latestSeq : min(newest ?? 0, journal.latestSeq),
        written: journal.latestSeq,
        forgotten: journal.droppedThrough, journaled: writer != nil))
    self.log = log
    self.writer = writer
    writer?.start(feeding: self)
  }

  deinit { writer?.requestStop() }

  // MARK: alerts

  /// Raises (or updates) an alert. Returns the event, or the active one when unchanged.
  @discardableResult
  package func raise(_ alert: Alert) -> AlertEvent {
    var unchanged: AlertEvent?
    let event = record { s in
      if let event = s.journal.raise(alert, at: Date()) { return event }
      unchanged = s.journal.active[alert.id]  // the journal returns nil only for this one
      return nil
    }
    return event ?? unchanged!
  }

  /// Clears the active alert `id`, if any: its condition went away.
  @discardableResult
  package func clear(id: String) -> AlertEvent? {
    record { s in s.journal.clear(id: id, at: Date()) }
  }

  /// A client acknowledged the alert. False for an unknown or inactive id.
  package func dismiss(id: String) -> Bool {
    record { s in s.journal.dismiss(id: id, at: Date()) } != nil
  }

  /// Gives a new event its seq (in `change`), then delivers it at once without a writer, or
  /// wakes the writer; never any I/O under the lock.
  private func record(_ change: (inout State) -> AlertEvent?) -> AlertEvent? {
    let (event, wake, ready): (AlertEvent?, Bool, [CheckedContinuation<Void, Never>]) =
      state.withLock { s in
        guard let event = change(&s) else { return (nil, false, []) }
        if !s.journaled {
          s.written = event.seq
          return (event, false, deliver(through: event.seq, in: &s))
        }
        defer { s.writerWoken = true }
        return (event, !s.writerWoken, [])
      }
    for c in ready { c.resume() }
    if wake { writer?.wake() }
    if let event { logEvent(event) }
    return event
  }

  package func activeEvent(id: String) -> AlertEvent? { state.withLock { $0.journal.active[id] } }

  package var active: [AlertEvent] { state.withLock { $0.journal.activeEvents } }
  /// The last seq handed out (delivered or not).
  package var latestSeq: UInt64 { state.withLock { $0.journal.latestSeq } }
  /// The newest event subscribers have been given.
  package var newestDelivered: UInt64 { state.withLock { $0.newest } }

  /// Changes how many alert events (and for how long) are kept for replay (SIGHUP); the
  /// journal trims to the new limits with its next event.
  package func setRetention(count: Int, age: TimeInterval) {
    state.withLock {
      $0.journal.maxCount = max(1, count)
      $0.journal.maxAge = age
    }
  }

  /// Whether every event raised so far has been delivered (a response now cannot
  /// overtake a notification).
  package var allDelivered: Bool {
    state.withLock { s in s.delivered >= s.journal.latestSeq }
  }

  /// Returns once every event raised before the call has been delivered: a response waits
  /// for it, so the notifications a request caused are queued before its response.
  package func waitForDelivery() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { s in
        if s.delivered >= s.journal.latestSeq { return true }
        s.waiters.append((s.journal.latestSeq, c))
        return false
      }
      if ready { c.resume() }
    }
  }

  // MARK: the journal writer's side

  /// Events the writer has not written yet (after the written mark, or after what
  /// retention dropped), and rows to forget with them; nil when nothing is newer than
  /// `seenThrough` (pass nil to take the unwritten events again, for a retry).
  package func takeBatch(newerThan seenThrough: UInt64?) -> JournalBatch? {
    state.withLock { s in
      s.writerWoken = false
      if let seenThrough, s.journal.latestSeq <= seenThrough { return nil }
      let from = max(s.written, s.journal.droppedThrough)
      let events = Array(s.journal.events(after: from, through: s.journal.latestSeq))
      guard !events.isEmpty else { return nil }
      // Rows retention dropped go now and then; at once when unwritten events were dropped
      // too, so the journal on disk never has older events below a hole.
      let dropped = s.journal.droppedThrough
      let forget = dropped >= s.forgotten + 256 || s.written < dropped ? dropped : nil
      return JournalBatch(events: events, forgetThrough: forget, droppedThrough: dropped)
    }
  }

  /// The newest seq, for a writer that delivers without the journal while it stalls.
  package func latestForWriter() -> UInt64 {
    state.withLock { s in
      s.writerWoken = false
      return s.journal.latestSeq
    }
  }

  /// The written mark and the last seq handed out (the seal).
  package func journalMarks() -> (written: UInt64, latest: UInt64) {
    state.withLock { ($0.written, $0.journal.latestSeq) }
  }

  /// The journal has every event through `seq` (and forgot rows through `forgot`):
  /// delivers them.
  package func markWritten(through seq: UInt64, forgot: UInt64?) {
    let ready = state.withLock { s in
      s.written = max(s.written, seq)
      if let forgot { s.forgotten = max(s.forgotten, forgot) }
      return deliver(through: seq, in: &s)
    }
    for c in ready { c.resume() }
  }

  /// Delivers events through `seq` that the journal may not have (it failed or stalls, and
  /// the sequence file records the range); `stopJournal` delivers everything after it.
  package func release(through seq: UInt64, stopJournaling: Bool = false) {
    let ready = state.withLock { s in
      if stopJournaling { s.journaled = false }
      return deliver(through: seq, in: &s)
    }
    for c in ready { c.resume() }
  }

  /// Fans out every event after the delivered mark through `seq`, in order, and returns
  /// the waiters to resume (after the lock). Called with the lock held: this is what puts
  /// one order on the channel.
  private func deliver(through seq: UInt64, in s: inout State) -> [CheckedContinuation<Void, Never>]
  {
    let target = min(seq, s.journal.latestSeq)
    guard target > s.delivered else { return [] }
    s.subscribers.deliver(after: s.delivered, through: target, journal: &s.journal)
    s.delivered = target
    s.newest = target  // every seq of this run is an event
    s.journal.keepAfter = target
    guard !s.waiters.isEmpty else { return [] }
    let ready = s.waiters.filter { $0.seq <= target }.map(\.continuation)
    s.waiters.removeAll { $0.seq <= target }
    return ready
  }

  /// Stops the writer after a last attempt to write, delivers whatever is left and seals
  /// the sequence (clean stop). Later events are delivered without the journal.
  package func stopJournal(timeout: Duration) {
    writer?.stop(timeout: timeout)
    release(through: .max, stopJournaling: true)
  }

  /// Logged outside the lock: a slow log reader must never hold up the channel.
  private func logEvent(_ event: AlertEvent) {
    switch event.alert {
    case .printerError(let d):
      log.log(
        Self.level(of: event),
        "alert \(event.seq) \(event.state.rawValue) printer=\(d.printer) reason=\(d.reason.rawValue)"
          + (d.job.map { " job=\($0)" } ?? "") + ": \(d.message)")
    case .saveError(let d):
      log.log(
        Self.level(of: event),
        "alert \(event.seq) \(event.state.rawValue) save entity=\(d.entity.rawValue) "
          + "key=\(d.key) reason=\(d.reason.rawValue): \(d.message)")
    }
  }

  /// An alert is told to every client on the channel; the log says it at info, so that a
  /// printer's fault toggled for a few seconds is not hundreds of warnings. Only a store
  /// that cannot keep labeld's state (disk full, read-only, locked, failing) is labeld's
  /// own trouble, and a warning when it is raised; a version conflict is the client's.
  private static func level(of event: AlertEvent) -> LogLevel {
    guard case .saveError(let d) = event.alert, event.state == .active, d.reason != .conflict
    else { return .info }
    return .warning
  }

  // MARK: jobs and printers

  package func publish(job: Job) {
    publish(.jobs) { Wire.notification(.job, job) }
  }

  package func publish(printer: Printer) {
    publish(.printers) { Wire.notification(.printer, printer) }
    for observer in printerObservers.withLock({ $0 }) { observer(printer) }
  }

  /// Parts of labeld that follow printers as they come and change (the IPP front's DNS-SD
  /// announcements): called, outside the channel's lock, with every printer published.
  package func observePrinters(_ observer: @escaping @Sendable (Printer) -> Void) {
    printerObservers.withLock { $0.append(observer) }
  }

  /// Job and printer notifications are not journaled: they go out at once.
  private func publish(_ topic: Topic, _ encode: () -> [UInt8]) {
    state.withLock { $0.subscribers.publish(topic, encode) }
  }

  // MARK: subscriptions

  /// Subscribes (or re-subscribes with new topics): the response, then the replay after
  /// `since`, then live events, all under the lock from one cursor, so there is no gap and
  /// no duplicate between replay and live. The result's seq is the newest delivered
  /// event's (0 when there is none), so a replay always reaches it.
  package func subscribe(
    _ subscriber: any EventSubscriber, topics: Set<Topic>, since: UInt64?,
    respond: (SubscribeResult) -> [UInt8]
  ) {
    state.withLock { s in
      s.subscribers.subscribe(
        subscriber, topics: topics, since: since, journal: &s.journal, newest: s.newest,
        delivered: s.delivered, respond: respond)
    }
  }

  /// Hands a replaying subscriber its next chunk (called again as its queue drains).
  package func pump(_ id: UInt64) {
    state.withLock { s in s.subscribers.pump(id, journal: &s.journal, delivered: s.delivered) }
  }

  package func unsubscribe(_ id: UInt64) {
    state.withLock { $0.subscribers.remove(id) }
  }

  package var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

/// Events for one journal transaction, oldest first, and retention's rows to delete with it.
package struct JournalBatch: Sendable {
  package var events: [AlertEvent]
  package var forgetThrough: UInt64?
  /// Retention's mark: a replay from before it reports a gap without help.
  package var droppedThrough: UInt64 = 0

  package init(events: [AlertEvent], forgetThrough: UInt64? = nil, droppedThrough: UInt64 = 0) {
    self.events = events
    self.forgetThrough = forgetThrough
    self.droppedThrough = droppedThrough
  }
}
