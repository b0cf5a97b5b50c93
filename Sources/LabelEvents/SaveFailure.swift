import LabelCore
import LabelWire

/// A store's failure to keep valid data, before it becomes a `saveError` alert.
/// Stores throw these; `SaveErrors` turns them into the alert and the 1004 response.
package struct SaveFailure: Error, Sendable, Equatable {
  package var reason: SaveReason
  package var message: String
  /// A `conflict`'s versions: the one the client expected and the one stored (0: none).
  package var versions: (expected: Int, stored: Int)?

  package init(reason: SaveReason, message: String, versions: (expected: Int, stored: Int)? = nil) {
    self.reason = reason
    self.message = message
    self.versions = versions
  }

  package static func == (a: SaveFailure, b: SaveFailure) -> Bool {
    a.reason == b.reason && a.message == b.message
      && a.versions?.expected == b.versions?.expected && a.versions?.stored == b.versions?.stored
  }

  /// What a reason means, in the words of a message.
  package static func summary(_ reason: SaveReason) -> String {
    switch reason {
    case .storageFull: "the disk holding labeld's state is full"
    case .readOnly: "labeld's state is on a read-only file system"
    case .busy: "another process holds a lock on labeld's database"
    case .io: "the database could not be written"
    case .unavailable: "labeld's database cannot be opened"
    case .conflict: "conflicting change"
    }
  }
}

/// What a job write did, for the alert channel: its failure, or the jobs whose rows it
/// brought up to date (their earlier failures are resolved).
package struct JobWrite: Sendable {
  package var failure: SaveFailure?
  package var resolved: [Int]

  package init(failure: SaveFailure? = nil, resolved: [Int]) {
    self.failure = failure
    self.resolved = resolved
  }
}

/// The one place where a save's outcome meets the alert channel: a failure raises the
/// `saveError` alert and becomes error 1004 carrying it; a success clears the alert the same
/// key may still have active.
package struct SaveErrors: Sendable {
  package let channel: EventChannel

  package func failed(_ failure: SaveFailure, entity: SaveEntity, key: String) -> RPCError {
    let event = channel.raise(
      .saveError(
        SaveErrorDetails(
          entity: entity, key: key, reason: failure.reason, message: failure.message,
          expectedVersion: failure.versions?.expected, storedVersion: failure.versions?.stored)))
    let data = (try? LabelJSON.value(event)) ?? .null
    return .saveFailed(message: failure.message, alert: data)
  }

  /// The key of a job submission that could not be stored (the job never got an id).
  package static let newJobKey = "new"

  /// A job write's outcome: a failure raises the saveError for `job`'s key; a good write
  /// clears every job saveError it resolved: the rows it wrote again and a failed
  /// submission (the store keeps jobs again).
  package func jobWrite(_ write: JobWrite, job: Int) {
    if let failure = write.failure {
      _ = failed(failure, entity: .job, key: String(job))
      return
    }
    for id in Set(write.resolved + [job]) { succeeded(entity: .job, key: String(id)) }
    succeeded(entity: .job, key: Self.newJobKey)
  }

  package func succeeded(entity: SaveEntity, key: String) {
    channel.clear(
      id: Alert.saveError(SaveErrorDetails(entity: entity, key: key, reason: .io, message: "")).id)
  }

  package init(channel: EventChannel) {
    self.channel = channel
  }
}
