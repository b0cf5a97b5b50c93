import LabelCore
import LabelSQLite

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A store's failure to keep valid data, before it becomes a `saveError` alert.
/// Stores throw these; `SaveErrors` turns them into the alert and the 1004 response.
struct SaveFailure: Error, Sendable, Equatable {
  var reason: SaveReason
  var message: String

  init(reason: SaveReason, message: String) {
    self.reason = reason
    self.message = message
  }

  /// The one mapping from SQLite's result codes to the protocol's save reasons.
  /// `directory`, the state directory, is asked when SQLite reports an I/O error without
  /// the OS's errno: a write that failed because the file system went read-only under
  /// labeld (ext4 `errors=remount-ro`) or filled up comes back from SQLite as a bare
  /// SQLITE_IOERR_WRITE with `sqlite3_system_errno` 0 (measured on a loop-mounted ext4).
  init(_ error: SQLiteError, directory: String? = nil) {
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

  /// What a reason means, in the words of a message.
  static func summary(_ reason: SaveReason) -> String {
    switch reason {
    case .storageFull: "the disk holding labeld's state is full"
    case .readOnly: "labeld's state is on a read-only file system"
    case .busy: "another process holds a lock on labeld's database"
    case .io: "the database could not be written"
    case .unavailable: "labeld's database cannot be opened"
    case .conflict: "conflicting change"
    }
  }

  /// What the file system holding `directory` says now, when that explains a failed
  /// write: mounted read-only, or no block left for labeld.
  static func fileSystemReason(_ directory: String) -> SaveReason? {
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
  init(opening error: SQLiteError, path: String) {
    let mapped = SaveFailure(error)
    let reason: SaveReason = mapped.reason == .io ? .unavailable : mapped.reason
    self.init(reason: reason, message: "cannot open \(path): \(error)")
  }
}

/// The one place where a save's outcome meets the alert channel: a failure raises the
/// `saveError` alert and becomes error 1004 carrying it; a success clears the alert the same
/// key may still have active.
struct SaveErrors: Sendable {
  let channel: EventChannel

  func failed(_ failure: SaveFailure, entity: SaveEntity, key: String) -> RPCError {
    let event = channel.raise(
      .saveError(
        SaveErrorDetails(entity: entity, key: key, reason: failure.reason, message: failure.message)
      ))
    let data = (try? LabelJSON.value(event)) ?? .null
    return .saveFailed(message: failure.message, alert: data)
  }

  /// The key of a job submission that could not be stored (the job never got an id).
  static let newJobKey = "new"

  /// A job write's outcome: a failure raises the saveError for `job`'s key; a good write
  /// clears every job saveError it resolved: the rows it wrote again and a failed
  /// submission (the store keeps jobs again).
  func jobWrite(_ write: JobWrite, job: Int) {
    if let failure = write.failure {
      _ = failed(failure, entity: .job, key: String(job))
      return
    }
    for id in Set(write.resolved + [job]) { succeeded(entity: .job, key: String(id)) }
    succeeded(entity: .job, key: Self.newJobKey)
  }

  func succeeded(entity: SaveEntity, key: String) {
    channel.clear(
      id: Alert.saveError(SaveErrorDetails(entity: entity, key: key, reason: .io, message: "")).id)
  }
}
