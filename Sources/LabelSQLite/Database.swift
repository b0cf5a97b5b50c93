import CSQLite

/// One SQLite connection, owned by exactly one instance: `close()` finalizes it.
///
/// Not thread-safe and not Sendable: SQLite connections are used from one thread at a
/// time. Its owner (the daemon's store) keeps it on one serial queue.
public final class Database {
  private var handle: OpaquePointer?
  private var cache: [String: Statement] = [:]
  public let path: String

  /// Opens (creating if needed) the database at `path`.
  public init(path: String, readOnly: Bool = false) throws(SQLiteError) {
    self.path = path
    var db: OpaquePointer?
    let flags =
      (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
      | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    let rc = sqlite3_open_v2(path, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      let errno = db.map { sqlite3_system_errno($0) } ?? 0
      sqlite3_close_v2(db)
      throw SQLiteError(code: rc, message: message, systemErrno: errno)
    }
    sqlite3_extended_result_codes(db, 1)
    handle = db
  }

  deinit {
    // Closing must happen through close(); a leaked connection is a programming error, but
    // it is still freed rather than leaked.
    if handle != nil { try? close() }
  }

  /// Finalizes cached statements and closes the connection.
  public func close() throws(SQLiteError) {
    cache.removeAll()
    guard let db = handle else { return }
    let rc = sqlite3_close_v2(db)
    handle = nil
    if rc != SQLITE_OK { throw SQLiteError(code: rc, message: "close failed") }
  }

  var raw: OpaquePointer {
    guard let handle else { preconditionFailure("database \(path) used after close") }
    return handle
  }

  /// The error the connection reports after a failed call.
  func error(_ rc: Int32) -> SQLiteError {
    SQLiteError(
      code: sqlite3_extended_errcode(raw) != 0 ? sqlite3_extended_errcode(raw) : rc,
      message: String(cString: sqlite3_errmsg(raw)), systemErrno: sqlite3_system_errno(raw))
  }

  /// Runs SQL text (one or more statements) with no parameters and no results.
  public func execute(_ sql: String) throws(SQLiteError) {
    let rc = sqlite3_exec(raw, sql, nil, nil, nil)
    if rc != SQLITE_OK { throw error(rc) }
  }

  /// A prepared statement for `sql`, cached and reused: hot paths pay for parsing once.
  public func statement(_ sql: String) throws(SQLiteError) -> Statement {
    if let s = cache[sql] {
      s.reset()
      return s
    }
    let s = try Statement(database: self, sql: sql)
    cache[sql] = s
    return s
  }

  /// Runs `body` in a transaction (BEGIN IMMEDIATE, so a writer learns of a lock at the
  /// start); commits when it returns, rolls back when it throws. Inside a transaction
  /// already (a batch of the store's work), it is a savepoint of it instead: `body`'s
  /// changes are undone alone when it throws, and kept by the outer commit otherwise.
  public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
    if inTransaction { return try savepoint(body) }
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      // A failed COMMIT (disk full) may leave the transaction open; undo it either way.
      if inTransaction { _ = sqlite3_exec(raw, "ROLLBACK", nil, nil, nil) }
      throw error
    }
  }

  /// Runs `body` in a savepoint (sqlite.org/lang_savepoint.html): released when it
  /// returns, rolled back to and released when it throws. Savepoints nest.
  public func savepoint<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
    try execute("SAVEPOINT labeld")
    do {
      let result = try body()
      try execute("RELEASE labeld")
      return result
    } catch {
      // Some failures (disk full, I/O errors) roll back the whole transaction: then there
      // is no savepoint left to go back to, and the caller sees `inTransaction` false.
      if inTransaction {
        _ = sqlite3_exec(raw, "ROLLBACK TO labeld; RELEASE labeld", nil, nil, nil)
      }
      throw error
    }
  }

  /// Whether a transaction is open (`sqlite3_get_autocommit` is 0).
  public var inTransaction: Bool { sqlite3_get_autocommit(raw) == 0 }

  /// Milliseconds to retry on a lock held elsewhere before failing with SQLITE_BUSY.
  public func setBusyTimeout(milliseconds: Int32) {
    sqlite3_busy_timeout(raw, milliseconds)
  }

  public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(raw) }
  public var changes: Int { Int(sqlite3_changes(raw)) }

  /// `PRAGMA user_version`: the schema version migrations bring the file to.
  public var userVersion: Int {
    get throws(SQLiteError) {
      try statement("PRAGMA user_version").first { $0.int(0) } ?? 0
    }
  }
}
