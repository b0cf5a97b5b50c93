import FoundationEssentials
import LabelCore
import LabelEvents
import LabelLog
import LabelStore

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Start-up of the alert channel: the journal and the sequence as the last run left them,
/// the first reservation recorded before any seq is handed out, and every damaged piece of
/// stored data reported (log and a `saveError`), never trusted and never skipped in silence.
enum AlertChannelSetup {
  static let dataAlertKey = "alert-journal-data"

  static func make(
    store: StateStore, storeOpened: Bool, config: DaemonConfig, runtimeDirectory: String?,
    timing: JournalWriter.Timing = JournalWriter.Timing(), log: Logger
  ) -> EventChannel {
    let alertStore = AlertStore(store: store)
    var loaded: AlertStore.Loaded?
    if storeOpened {
      do {
        loaded = try alertStore.load(maxCount: config.alertRetentionCount)
      } catch {
        log.error("store: cannot read the alert journal: \(error.message)")
      }
    }
    let sequence = AlertSequence(
      stateDirectory: config.stateDirectory, runtimeDirectory: runtimeDirectory)
    if let why = sequence.mirrorMissing {
      log.info("alert sequence: no mirror beside the socket (\(why)); the state copy only")
    }
    let (stateCopy, mirror) = sequence.readAll()
    var start = SequenceStart.decide(
      state: stateCopy, mirror: mirror, stored: loaded?.stored, nowMillis: nowMillis())
    sequence.continueGenerations(after: start.generation)
    // Nothing is handed out before the reservation is recorded; when it cannot be, the
    // state file system may have failed in the last run too: the clock floor.
    var recorded = sequence.record(
      SequenceRecord(reserved: start.next - 1 + JournalWriter.block, gap: start.lost),
      timeout: .seconds(5))
    if !recorded.recorded {
      log.error("alert sequence: cannot record a reservation: \(recorded.failures)")
      start.takeFloor(nowMillis: nowMillis(), because: "the sequence file cannot be written")
      recorded = sequence.record(
        SequenceRecord(reserved: start.next - 1 + JournalWriter.block, gap: start.lost),
        timeout: .seconds(5))
    }
    if start.usesFloor {
      log.warning(
        "alert sequence: continues at \(start.next) (the clock floor: "
          + "\(start.notes.joined(separator: "; ")))")
    } else {
      log.info("alert sequence: continues at \(start.next)")
    }
    let journal = AlertJournal(
      restoring: loaded?.events ?? [], active: loaded?.active ?? [], latestSeq: start.next - 1,
      lost: start.lost, maxCount: config.alertRetentionCount, maxAge: config.alertRetentionAge)
    let writer = JournalWriter(
      persistence: alertStore, sequence: sequence,
      reserved: recorded.recorded ? start.next - 1 + JournalWriter.block : start.next - 1,
      lost: start.lost, degraded: !recorded.recorded, timing: timing, log: log)
    let channel = EventChannel(journal: journal, newest: start.newest, writer: writer, log: log)
    let problems = (loaded?.problems ?? []) + start.problems
    for problem in problems { log.error("alert journal: \(problem)") }
    if let first = problems.first {
      channel.raise(
        .saveError(
          SaveErrorDetails(
            entity: .settings, key: dataAlertKey, reason: .io,
            message: "stored alert data cannot be read: \(first)"
              + (problems.count > 1 ? " (and \(problems.count - 1) more, see the log)" : "")
              + "; replays over it report a gap")))
    }
    return channel
  }

  static func nowMillis() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return UInt64(max(0, ts.tv_sec)) * 1000 + UInt64(max(0, ts.tv_nsec)) / 1_000_000
  }
}
