import FoundationEssentials
import LabelCore
import LabelEvents
import LabelSQLite

/// What `jobs.list` asks for: filters, and a page (jobs after the cursor `after`, at most
/// `limit` of them).
package struct JobQuery: Sendable, Equatable {
  package var printer: String?
  package var states: Set<JobState>?
  package var owner: UInt32?
  /// Jobs created at or after this time.
  package var since: Date?
  /// The last job id of the previous page.
  package var after: Int?
  /// Nil: every job that matches (protocol v1's `jobs.list`).
  package var limit: Int?

  package func matches(_ job: Job) -> Bool {
    (printer == nil || job.printer == printer) && (states?.contains(job.state) ?? true)
      && (owner == nil || job.owner.uid == owner) && job.id > (after ?? 0)
      && (since.map { job.createdAt >= $0 } ?? true)
  }

  /// The SQL for one page from `first` on (the id `since` and `after` come to), and its
  /// values: always an index in id order, so a page costs its own size (asserted with
  /// `EXPLAIN QUERY PLAN` in the tests). A printer, else an owner, picks its index (the
  /// other filters are checked along it); states alone are one query per state through
  /// the state index, merged (`page`); no filter walks the rowid.
  package func sql(state: JobState?, first: Int) -> (sql: String, values: [(any SQLiteValue)?]) {
    var conditions: [String] = []
    var values: [(any SQLiteValue)?] = []
    let index: String
    if let printer {
      index = "INDEXED BY jobs_by_printer"
      conditions.append("printer = ?")
      values.append(printer)
    } else if let owner {
      index = "INDEXED BY jobs_by_owner"
      conditions.append("owner_uid = ?")
      values.append(Int(owner))
    } else if state != nil {
      index = "INDEXED BY jobs_by_state"
    } else {
      index = ""
    }
    if let owner, printer != nil {
      conditions.append("owner_uid = ?")
      values.append(Int(owner))
    }
    if let state {
      conditions.append("state = ?")
      values.append(state.rawValue)
    } else if let states {
      conditions.append(
        "state IN (\(states.map(\.rawValue).sorted().map { "'\($0)'" }.joined(separator: ", ")))")
    }
    conditions.append("id >= ?")
    values.append(first)
    var sql =
      "SELECT \(JobStore.columns) FROM jobs \(index) WHERE "
      + conditions.joined(separator: " AND ") + " ORDER BY id"
    if let limit {
      sql += " LIMIT ?"
      values.append(limit + 1)
    }
    return (sql, values)
  }

  package init(
    printer: String? = nil, states: Set<JobState>? = nil, owner: UInt32? = nil, since: Date? = nil,
    after: Int? = nil, limit: Int? = nil
  ) {
    self.printer = printer
    self.states = states
    self.owner = owner
    self.since = since
    self.after = after
    self.limit = limit
  }
}

extension JobStore {
  /// The first job created at or after `time` (seconds since 1970): ids grow with creation
  /// time, so it is where jobs since that time start. One step down the created_at index
  /// (a `min(id)` would walk the rowid from the oldest job instead).
  package static let firstIDSQL =
    "SELECT id FROM jobs INDEXED BY jobs_by_created WHERE created_at >= ? ORDER BY created_at LIMIT 1"

  package static func firstID(createdSince time: Double, _ db: Database) throws(SQLiteError) -> Int?
  {
    try db.statement(firstIDSQL).bind(time).first { $0.int(0) }
  }

  /// A page of jobs, oldest first, and the cursor of the next page when more remain. Every
  /// page is read through an index (a backlog of unfinished jobs is listed like history:
  /// never by scanning memory); memory adds what rows cannot say yet.
  package func page(_ query: JobQuery) async throws(SaveFailure) -> (jobs: [Job], next: Int?) {
    let (rows, more) = try await rows(query)
    // Where this page ends when more rows remain: a later job belongs to a later page.
    let end = more ? (rows.last?.id ?? Int.max) : Int.max
    // A job memory holds is as memory has it (its row may be a write behind); a row a
    // failed write left behind may not match in SQL although the job does.
    var jobs = rows.map { live($0.id) ?? $0 }
    let seen = Set(jobs.map(\.id))
    jobs += rowsBehind().filter { !seen.contains($0.id) && $0.id <= end }
    jobs = jobs.filter(query.matches).sorted { $0.id < $1.id }
    guard let limit = query.limit else { return (jobs, nil) }
    if jobs.count > limit {
      let page = Array(jobs.prefix(limit))
      return (page, page.last?.id)
    }
    return (jobs, more ? end : nil)
  }

  /// The rows of a page (at most `limit`), and whether more match beyond them.
  private func rows(_ query: JobQuery) async throws(SaveFailure) -> (rows: [Job], more: Bool) {
    try await store.run { db throws(SQLiteError) -> ([Job], Bool) in
      var first = (query.after ?? 0) + 1
      if let since = query.since {
        // Ids grow with creation time: jobs since a time start at one id (the index on
        // created_at finds it), and the page walks ids from there.
        guard let sinceID = try JobStore.firstID(createdSince: since.timeIntervalSince1970, db)
        else { return ([], false) }
        first = max(first, sinceID)
      }
      // States alone: a page from each state's index, merged.
      let perState = query.printer == nil && query.owner == nil ? query.states : nil
      var out: [Job] = []
      let passes: [JobState?] = perState.map { $0.sorted { $0.rawValue < $1.rawValue } } ?? [nil]
      for state in passes {
        let (sql, values) = query.sql(state: state, first: first)
        out += try db.statement(sql).bind(values: values).all(JobStore.job(from:))
      }
      if perState != nil { out.sort { $0.id < $1.id } }
      guard let limit = query.limit, out.count > limit else { return (out, false) }
      return (Array(out.prefix(limit)), true)
    }
  }
}
