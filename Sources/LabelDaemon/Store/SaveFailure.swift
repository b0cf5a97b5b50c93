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
  init(_ error: SQLiteError) {
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

  func succeeded(entity: SaveEntity, key: String) {
    channel.clear(
      id: Alert.saveError(SaveErrorDetails(entity: entity, key: key, reason: .io, message: "")).id)
  }
}
