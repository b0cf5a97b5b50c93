import Foundation
import LabelCore
import LabelSQLite
import Testing

@testable import LabelStore

/// Every list is answered from an index in the order it pages in: `EXPLAIN QUERY PLAN` of
/// each list query, on a database with real rows (so the planner has statistics to be
/// tempted by), names an index or the rowid and never a table scan or a sort.
struct QueryPlanTests {
  /// A migrated database in a temp dir with jobs, products and templates in it.
  static func database() throws -> (Database, URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-plan-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let db = try Database(path: dir.appendingPathComponent("labeld.db").path)
    try Schema.migrate(db)
    try db.transaction { () throws(SQLiteError) in
      let job = try db.statement(
        """
        INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid)
        VALUES (?, ?, 1, 1, ?, ?, ?)
        """)
      let states = ["completed", "completed", "completed", "aborted", "canceled", "pending"]
      for i in 0..<3000 {
        try job.bind(
          "sim:p\(i % 7)", states[i % states.count], Double(i), Double(i), i % 5
        ).run()
      }
      let product = try db.statement(
        "INSERT INTO products (sku, version, json) VALUES (?, 1, X'7B7D')")
      for i in 0..<500 { try product.bind("SKU-\(i)").run() }
      let template = try db.statement("INSERT INTO templates (name, json) VALUES (?, X'7B7D')")
      for i in 0..<50 { try template.bind("t\(i)").run() }
    }
    try db.execute("ANALYZE")
    return (db, dir)
  }

  /// The plan's lines for `sql` with `values` bound.
  static func plan(_ db: Database, _ sql: String, _ values: [(any SQLiteValue)?]) throws -> [String]
  {
    try db.statement("EXPLAIN QUERY PLAN " + sql).bind(values: values).all { $0.string(3) ?? "" }
  }

  static func expectIndexed(_ lines: [String], _ what: String) {
    #expect(!lines.isEmpty, "\(what): no plan")
    for line in lines {
      #expect(!line.contains("TEMP B-TREE"), "\(what) sorts: \(line)")
      // Lines that read no table (MERGE, LEFT, RIGHT, LIST SUBQUERY) only give the shape.
      guard line.contains("SCAN") || line.contains("SEARCH") else { continue }
      let indexed =
        line.contains("USING INDEX") || line.contains("USING COVERING INDEX")
        || line.contains("USING INTEGER PRIMARY KEY")
      #expect(indexed, "\(what): \(line)")
    }
  }

  static let queries: [(String, JobQuery)] = [
    ("no filter", JobQuery(limit: 100)),
    ("after a cursor", JobQuery(after: 1500, limit: 100)),
    ("a printer", JobQuery(printer: "sim:p3", after: 10, limit: 100)),
    (
      "a printer and states",
      JobQuery(printer: "sim:p3", states: [.completed, .aborted], limit: 100)
    ),
    ("an owner", JobQuery(owner: 2, limit: 100)),
    ("an owner and a printer", JobQuery(printer: "sim:p1", owner: 2, limit: 100)),
    ("since a time", JobQuery(since: Date(timeIntervalSince1970: 2000), limit: 100)),
    ("every job (protocol v1, no limit)", JobQuery()),
  ]

  @Test func jobLists_walkAnIndexInIdOrder() throws {
    let (db, dir) = try Self.database()
    defer { try? FileManager.default.removeItem(at: dir) }
    for (what, query) in Self.queries {
      let (sql, values) = query.sql(state: nil, first: 1)
      Self.expectIndexed(try Self.plan(db, sql, values), what)
    }
    // States alone: one query per state through the state index.
    for state in JobState.allCases {
      let (sql, values) = JobQuery(states: [state], limit: 100).sql(state: state, first: 1)
      let lines = try Self.plan(db, sql, values)
      Self.expectIndexed(lines, "state \(state)")
      #expect(lines.contains { $0.contains("jobs_by_state") }, "\(lines)")
    }
    // Whether a printer that is not here has jobs (`jobs.list` of an absent printer):
    // through the printer index, not through the jobs in memory.
    let known = try Self.plan(db, JobStore.anyJobSQL, ["sim:gone"])
    Self.expectIndexed(known, "any job of a printer")
    #expect(known.contains { $0.contains("jobs_by_printer") }, "\(known)")
    // The id a `since` starts from, and the history bounds of pruning.
    Self.expectIndexed(try Self.plan(db, JobStore.firstIDSQL, [2000.0]), "since")
    // Pruning reads the newest ended jobs and deletes the older ones through the state
    // index: a backlog of unfinished jobs is never walked.
    let bound = try Self.plan(db, JobStore.keptBoundSQL, [9_999])
    Self.expectIndexed(bound, "the kept bound")
    #expect(bound.filter { $0.contains("jobs_by_state") }.count == 3, "\(bound)")
    let prune = try Self.plan(db, JobStore.pruneSQL, [5000, 6000, 2000.0])
    Self.expectIndexed(prune, "the prune")
    #expect(prune.contains { $0.contains("jobs_by_state") }, "\(prune)")
  }

  @Test func productAndTemplatePages_walkTheKeyIndex() throws {
    let (db, dir) = try Self.database()
    defer { try? FileManager.default.removeItem(at: dir) }
    for limited in [true, false] {
      let values: [(any SQLiteValue)?] = limited ? ["SKU-100", 101] : ["SKU-100"]
      Self.expectIndexed(
        try Self.plan(db, ProductStore.pageSQL(limited: limited), values), "products")
      let t: [(any SQLiteValue)?] = limited ? ["t10", 11] : ["t10"]
      Self.expectIndexed(
        try Self.plan(db, TemplateStore.pageSQL(limited: limited), t), "templates")
    }
  }
}
