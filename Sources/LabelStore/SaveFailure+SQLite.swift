import LabelCore
import LabelEvents
import LabelSQLite

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// SQLite's failures in the protocol's terms: the one mapping from result codes (and the
/// OS's errno behind them) to `SaveReason`.
extension SaveFailure {
  /// The one mapping from SQLite's result codes to the protocol's save reasons.
  /// `directory`, the state directory, is asked when SQLite reports an I/O error without
  /// the OS's errno: a write that failed because the file system went read-only under
  /// labeld (ext4 `errors=remount-ro`) or filled up comes back from SQLite as a bare
  /// SQLITE_IOERR_WRITE with `sqlite3_system_errno` 0 (measured on a loop-mounted ext4).
  package init(_ error: SQLiteError, directory: String? = nil) {
    let reason: SaveReason
    switch error.primary {
    case SQLiteError.full: reason = .storageFull
    case SQLiteError.readOnly: reason = .readOnly
    case SQLiteError.busy, SQLiteError.locked: reason = .busy
    case SQLiteError.cantOpen: reason = error.systemErrno == EROFS ? .readOnly : .unavailable
    case SQLiteError.ioError:
      // The OS's reason is more precise than SQLite's umbrella code.
      switch error.systemErrno {
      case ENOSPC, EDQUOT: reason = .storageFull
      case EROFS: reason = .readOnly
      case 0: reason = directory.flatMap(Self.fileSystemReason) ?? .io
      default: reason = .io
      }
    default: reason = .io
    }
    self.init(reason: reason, message: "\(Self.summary(reason)) (\(error))")
  }

  /// What the file system holding `directory` says now, when that explains a failed
  /// write: mounted read-only, or no block left for labeld.
  package static func fileSystemReason(_ directory: String) -> SaveReason? {
    // A file system ext4 made read-only after an error (6.x: "emergency_ro") still shows
    // "rw" in statvfs's flags and passes access(W_OK); opening the database for writing is
    // what reports EROFS. Opening changes nothing in the file.
    let fd = open(directory + "/labeld.db", O_WRONLY | O_CLOEXEC)
    if fd >= 0 {
      close(fd)
    } else if errno == EROFS {
      return .readOnly
    }
    var fs = statvfs()
    guard statvfs(directory, &fs) == 0 else { return nil }
    if fs.f_flag & UInt(ST_RDONLY) != 0 { return .readOnly }
    if fs.f_bavail == 0 { return .storageFull }
    return nil
  }

  /// The database could not be opened (or set up) at all.
  package init(opening error: SQLiteError, path: String) {
    let mapped = SaveFailure(error)
    let reason: SaveReason = mapped.reason == .io ? .unavailable : mapped.reason
    self.init(reason: reason, message: "cannot open \(path): \(error)")
  }
}
