import LabelCore
import LabelWire

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
