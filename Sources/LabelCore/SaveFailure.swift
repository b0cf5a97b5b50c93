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
