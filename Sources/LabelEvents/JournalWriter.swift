import Dispatch
import FoundationEssentials
import LabelConcurrency
import LabelCore
import LabelLog
import Synchronization

/// The alert journal's write pipeline, on a thread of its own so that the channel's lock
/// never waits for a disk.
///
/// The channel gives each event its seq and wakes the writer; the writer takes every event
/// not yet written as one batch, makes sure the sequence file has reserved its seqs, writes
/// the batch in one transaction (one fsync) and only then lets the channel deliver it. What
/// arrives meanwhile is the next batch, so a burst costs one write, not one per event.
///
/// When the write fails, or has not returned by the deadline, the sequence file first
/// records the range as possibly missing (a replay over it after a restart says `gap`),
/// then the batch is delivered anyway — a full disk is when alerts matter — and one
/// `saveError` (settings, `alert-journal`) says so. Unwritten events stay in memory and go
/// out again with the next batch (or a retry), so a disk that recovers fills the hole;
/// then the record's range is cleared and so is the alert.
///
/// `@unchecked Sendable`: the fields marked "writer thread" are touched only by that thread
/// (and `init`, before it starts); the rest are immutable, atomics or semaphores.
package final class JournalWriter: @unchecked Sendable {
  package struct Timing: Sendable {
    /// How long delivery waits for a journal write before going ahead without it.
    package var deadline: Duration = .seconds(2)
    /// How long a sequence-file write may take before it counts as failed.
    package var recordTimeout: Duration = .seconds(1)
    /// First and longest wait before unwritten events are written again.
    package var firstRetry: Duration = .milliseconds(500)
    package var longestRetry: Duration = .seconds(30)

    package init(
      deadline: Duration = .seconds(2), recordTimeout: Duration = .seconds(1),
      firstRetry: Duration = .milliseconds(500), longestRetry: Duration = .seconds(30)
    ) {
      self.deadline = deadline
      self.recordTimeout = recordTimeout
      self.firstRetry = firstRetry
      self.longestRetry = longestRetry
    }
  }

  /// Seqs are reserved in blocks of this size, the next one when half of it is used.
  package static let block: UInt64 = 1024
  package static let alertKey = "alert-journal"

  private let persistence: any AlertPersistence
  private let sequence: AlertSequence?
  private let timing: Timing
  private let log: Logger
  private let lane = BlockingQueue(label: "labeld.journal")
  private let wakeup = DispatchSemaphore(value: 0)
  private let stopping = Atomic<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)
  /// Set by `start`, before the thread runs.
  private weak var channel: EventChannel?

  // Writer thread:
  /// The reservation some copy of the sequence file holds, and the one asked for.
  private var reserved: UInt64
  private var wanted: UInt64
  /// Seqs a replay cannot give back: from earlier runs, and delivered without the journal
  /// in this one (until the journal catches up).
  private var lost: ClosedRange<UInt64>?
  private var unconfirmed: ClosedRange<UInt64>?
  /// Something was delivered that no record covers: the next start takes the clock floor.
  private var degraded: Bool
  /// The newest seq handed to a write: what is newer makes a new batch.
  private var seen: UInt64 = 0
  private var retry: Duration?
  /// A write has not returned and the writer stopped waiting for it (stopping).
  private var abandoned = false
  private var failing = false
  private var recordFailing = false

  /// `reserved`: what the sequence file already holds (from start-up); `lost`: seqs
  /// earlier runs could not journal; `degraded`: start-up could not record its reservation.
  package init(
    persistence: any AlertPersistence, sequence: AlertSequence?, reserved: UInt64,
    lost: ClosedRange<UInt64>? = nil, degraded: Bool = false, timing: Timing = Timing(),
    log: Logger
  ) {
    self.persistence = persistence
    self.sequence = sequence
    self.reserved = sequence == nil ? .max : reserved
    self.wanted = self.reserved
    self.lost = lost
    self.degraded = degraded
    self.timing = timing
    self.log = log
  }

  package func start(feeding channel: EventChannel) {
    self.channel = channel
    // A lane of its own, off the Swift cooperative pool: it blocks (writes, fsync, and
    // waiting for the next batch on a semaphore, the tool for a thread that waits).
    lane.submit { [self] in run() }
  }

  /// New events are waiting (the channel calls this once per batch, not per event).
  package func wake() { wakeup.signal() }

  /// Ends the thread without a last write (the channel is going away).
  package func requestStop() {
    stopping.store(true, ordering: .releasing)
    wakeup.signal()
  }

  /// A last attempt to write what is unwritten, then the seal (clean stop: the next start
  /// continues after the last seq used). Waits up to `timeout`.
  package func stop(timeout: Duration) {
    requestStop()
    if finished.wait(timeout: .now() + timeout.seconds) == .timedOut {
      log.warning("alert journal: the writer did not finish within \(timeout); not sealed")
    }
  }

  // MARK: the thread

  private func run() {
    var force = false
    while !stopping.load(ordering: .acquiring) {
      guard let worked = step(force: force) else { break }
      force = false
      if worked { continue }
      if let retry {
        force = wakeup.wait(timeout: .now() + retry.seconds) == .timedOut
      } else {
        wakeup.wait()
      }
    }
    if let channel { finish(channel) }
    finished.signal()
  }

  /// Writes the next batch, if any: true when there was one, nil when the channel is gone.
  /// `force` takes the unwritten events again even when nothing is new (a retry).
  private func step(force: Bool) -> Bool? {
    guard let channel else { return nil }
    guard let batch = channel.takeBatch(newerThan: force ? nil : seen) else { return false }
    write(batch, to: channel)
    return true
  }

  private func write(_ batch: JournalBatch, to channel: EventChannel) {
    // `takeBatch` never returns an empty batch.
    guard let first = batch.events.first, let last = batch.events.last else { return }
    let range = first.seq...last.seq
    seen = max(seen, range.upperBound)
    // Retention is past what earlier runs lost: a replay from there says gap anyway.
    if let l = lost, batch.droppedThrough >= l.upperBound { lost = nil }
    reserve(through: range.upperBound)
    let outcome = Mutex<SaveFailure??>(nil)
    persistence.write(batch.events, forgetThrough: batch.forgetThrough) { failure in
      outcome.withLock { $0 = .some(failure) }
      self.wakeup.signal()
    }
    // Stopping while the write is still out: `finish` seals with the range as a gap.
    guard let result = awaitOutcome(outcome, of: range, channel) else {
      abandoned = true
      return
    }
    if let failure = result {
      if !failing {
        failing = true
        log.error(
          "alert journal: cannot write events \(range) (\(failure.message)); "
            + "they are delivered without it and written again later")
      }
      let stable = SaveFailure(reason: failure.reason, message: SaveFailure.summary(failure.reason))
      deliverUnconfirmed(range, because: stable, to: channel)
      retry = min(timing.longestRetry, retry.map { $0 * 2 } ?? timing.firstRetry)
    } else {
      // Caught up: the alert is cleared before the batch is delivered, so a client that
      // saw its own save succeed no longer finds it among the active alerts.
      if let u = unconfirmed, u.upperBound <= range.upperBound { caughtUp(channel) }
      noteDelivery(through: range.upperBound)
      channel.markWritten(through: range.upperBound, forgot: batch.forgetThrough)
      retry = nil
    }
  }

  /// Waits for the write. Past the deadline, delivers the batch, and whatever is raised
  /// until the write returns, as unconfirmed. Nil when asked to stop before it returned.
  private func awaitOutcome(
    _ outcome: borrowing Mutex<SaveFailure??>, of range: ClosedRange<UInt64>,
    _ channel: EventChannel
  ) -> SaveFailure?? {
    // Wake-ups for new events are spent here too: they are picked up as the next batch.
    let deadline = DispatchTime.now() + timing.deadline.seconds
    while true {
      if let result = outcome.withLock({ $0 }) { return result }
      if wakeup.wait(timeout: deadline) == .timedOut { break }
    }
    log.warning(
      "alert journal: a write has not returned in \(timing.deadline); delivering without it")
    deliverUnconfirmed(range, because: Self.stalled(timing.deadline), to: channel)
    var through = range.upperBound
    while true {
      if let result = outcome.withLock({ $0 }) { return result }
      if stopping.load(ordering: .acquiring) { return nil }
      wakeup.wait()
      let newest = channel.latestForWriter()
      if newest > through, outcome.withLock({ $0 }) == nil {
        through = newest
        deliverUnconfirmed(range.lowerBound...newest, because: nil, to: channel)
      }
    }
  }

  /// Records `range` as possibly missing from the journal, then delivers it, and raises
  /// (or updates) the journal's alert when there is a `failure` to report.
  private func deliverUnconfirmed(
    _ range: ClosedRange<UInt64>, because failure: SaveFailure?, to channel: EventChannel
  ) {
    unconfirmed = hull(unconfirmed, range)
    wanted = max(wanted, range.upperBound + Self.block)
    if !writeRecord() { degraded = true }
    noteDelivery(through: range.upperBound)
    channel.release(through: range.upperBound)
    if let failure { channel.raise(Self.alert(failure)) }
  }

  /// The journal has everything delivered: the record's range goes, and so does the alert.
  private func caughtUp(_ channel: EventChannel) {
    unconfirmed = nil
    _ = writeRecord()
    if failing { log.notice("alert journal: caught up; every delivered event is written") }
    failing = false
    channel.clear(id: "saveError:settings:\(Self.alertKey)")
  }

  /// A delivery past what the sequence file holds leaves no trace if the process dies now.
  private func noteDelivery(through seq: UInt64) {
    if seq > reserved { degraded = true }
  }

  /// Reserves the next block once half of the current one is used, before the batch that
  /// crosses the line is delivered.
  private func reserve(through seq: UInt64) {
    guard sequence != nil, seq > reserved - min(reserved, Self.block / 2) else { return }
    wanted = max(wanted, seq + Self.block)
    _ = writeRecord()
  }

  /// Writes what the sequence file should say now; true when some copy has it.
  @discardableResult
  private func writeRecord(sealed: Bool = false) -> Bool {
    guard let sequence else { return true }
    let record = SequenceRecord(
      reserved: wanted, gap: hull(lost, unconfirmed), sealed: sealed, degraded: degraded)
    let outcome = sequence.record(record, timeout: timing.recordTimeout)
    if outcome.recorded {
      reserved = max(reserved, wanted)
      if recordFailing { log.notice("alert sequence: recorded again (\(outcome.confirmed))") }
    } else if !recordFailing {
      log.error("alert sequence: cannot record \(record): \(outcome.failures)")
    }
    recordFailing = !outcome.recorded
    return outcome.recorded
  }

  /// Stopping: one last try for what is unwritten, then the seal. What is still unwritten
  /// is recorded as a gap; the seal says the last seq used, so a clean restart continues
  /// without a jump.
  private func finish(_ channel: EventChannel) {
    // Not behind a write that never returned: it would only wait for it again.
    if !abandoned, let batch = channel.takeBatch(newerThan: nil) { write(batch, to: channel) }
    let (written, latest) = channel.journalMarks()
    if written < latest { unconfirmed = hull(unconfirmed, (written + 1)...latest) }
    wanted = latest
    if writeRecord(sealed: true) { log.info("alert sequence: sealed at \(latest)") }
  }

  // MARK: the journal's alert

  /// The journal's one alert. Its message depends only on the failure's reason (never on
  /// an error text that may vary), so a failure that repeats is not a new event.
  package static func alert(_ failure: SaveFailure) -> Alert {
    .saveError(
      SaveErrorDetails(
        entity: .settings, key: alertKey, reason: failure.reason,
        message: "alerts cannot be written to the journal: \(failure.message); they are still "
          + "delivered, and a replay after a restart reports a gap for them"))
  }

  package static func stalled(_ deadline: Duration) -> SaveFailure {
    SaveFailure(reason: .io, message: "a journal write has not returned in \(deadline)")
  }
}

extension Duration {
  package var seconds: Double {
    let (s, a) = components
    return Double(s) + Double(a) / 1e18
  }
}
