import Dispatch
import Foundation
import LabelCore
import LabelSQLite
import Synchronization
import Testing

@testable import LabelEvents
@testable import LabelLog
@testable import LabelStore

/// The store's group commit on a real database: work that waits together shares one
/// transaction, a failing item undoes only itself, and a failing commit fails them all.
@Suite struct GroupCommitTests {
  static let log = Logger(level: .error, sink: MemorySink())

  static func store() throws -> (StateStore, String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-group-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let store = StateStore(directory: dir, log: log)
    try store.open()
    try store.runSync { db throws(SQLiteError) in
      try db.execute(
        """
        PRAGMA foreign_keys = ON;
        CREATE TABLE t (k TEXT PRIMARY KEY);
        CREATE TABLE parent (id INTEGER PRIMARY KEY);
        CREATE TABLE child (pid INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
        """)
    }
    return (store, dir)
  }

  static func remove(_ store: StateStore, _ dir: String) {
    store.close()
    try? FileManager.default.removeItem(atPath: dir)
  }

  static func keys(_ store: StateStore) throws -> [String] {
    try store.runSync { db throws(SQLiteError) in
      let s = try db.statement("SELECT k FROM t ORDER BY k")
      var out: [String] = []
      while try s.step() { out.append(s.string(0) ?? "") }
      return out
    }
  }

  /// What a test item does on the database; it answers whether it ran inside a
  /// transaction (a single statement alone runs in autocommit: true means batched).
  enum Op: Sendable {
    case insert(String)
    /// Writes `b`, then fails on a taken primary key: its row must not be kept.
    case insertThenFail
    /// A body's own transaction, which nests as a savepoint.
    case nested(String)
    /// A child row without its parent: the deferred foreign key fails the COMMIT.
    case orphan
  }

  static func perform(_ op: Op, _ db: Database) throws(SQLiteError) -> Bool {
    switch op {
    case .insert(let key):
      try db.statement("INSERT INTO t (k) VALUES (?)").bind(key).run()
    case .insertThenFail:
      try db.statement("INSERT INTO t (k) VALUES ('b')").run()
      try db.statement("INSERT INTO t (k) VALUES ('a')").run()
    case .nested(let key):
      try db.transaction { () throws(SQLiteError) in
        try db.statement("INSERT INTO t (k) VALUES (?)").bind(key).run()
      }
    case .orphan:
      try db.statement("INSERT INTO child (pid) VALUES (42)").run()
    }
    return db.inTransaction
  }

  /// Holds the store's queue with one item until `ops` wait behind it, then lets them
  /// all go: they are one batch. Returns each item's outcome, in order.
  static func batch(_ store: StateStore, _ ops: [Op]) async -> [Result<Bool, SaveFailure>] {
    let gate = DispatchSemaphore(value: 0)
    let holding = Atomic<Bool>(false)
    let holder = Task {
      try? await store.run { _ throws(SQLiteError) in
        holding.store(true, ordering: .releasing)
        gate.wait()
      }
    }
    while !holding.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }
    var tasks: [Task<Result<Bool, SaveFailure>, Never>] = []
    for (index, op) in ops.enumerated() {
      // In order: each is queued before the next starts.
      while store.waitingCount < index { try? await Task.sleep(for: .milliseconds(1)) }
      tasks.append(
        Task {
          do throws(SaveFailure) {
            return .success(try await store.run { db throws(SQLiteError) in try perform(op, db) })
          } catch {
            return .failure(error)
          }
        })
    }
    while store.waitingCount < ops.count { try? await Task.sleep(for: .milliseconds(1)) }
    gate.signal()
    _ = await holder.value
    var out: [Result<Bool, SaveFailure>] = []
    for t in tasks { out.append(await t.value) }
    return out
  }

  @Test func workThatWaitsTogether_isOneTransaction_andAFailingItemUndoesOnlyItself() async throws {
    let (store, dir) = try Self.store()
    defer { Self.remove(store, dir) }
    let results = await Self.batch(
      store,
      [.insert("a"), .insertThenFail, .insert("c"), .nested("d")])
    #expect(results.count == 4)
    // A single statement outside a transaction would see autocommit: true means batched.
    #expect((try? results[0].get()) == true)
    if case .failure(let f) = results[1] {
      #expect(f.reason == .conflict || f.reason == .io, "\(f)")
    } else {
      Issue.record("the failing item was answered \(results[1])")
    }
    #expect((try? results[2].get()) == true)
    #expect((try? results[3].get()) == true)
    #expect(try Self.keys(store) == ["a", "c", "d"])
  }

  @Test func aFailingCommit_failsEveryItemOfTheBatch_andKeepsNothing() async throws {
    let (store, dir) = try Self.store()
    defer { Self.remove(store, dir) }
    let results = await Self.batch(
      store,
      [.insert("x"), .orphan, .insert("y")])
    for (i, r) in results.enumerated() {
      if case .success = r { Issue.record("item \(i) was answered as saved; the commit failed") }
    }
    #expect(try Self.keys(store) == [])
    // The store goes on: the next write commits.
    let next = await Self.batch(store, [.insert("z")])
    #expect((try? next[0].get()) != nil)
    #expect(try Self.keys(store) == ["z"])
  }
}

/// The store's connection as it is opened: WAL, a full fsync per commit, and the WAL cut
/// back after checkpoints.
@Suite struct StoreSettingsTests {
  @Test func theConnection_isOpenedWithTheStoresSettings() async throws {
    let log = Logger(level: .error, sink: MemorySink())
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-settings-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = StateStore(directory: dir, log: log)
    try store.open()
    defer { store.close() }
    func pragma(_ name: String) async throws -> String {
      try await store.run { db throws(SQLiteError) in
        try db.statement("PRAGMA \(name)").first { $0.string(0) ?? "" } ?? ""
      }
    }
    #expect(try await pragma("journal_mode") == "wal")
    #expect(try await pragma("synchronous") == "2")  // FULL
    #expect(try await pragma("journal_size_limit") == "4194304")
  }
}
