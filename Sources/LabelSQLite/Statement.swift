import CSQLite

/// One prepared statement, owned by its `Database`'s cache and finalized with it.
public final class Statement {
  private let handle: OpaquePointer
  private unowned let database: Database

  init(database: Database, sql: String) throws(SQLiteError) {
    var stmt: OpaquePointer?
    let rc = sqlite3_prepare_v3(
      database.raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
    guard rc == SQLITE_OK, let stmt else { throw database.error(rc) }
    self.handle = stmt
    self.database = database
  }

  deinit { sqlite3_finalize(handle) }

  func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  /// Resets the statement, then binds parameters by position (1-based), in order: Int,
  /// Int64, Double, String, [UInt8] (blob) or nil.
  @discardableResult
  public func bind(_ values: (any SQLiteValue)?...) throws(SQLiteError) -> Statement {
    // A statement run before must be reset before it can take new values.
    sqlite3_reset(handle)
    for (i, value) in values.enumerated() {
      let index = Int32(i + 1)
      let rc: Int32
      if let value {
        rc = value.bind(to: handle, at: index)
      } else {
        rc = sqlite3_bind_null(handle, index)
      }
      if rc != SQLITE_OK { throw database.error(rc) }
    }
    return self
  }

  /// `bind` with the values in an array (a query built from optional filters).
  @discardableResult
  public func bind(values: [(any SQLiteValue)?]) throws(SQLiteError) -> Statement {
    sqlite3_reset(handle)
    for (i, value) in values.enumerated() {
      let index = Int32(i + 1)
      let rc = value.map { $0.bind(to: handle, at: index) } ?? sqlite3_bind_null(handle, index)
      if rc != SQLITE_OK { throw database.error(rc) }
    }
    return self
  }

  /// Advances to the next row: true while there is one. After the last row the statement
  /// is reset, so it holds no read transaction (which would stop WAL checkpoints).
  public func step() throws(SQLiteError) -> Bool {
    let rc = sqlite3_step(handle)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE:
      sqlite3_reset(handle)
      return false
    default:
      let e = database.error(rc)
      sqlite3_reset(handle)
      throw e
    }
  }

  /// The first row through `extract`, or nil; the statement is reset either way.
  public func first<T>(_ extract: (Statement) -> T) throws(SQLiteError) -> T? {
    defer { sqlite3_reset(handle) }
    return try step() ? extract(self) : nil
  }

  /// Every row through `extract`.
  public func all<T>(_ extract: (Statement) -> T) throws(SQLiteError) -> [T] {
    var out: [T] = []
    while try step() { out.append(extract(self)) }
    return out
  }

  /// Runs a statement that returns no rows.
  public func run() throws(SQLiteError) {
    while try step() {}
  }

  public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
  public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
  public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

  public func string(_ column: Int32) -> String? {
    guard let text = sqlite3_column_text(handle, column) else { return nil }
    return String(cString: text)
  }

  public func blob(_ column: Int32) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let p = sqlite3_column_blob(handle, column) else { return [] }
    return Array(UnsafeRawBufferPointer(start: p, count: count))
  }
}

/// A Swift value that binds to a statement parameter.
public protocol SQLiteValue {
  func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int: SQLiteValue {
  public func bind(to s: OpaquePointer, at i: Int32) -> Int32 {
    sqlite3_bind_int64(s, i, Int64(self))
  }
}
extension Int64: SQLiteValue {
  public func bind(to s: OpaquePointer, at i: Int32) -> Int32 { sqlite3_bind_int64(s, i, self) }
}
extension UInt64: SQLiteValue {
  public func bind(to s: OpaquePointer, at i: Int32) -> Int32 {
    sqlite3_bind_int64(s, i, Int64(bitPattern: self))
  }
}
extension Double: SQLiteValue {
  public func bind(to s: OpaquePointer, at i: Int32) -> Int32 { sqlite3_bind_double(s, i, self) }
}
extension String: SQLiteValue {
  public func bind(to s: OpaquePointer, at i: Int32) -> Int32 {
    sqlite3_bind_text(s, i, self, -1, csqlite_transient())
  }
}
extension Array: SQLiteValue where Element == UInt8 {
  public func bind(to s: OpaquePointer, at i: Int32) -> Int32 {
    withUnsafeBytes {
      sqlite3_bind_blob(s, i, $0.baseAddress, Int32($0.count), csqlite_transient())
    }
  }
}
