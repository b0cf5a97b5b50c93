import Dispatch
import FoundationEssentials
import LabelConcurrency
import LabelCore
import LabelEvents
import LabelLog
import LabelSQLite
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The daemon's SQLite database (`<state-dir>/labeld.db`) and the one serial queue every
/// access runs on: the connection is not thread-safe, and blocking SQLite calls never run on
/// the cooperative pool.
///
/// Durability: WAL with `synchronous=FULL`. In WAL mode NORMAL already survives a crashed
/// process (kill -9), but a power cut can roll back the last commits; FULL syncs the WAL at
/// every commit, so an answer from labeld ("saved", "job accepted") holds even then. Label
/// volumes are small: the cost (one fsync per commit) is worth it.
///
/// Group commit: the work waiting in one lane when the queue comes round (up to
/// `batchLimit` items of the first, `requestBatchLimit` of the second) runs in one transaction, each item in a savepoint of it, and is answered once that one
/// commit is on disk. A failed item undoes only its own changes; a failed commit fails
/// every item of the batch (none is answered "saved"). Under the soak's load a commit per
/// item was a fsync per job state change: the store's queue spent its time waiting on the
/// disk and a printer whose faults halved its time fell ever further behind the submits.
///
/// Work waiting for the store goes in one of two lanes; the queue takes the first lane's
/// work before the second's.
package enum StoreLane: Sendable {
  /// Work that moves what was already accepted: the printers' job updates and document
  /// reads, the alert journal. A queue that prints is never starved by clients submitting
  /// more (measured: with one FIFO, 16 clients submitting flat out left the printers a
  /// sliver of the store and the backlog grew without end).
  case accepted
  /// Requests from clients, and housekeeping.
  case requests
}

