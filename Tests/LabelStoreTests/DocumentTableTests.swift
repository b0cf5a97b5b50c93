import Foundation
import LabelSQLite
import Testing

@testable import LabelStore

/// Schema 4 keeps each job's document in a table of its own: a database from before moves
/// every document there, a deleted job takes its document with it, and a change of a job's
/// state writes the job's row only.
@Suite struct DocumentTableTests {
  static func database() throws -> (Database, URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-documents-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return (try Database(path: dir.appendingPathComponent("labeld.db").path), dir)
  }

  @Test func aDatabaseFromBefore_movesItsDocuments_andDeletingAJobDeletesItsDocument() throws {
    let (db, dir) = try Self.database()
    defer { try? FileManager.default.removeItem(at: dir) }
    try Schema.migrate(db, to: 3)
    let insert = try db.statement(
      """
      INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid, document)
      VALUES ('sim:z', ?, 1, 0, 0, 0, 0, ?)
      """)
    for i in 1...50 { try insert.bind(i % 2 == 0 ? "pending" : "completed", [UInt8(i)]).run() }
    try Schema.migrate(db)
    #expect(try db.userVersion == Schema.version)
    let columns = try db.statement("PRAGMA table_info(jobs)").all { $0.string(1) ?? "" }
    #expect(!columns.contains("document"))
    let moved = try db.statement("SELECT job, data FROM documents ORDER BY job").all {
      ($0.int(0), $0.blob(1))
    }
    #expect(moved.map(\.0) == Array(1...50))
    #expect(moved.allSatisfy { $0.1 == [UInt8($0.0)] })
    try db.execute("DELETE FROM jobs WHERE id <= 10")
    let left = try db.statement("SELECT count(*), min(job) FROM documents").first {
      ($0.int(0), $0.int(1))
    }
    #expect(left?.0 == 40 && left?.1 == 11)
  }

  /// The bytes SQLite writes for a job of one 100 KB document through its life: the
  /// document once, not again with every change of state.
  @Test func changesOfState_doNotWriteTheDocumentAgain() throws {
    let (db, dir) = try Self.database()
    defer { try? FileManager.default.removeItem(at: dir) }
    try Schema.migrate(db)
    try db.execute("PRAGMA journal_mode=WAL")
    let wal = dir.appendingPathComponent("labeld.db-wal").path
    func walBytes() -> Int {
      ((try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int) ?? 0
    }
    try db.execute("PRAGMA wal_autocheckpoint=0")
    try db.statement(
      """
      INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid)
      VALUES ('sim:z', 'pending', 1, 0, 0, 0, 0)
      """
    ).run()
    try db.statement("INSERT INTO documents (job, data) VALUES (?, ?)")
      .bind(Int(db.lastInsertRowID), [UInt8](repeating: 0x41, count: 100_000)).run()
    let afterInsert = walBytes()
    for state in ["processing", "processing", "completed"] {
      try db.statement("UPDATE jobs SET state = ?, printed = printed + 1 WHERE id = 1")
        .bind(state).run()
    }
    #expect(afterInsert > 100_000)
    // Three small updates: a few pages, far from the 100 KB they cost before.
    #expect(walBytes() - afterInsert < 40_000, "\(walBytes() - afterInsert) bytes")
  }
}
