import FoundationEssentials
import LabelCore
import LabelEvents
import LabelInterfaces
import LabelSQLite
import Synchronization

/// Every job: rows in the database (with their documents); in memory only the jobs that
/// have not ended (what the printers work on) and rows a failed write left behind, so
/// memory and start-up do not grow with the history. Reads of ended jobs and every list
/// go to the database, through its indexes (`JobQuery`). `create` answers only after the
/// row is committed; every state change is written through before it is published.
package final class JobStore: JobStoring {
  package let store: StateStore
  /// Jobs not ended, and jobs whose row is behind (see `dirty`).
  private let cache = Mutex<[Int: Job]>([:])
  /// What waits: the queue's bounds are checked against it (`create`). Counted where jobs
  /// are made and end, so a check costs the same however many wait.
  private let waiting = Mutex(Waiting())

  private struct Waiting {
    var byPrinter: [String: Int] = [:]
    var total = 0
    var bytes = 0
    /// The document's bytes of each job not ended.
    var sizes: [Int: Int] = [:]
    /// Jobs not ended whose document is still to come.
    var incoming: Set<Int> = []

    mutating func add(printer: String, bytes: Int) {
      byPrinter[printer, default: 0] += 1
      total += 1
      self.bytes += bytes
    }

    mutating func remove(printer: String, bytes: Int) {
      let left = (byPrinter[printer] ?? 1) - 1
      byPrinter[printer] = left > 0 ? left : nil
      total = max(0, total - 1)
      self.bytes = max(0, self.bytes - bytes)
    }

    /// The bound `printer`'s next job of `bytes` would pass, if any.
    func refusal(printer: String, bytes: Int, _ limits: QueueLimits) -> QueueRefusal? {
      let mine = byPrinter[printer] ?? 0
      if mine >= limits.perPrinter {
        return QueueRefusal(
          printer: printer, bound: .printer, limit: limits.perPrinter, waiting: mine)
      }
      if total >= limits.total {
        return QueueRefusal(printer: printer, bound: .total, limit: limits.total, waiting: total)
      }
      if self.bytes + bytes > limits.bytes {
        return QueueRefusal(
          printer: printer, bound: .bytes, limit: limits.bytes, waiting: self.bytes)
      }
      return nil
    }
  }
  /// Jobs whose last write failed: their row is older than the job. Every later job write
  /// writes them too, so the first good write brings every row up to date (and clears the
  /// saveErrors the failures raised).
  private let dirty = Mutex<Set<Int>>([])
  private let created = Atomic<Int>(0)

  /// Jobs created since the last `prune` began (what makes the next one due early).
  package var createdSincePrune: Int { created.load(ordering: .relaxed) }

  /// Since start-up: copies confirmed printed, and jobs ended by their end state (for
  /// `/metrics`; counted where every change of a job passes, at no cost per list).
  package struct Counters: Sendable, Equatable {
    package var copiesPrinted = 0
    package var ended: [JobState: Int] = [:]
  }
  private let counters = Mutex(Counters())
  package var counted: Counters { counters.withLock { $0 } }

  package init(store: StateStore) { self.store = store }

  /// The columns of a job, in the order `job(from:)` reads them.
  package static let columns = """
    id, printer, state, copies, printed, created_at, updated_at, owner_uid, error_reason,
    error_message, origin, origin_user, origin_name, error_document
    """

  /// Loads the jobs that have not ended (through the state index: start-up costs what is
  /// unfinished, not the history). Start-up only.
  package func load() throws(SaveFailure) {
    let (jobs, sizes) = try store.runSync { db throws(SQLiteError) in
      let s = try db.statement(
        "SELECT \(Self.columns) FROM jobs WHERE state IN ('pending', 'held', 'processing')")
      var out: [Int: Job] = [:]
      while try s.step() {
        let job = Self.job(from: s)
        out[job.id] = job
      }
      // Each waiting job's document size, from the documents' primary key (no blob read);
      // a job without a document row waits for its document (IPP's Create-Job).
      let sizes = try db.statement("SELECT length(data) FROM documents WHERE job = ?")
      var bytes: [Int: Int] = [:]
      for id in out.keys {
        bytes[id] = try sizes.bind(id).first { max(0, $0.int(0)) }
      }
      return (out, bytes)
    }
    cache.withLock { $0 = jobs }
    waiting.withLock { w in
      w = Waiting()
      for job in jobs.values {
        w.add(printer: job.printer, bytes: sizes[job.id] ?? 0)
        if sizes[job.id] == nil { w.incoming.insert(job.id) }
      }
      w.sizes = sizes
    }
  }

  /// Whether job `id` waits for its document.
  package func isIncoming(_ id: Int) -> Bool { waiting.withLock { $0.incoming.contains(id) } }

  package func claimIncoming(_ id: Int) -> Bool {
    waiting.withLock { $0.incoming.remove(id) != nil }
  }

  /// Jobs still waiting for their document, oldest first.
  package func incoming() -> [Job] {
    let ids = waiting.withLock { $0.incoming }
    return cache.withLock { all in ids.sorted().compactMap { all[$0] } }
  }

  /// What waits now.
  package func occupancy(printer: String) -> QueueOccupancy {
    waiting.withLock { w in
      QueueOccupancy(printer: w.byPrinter[printer] ?? 0, total: w.total, bytes: w.bytes)
    }
  }

  /// A stored time; one that no calendar can write (NaN, centuries away) is the epoch.
  private static func date(_ seconds: Double) -> Date {
    seconds.isFinite && abs(seconds) < 1e11
      ? Date(timeIntervalSince1970: seconds) : Date(timeIntervalSince1970: 0)
  }

  package static func job(from s: Statement) -> Job {
    // Rows are ours, but a damaged or hand-edited file must not crash the daemon: counts
    // are kept in range (the scheduler adds to them), an impossible uid becomes nobody's.
    let copies = min(max(1, s.int(3)), 1 << 20)
    var job = Job(
      id: s.int(0), printer: s.string(1) ?? "",
      state: JobState(rawValue: s.string(2) ?? "") ?? .aborted,
      copies: copies, printed: min(max(0, s.int(4)), copies),
      createdAt: Self.date(s.double(5)), updatedAt: Self.date(s.double(6)),
      owner: JobOwner(uid: UInt32(exactly: s.int(7)) ?? 65_534))
    if let reason = s.string(8) {
      job.error = JobError(
        reason: Reason(rawValue: reason) ?? .unknown, message: s.string(9) ?? "",
        document: s.string(13).flatMap(DocumentFault.init(rawValue:)))
    }
    // Rows from before labeld kept it have none: they came over the socket.
    if let kind = s.string(10) {
      job.origin = JobOrigin(
        kind: JobOrigin.Kind(rawValue: kind) ?? .socket, user: s.string(11), name: s.string(12))
    }
    return job
  }

  /// Stores a new job (answering only once it is kept). Rows whose earlier write failed
  /// are written in the same transaction; `resolved` names them.
  package func create(_ new: NewJob, within limits: QueueLimits) async throws(SaveFailure)
    -> JobAdmission
  {
    let size = new.document?.bytes.count ?? 0
    let waits = !new.state.isTerminal
    // The place is taken before the write, so concurrent submits cannot both fit into it;
    // given back if the write fails. A job that ended as it came takes none.
    if waits {
      let refused = waiting.withLock { w -> QueueRefusal? in
        if let refusal = w.refusal(printer: new.printer, bytes: size, limits) { return refusal }
        w.add(printer: new.printer, bytes: size)
        return nil
      }
      if let refused { return .refused(refused) }
    }
    let behind = rowsBehind()
    let job: Job
    do {
      job = try await insert(new, now: Date(), behind: behind)
    } catch {
      if waits { waiting.withLock { $0.remove(printer: new.printer, bytes: size) } }
      throw error
    }
    if waits {
      waiting.withLock { w in
        if new.document == nil { w.incoming.insert(job.id) } else { w.sizes[job.id] = size }
      }
      cache.withLock { $0[job.id] = job }
    } else {
      counters.withLock { $0.ended[job.state, default: 0] += 1 }
    }
    created.add(1, ordering: .relaxed)
    return .created(job, resolved: caughtUp(behind))
  }

  /// Gives an incoming job its document, within the bytes bound (the job already has its
  /// place among the waiting jobs). Nil when `id` is not waiting for one.
  package func attach(_ id: Int, document: JobDocument, within limits: QueueLimits)
    async throws(SaveFailure) -> JobAdmission?
  {
    let size = document.bytes.count
    guard let job = live(id) else { return nil }
    let taken = waiting.withLock { w -> QueueRefusal?? in
      guard w.incoming.contains(id) else { return .none }
      if w.bytes + size > limits.bytes {
        return .some(
          QueueRefusal(printer: job.printer, bound: .bytes, limit: limits.bytes, waiting: w.bytes))
      }
      w.incoming.remove(id)
      w.bytes += size
      w.sizes[id] = size
      return .some(nil)
    }
    guard case .some(let refusal) = taken else { return nil }
    if let refusal { return .refused(refusal) }
    do {
      try await store.run { db throws(SQLiteError) in
        try db.statement("INSERT INTO documents (job, data) VALUES (?, ?)")
          .bind(id, document.bytes).run()
      }
    } catch {
      waiting.withLock { w in
        w.incoming.insert(id)
        w.bytes = max(0, w.bytes - size)
        w.sizes[id] = nil
      }
      throw error
    }
    return .created(live(id) ?? job, resolved: [])
  }

  private func insert(_ new: NewJob, now: Date, behind: [Job]) async throws(SaveFailure) -> Job {
    try await store.run { db throws(SQLiteError) in
      try db.transaction { () throws(SQLiteError) in
        try Self.write(behind, db)
        try db.statement(
          """
          INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid,
            origin, origin_user, origin_name, error_reason, error_message, error_document)
          VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """
        ).bind(
          new.printer, new.state.rawValue, new.copies, now.timeIntervalSince1970,
          now.timeIntervalSince1970, Int(new.owner.uid), new.origin.kind.rawValue,
          new.origin.user, new.origin.name, new.error?.reason.rawValue, new.error?.message,
          new.error?.document?.rawValue
        )
        .run()
        let id = Int(db.lastInsertRowID)
        if let document = new.document, !new.state.isTerminal {
          try db.statement("INSERT INTO documents (job, data) VALUES (?, ?)")
            .bind(id, document.bytes).run()
        }
        return Job(
          id: id, printer: new.printer, state: new.state, copies: new.copies,
          printed: 0, createdAt: now, updatedAt: now, owner: new.owner, error: new.error,
          origin: new.origin)
      }
    }
  }

  /// The jobs whose rows are behind, as they stand now.
  package func rowsBehind(plus id: Int? = nil) -> [Job] {
    let ids = dirty.withLock { d in id.map { d.union([$0]) } ?? d }
    return cache.withLock { all in ids.sorted().compactMap { all[$0] } }
  }

  /// Rows written: no longer behind, and an ended job leaves memory (its row has it).
  /// Returns their ids.
  private func caughtUp(_ jobs: [Job]) -> [Int] {
    let ids = jobs.map(\.id)
    dirty.withLock { $0.subtract(ids) }
    cache.withLock { all in
      for job in jobs where job.state.isTerminal && all[job.id]?.state.isTerminal == true {
        all[job.id] = nil
      }
    }
    return ids
  }

  private static func write(_ jobs: [Job], _ db: Database) throws(SQLiteError) {
    for job in jobs {
      try db.statement(
        """
        UPDATE jobs SET state = ?, printed = ?, updated_at = ?, error_reason = ?, error_message = ?,
          error_document = ?
        WHERE id = ?
        """
      ).bind(
        job.state.rawValue, job.printed, job.updatedAt.timeIntervalSince1970,
        job.error?.reason.rawValue, job.error?.message, job.error?.document?.rawValue, job.id
      ).run()
    }
  }

  /// Applies `change`, stamps `updatedAt` and writes the job through, with every row still
  /// behind from an earlier failure. The change stands in memory even when the write fails
  /// (the printer did what it did): the outcome says what to report. Nil for an unknown id.
  package func update(_ id: Int, _ change: @Sendable (inout Job) -> Void) async -> (Job, JobWrite)?
  {
    let changed: (before: Job, after: Job)? = cache.withLock { all in
      guard var job = all[id] else { return nil }
      let before = job
      change(&job)
      job.updatedAt = Date()
      all[id] = job
      return (before, job)
    }
    guard let (before, job) = changed else { return nil }
    if job.state.isTerminal && !before.state.isTerminal {
      waiting.withLock { w in
        w.remove(printer: job.printer, bytes: w.sizes.removeValue(forKey: id) ?? 0)
        w.incoming.remove(id)
      }
    }
    if job.printed > before.printed || (job.state.isTerminal && !before.state.isTerminal) {
      counters.withLock { c in
        c.copiesPrinted += max(0, job.printed - before.printed)
        if job.state.isTerminal && !before.state.isTerminal { c.ended[job.state, default: 0] += 1 }
      }
    }
    let rows = rowsBehind(plus: id)
    do {
      try await store.run(.accepted) { db throws(SQLiteError) in
        try db.transaction { () throws(SQLiteError) in try Self.write(rows, db) }
      }
      return (job, JobWrite(failure: nil, resolved: caughtUp(rows)))
    } catch {
      dirty.withLock { _ = $0.insert(id) }
      return (job, JobWrite(failure: error, resolved: []))
    }
  }

  /// The job as the scheduler holds it (not ended, or a row behind); nil for any other.
  package func live(_ id: Int) -> Job? { cache.withLock { $0[id] } }

  /// A job by id: from memory when it is live, else its row.
  package func get(_ id: Int) async throws(SaveFailure) -> Job? {
    if let job = live(id) { return job }
    return try await store.run { db throws(SQLiteError) in
      try db.statement("SELECT \(Self.columns) FROM jobs WHERE id = ?").bind(id)
        .first(Self.job(from:))
    }
  }

  package static let anyJobSQL = "SELECT 1 FROM jobs WHERE printer = ? LIMIT 1"

  /// Whether any job, ended or not, names `printer`: through the printer index (every job
  /// has its row before it is in memory), in O(log n) however many wait. Only when the
  /// store cannot answer are the jobs in memory looked through.
  package func anyJob(for printer: String) async throws(SaveFailure) -> Bool {
    do {
      return try await store.run { db throws(SQLiteError) in
        try db.statement(Self.anyJobSQL).bind(printer).first { _ in true } ?? false
      }
    } catch {
      if cache.withLock({ $0.values.contains { $0.printer == printer } }) { return true }
      throw error
    }
  }

  /// The job and its document (read from the database).
  /// The job and the document to print, read back from the database. A row without its
  /// document (none is ever accepted empty) is a store that lost data: an `io` failure,
  /// never an empty label sent as if it were the job.
  package func record(_ id: Int) async throws(SaveFailure) -> JobRecord? {
    guard let job = live(id) else { return nil }
    let bytes: [UInt8]? = try await store.run(.accepted) { db throws(SQLiteError) in
      let s = try db.statement("SELECT data FROM documents WHERE job = ?").bind(id)
      return try s.first { $0.blob(0) }
    }
    guard let bytes, !bytes.isEmpty else {
      throw SaveFailure(
        reason: .io, message: "job \(id)'s document is missing from labeld's database")
    }
    return JobRecord(job: job, document: .native(bytes))
  }

  /// Jobs that have not ended, oldest first (what a restart resumes), optionally only
  /// `printer`'s.
  package func unfinished(printer: String? = nil) -> [Job] {
    let incoming = waiting.withLock { $0.incoming }
    return cache.withLock { all in
      all.values.filter {
        !$0.state.isTerminal && (printer == nil || $0.printer == printer)
          && !incoming.contains($0.id)
      }
    }.sorted { $0.id < $1.id }
  }

  /// The id of the `?1 + 1`-th newest ended job: a merge of the three ended states' runs
  /// of the state index, newest first, that stops there (no sort, no unfinished row).
  package static let keptBoundSQL = """
    SELECT id FROM jobs WHERE state = 'completed'
    UNION ALL SELECT id FROM jobs WHERE state = 'canceled'
    UNION ALL SELECT id FROM jobs WHERE state = 'aborted'
    ORDER BY id DESC LIMIT 1 OFFSET ?1
    """

  /// A batch of ended jobs below the count bound (?1), or below the age bound (?2) and
  /// ended before the cutoff (?3): through the state index, never past unfinished rows.
  package static let pruneSQL = """
    DELETE FROM jobs WHERE id IN (
      SELECT id FROM jobs INDEXED BY jobs_by_state WHERE id < max(?1, ?2)
        AND state IN ('completed', 'canceled', 'aborted')
        AND (id < ?1 OR (id < ?2 AND updated_at < ?3))
      LIMIT 5000)
    """

  /// Forgets ended jobs beyond the newest `keep` and those ended before `maxAge` seconds
  /// ago, a batch at a time (other store work goes between batches). Housekeeping: a
  /// failure is tried again next time.
  package func prune(keep: Int, maxAge: TimeInterval) async {
    created.store(0, ordering: .relaxed)
    let cutoff = Date().addingTimeInterval(-maxAge).timeIntervalSince1970
    let bounds: (count: Int, age: Int)
    do {
      bounds = try await store.run { db throws(SQLiteError) in
        // The newest `keep` ended jobs are those from the keep-th newest one up, found
        // through the state index however many jobs wait unfinished (it was the row
        // `keep + unfinished` from the top, whose cost grew with the backlog).
        let byCount =
          keep == 0
          ? Int.max
          : try db.statement(Self.keptBoundSQL).bind(keep - 1).first { $0.int(0) } ?? 0
        // A job created since the cutoff cannot have ended before it (created_at index).
        let youngest = try Self.firstID(createdSince: cutoff, db)
        return (byCount, youngest ?? Int.max)
      }
    } catch {
      return
    }
    while true {
      let deleted: Int
      do {
        deleted = try await store.run { db throws(SQLiteError) in
          try db.statement(Self.pruneSQL).bind(bounds.count, bounds.age, cutoff).run()
          return db.changes
        }
      } catch {
        return
      }
      if deleted < 5000 { return }
    }
  }
}
