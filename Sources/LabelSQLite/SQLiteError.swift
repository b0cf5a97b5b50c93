import CSQLite

/// A failed SQLite call: the extended result code (`sqlite3_extended_errcode`), the
/// connection's message, and the errno of the last OS-level failure where SQLite kept one.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The extended result code, e.g. `SQLITE_IOERR_WRITE` (778).
  public var code: Int32
  public var message: String
  /// `sqlite3_system_errno` after the failure (0 when none).
  public var systemErrno: Int32

  public init(code: Int32, message: String, systemErrno: Int32 = 0) {
    self.code = code
    self.message = message
    self.systemErrno = systemErrno
  }

  /// The primary result code (`code & 0xFF`), e.g. `SQLITE_IOERR` (10).
  public var primary: Int32 { code & 0xFF }

  public var description: String {
    let name = String(cString: sqlite3_errstr(code))
    return "SQLite error \(code) (\(name)): \(message)"
      + (systemErrno != 0 ? " [errno \(systemErrno)]" : "")
  }

  /// SQLITE_BUSY: another connection holds a lock that the busy timeout did not outlast.
  public static let busy = SQLITE_BUSY
  /// SQLITE_LOCKED: a conflict within the same connection or shared cache.
  public static let locked = SQLITE_LOCKED
  /// SQLITE_FULL: the disk (or the database's size limit) is full.
  public static let full = SQLITE_FULL
  /// SQLITE_READONLY: the database or its file system cannot be written.
  public static let readOnly = SQLITE_READONLY
  /// SQLITE_IOERR: the OS reported an I/O error.
  public static let ioError = SQLITE_IOERR
  /// SQLITE_CORRUPT: the file is not a well-formed database.
  public static let corrupt = SQLITE_CORRUPT
  /// SQLITE_NOTADB: the file is not a database at all.
  public static let notADatabase = SQLITE_NOTADB
  /// SQLITE_CANTOPEN: the file could not be opened.
  public static let cantOpen = SQLITE_CANTOPEN
  /// SQLITE_CONSTRAINT: a constraint (unique key, NOT NULL…) failed.
  public static let constraint = SQLITE_CONSTRAINT
}