/// `@unchecked Sendable`: `database` is touched only on `queue`.
package final class StateStore: @unchecked Sendable {
  package let path: String
  package let directory: String
  private let queue = BlockingQueue(label: "labeld.store")
  /// Work waiting, by lane: every item queues one block on `queue`, and each block runs
  /// the first item waiting (of the first lane that has one), so order within a lane is
  /// kept and nothing waits behind a later lane.
  private let waiting = Mutex<(accepted: WorkLine, requests: WorkLine)>((WorkLine(), WorkLine()))
  /// Items of the first lane that share one commit at most.
  package static let batchLimit = 64
  /// Items of the second lane that share one commit at most.
  package static let requestBatchLimit = 8
  private var database: Database?
  private let busyTimeoutMS: Int32
  private let log: Logger

  package convenience init(directory: String, busyTimeoutMS: Int32 = 5000, log: Logger) {
    self.init(
      path: directory + "/labeld.db", directory: directory, busyTimeoutMS: busyTimeoutMS, log: log)
  }

  private init(path: String, directory: String, busyTimeoutMS: Int32, log: Logger) {
    self.path = path
    self.directory = directory
    self.busyTimeoutMS = busyTimeoutMS
    self.log = log
  }

  /// A store in memory, for tests: the same schema, queue and group commit, nothing on
  /// disk (SQLite's `:memory:` database, private to this store's one connection).
  package static func inMemory(log: Logger) -> StateStore {
    StateStore(path: ":memory:", directory: "", busyTimeoutMS: 0, log: log)
  }

  /// Opens the database now, so start-up can load state; a failure is reported and
  /// retried by the next access.
  package func open() throws(SaveFailure) {
    let result: Result<Void, SaveFailure> = queue.sync {
      Result { () throws(SaveFailure) in _ = try self.connection() }
    }
    try result.get()
  }

  /// Runs `body` on the store's queue with the open connection. SQLite errors become
  /// `SaveFailure`s (mapped in `SaveFailure.init(_:)`).
  package func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws(SQLiteError) -> T)
    async throws(SaveFailure) -> T
  {
    try await run(.requests, body)
  }

  /// `run` in `lane`.
  package func run<T: Sendable>(
    _ lane: StoreLane, _ body: @escaping @Sendable (Database) throws(SQLiteError) -> T
  ) async throws(SaveFailure) -> T {
    let result: Result<T, SaveFailure> = await withCheckedContinuation { continuation in
      enqueue(
        lane,
        Work(
          run: { db, batched in
            let outcome = self.attempt(db, batched: batched, body)
            let failure: SaveFailure? =
              switch outcome {
              case .success: nil
              case .failure(let f): f
              }
            return (
              failure,
              { batchFailure in
                if let batchFailure, failure == nil {
                  continuation.resume(returning: .failure(batchFailure))
                } else {
                  continuation.resume(returning: outcome)
                }
              }
            )
          },
          fail: { continuation.resume(returning: .failure($0)) }))
    }
    return try result.get()
  }

  /// `body` on the open connection, its failure mapped; in a batch, in a savepoint of its
  /// own so that its failure undoes its changes and no one else's.
  private func attempt<T>(
    _ db: Database, batched: Bool, _ body: (Database) throws(SQLiteError) -> T
  ) -> Result<T, SaveFailure> {
    do throws(SQLiteError) {
      return .success(
        batched ? try db.savepoint { () throws(SQLiteError) in try body(db) } : try body(db))
    } catch {
      // The batch's transaction survived (a constraint, a conflict): the failure is this
      // item's alone, and the connection stays for the others.
      if batched && db.inTransaction { return .failure(SaveFailure(error, directory: directory)) }
      return .failure(failed(error))
    }
  }

  private func enqueue(_ lane: StoreLane, _ work: Work) {
    waiting.withLock {
      switch lane {
      case .accepted: $0.accepted.append(work)
      case .requests: $0.requests.append(work)
      }
    }
    queue.submit { self.runNext() }
  }

  /// Runs what is waiting, up to `batchLimit` items, the first lane's first, in one
  /// transaction (on `queue`; an earlier call or `drain` may have run it all already).
  private func runNext() {
    // One lane a batch: the printers' and the journal's work together when any waits,
    // else a few requests. A printer's next step waits at most for the batch running,
    // so requests go in small batches (a printer takes three steps a job, one after
    // the other: with batches of 64 requests ahead of each, printers fell behind).
    let batch: [Work] = waiting.withLock { w in
      var out: [Work] = []
      if !w.accepted.isEmpty {
        while out.count < Self.batchLimit, let next = w.accepted.removeFirst() { out.append(next) }
      } else {
        while out.count < Self.requestBatchLimit, let next = w.requests.removeFirst() {
          out.append(next)
        }
      }
      return out
    }
    guard !batch.isEmpty else { return }
    let db: Database
    do {
      db = try connection()
    } catch {
      for work in batch { work.fail(error) }
      return
    }
    // BEGIN (deferred): a batch of reads takes no write lock and costs no fsync; a writer
    // outside labeld holding the lock delays only the items that write.
    guard batch.count > 1, !db.inTransaction, (try? db.execute("BEGIN")) != nil else {
      for work in batch { runAlone(work) }
      return
    }
    var done: [(failure: SaveFailure?, finish: @Sendable (SaveFailure?) -> Void)] = []
    for (index, work) in batch.enumerated() {
      done.append(work.run(db, true))
      if database == nil || !db.inTransaction {
        // The failure rolled back the whole transaction (disk full, an I/O error) or
        // closed the connection: what ran before it is undone too, and fails with it. The
        // rest run on their own.
        let failure =
          done.last?.failure
          ?? SaveFailure(reason: .io, message: "the store's transaction was rolled back")
        for item in done { item.finish(item.failure ?? failure) }
        for rest in batch[(index + 1)...] { runAlone(rest) }
        return
      }
    }
    var commitFailure: SaveFailure?
    do throws(SQLiteError) {
      try db.execute("COMMIT")
    } catch {
      if database != nil && db.inTransaction { try? db.execute("ROLLBACK") }
      commitFailure = failed(error)
    }
    for item in done { item.finish(commitFailure) }
  }

  /// One item in its own transaction (or none, as its body decides).
  private func runAlone(_ work: Work) {
    do {
      let db = try connection()
      work.run(db, false).finish(nil)
    } catch {
      work.fail(error)
    }
  }

  /// Items waiting for the queue, both lanes (tests).
  package var waitingCount: Int { waiting.withLock { $0.accepted.count + $0.requests.count } }

  /// Like `run`, for start-up code that has no task to suspend.
  package func runSync<T>(_ body: (Database) throws(SQLiteError) -> T) throws(SaveFailure) -> T {
    try queue.sync { perform(body) }.get()
  }

  /// `body` with the open connection, its SQLite failure mapped (on `queue`).
  private func perform<T>(_ body: (Database) throws(SQLiteError) -> T) -> Result<T, SaveFailure> {
    Result { () throws(SaveFailure) in
      let db = try connection()
      do throws(SQLiteError) {
        return try body(db)
      } catch {
        throw failed(error)
      }
    }
  }

  /// Queues `body` without waiting and hands its outcome to `done` on the store's queue:
  /// the alert journal's writer, which must not block on a stalled disk (it delivers after
  /// a deadline instead).
  package func submit(
    _ body: @escaping @Sendable (Database) throws(SQLiteError) -> Void,
    done: @escaping @Sendable (SaveFailure?) -> Void
  ) {
    enqueue(
      .accepted,
      Work(
        run: { db, batched in
          let failure: SaveFailure? =
            switch self.attempt(db, batched: batched, body) {
            case .success: nil
            case .failure(let f): f
            }
          return (failure, { batchFailure in done(failure ?? batchFailure) })
        },
        fail: { done($0) }))
  }

  /// Returns once everything queued so far has run (the watchdog's proof that the queue
  /// moves, whether or not the database is open).
  package func ping() async { await queue.run {} }

  /// Waits until everything queued so far has run (shutdown, tests).
  package func drain() {
    queue.sync {
      while let work = waiting.withLock({ $0.accepted.removeFirst() ?? $0.requests.removeFirst() })
      {
        runAlone(work)
      }
    }
  }

  package func close() {
    queue.sync {
      try? database?.close()
      database = nil
    }
  }

  /// Maps a failure, and drops the connection when the file system or file may have
  /// changed under it (read-only, I/O error): the next access opens it afresh, so a
  /// remount or a repaired disk is picked up without a restart.
  private func failed(_ error: SQLiteError) -> SaveFailure {
    let failure = SaveFailure(error, directory: directory)
    switch failure.reason {
    case .readOnly, .io, .unavailable:
      try? database?.close()
      database = nil
    case .storageFull, .busy, .conflict:
      break
    }
    return failure
  }

  /// The open connection, opening and migrating it on first use (on `queue`).
  private func connection() throws(SaveFailure) -> Database {
    if let database { return database }
    do {
      let db = try Database(path: path)
      db.setBusyTimeout(milliseconds: busyTimeoutMS)
      // journal_size_limit: after a checkpoint the WAL file is cut back to 4 MiB, so a
      // burst of work does not keep its high-water mark on disk forever.
      try db.execute(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA journal_size_limit=4194304")
      try Schema.migrate(db)
      database = db
      log.info("store: opened \(path) (schema \(Schema.version))")
      return db
    } catch {
      // SQLite says only "cannot open" when it cannot create its -wal/-shm files; the file
      // system says why.
      var fs = statvfs()
      if statvfs(directory, &fs) == 0 && fs.f_flag & UInt(ST_RDONLY) != 0 {
        throw SaveFailure(
          reason: .readOnly, message: "\(directory) is on a read-only file system (\(error))")
      }
      throw SaveFailure(opening: error, path: path)
    }
  }
}

/// One piece of work waiting for the store.
private struct Work: Sendable {
  /// Runs on the store's queue with the open connection (`batched`: inside the batch's
  /// transaction); returns its own failure, and how to answer it once the batch's commit
  /// is known (nil: committed).
  let run:
    @Sendable (Database, _ batched: Bool) -> (
      failure: SaveFailure?, finish: @Sendable (SaveFailure?) -> Void
    )
  /// Answers it without running: the database cannot be opened.
  let fail: @Sendable (SaveFailure) -> Void
}

/// Work waiting in one lane.
private typealias WorkLine = FIFOLine<Work>
