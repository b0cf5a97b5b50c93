import LabelCore

/// A store's failure to keep valid data, before it becomes a `saveError` alert.
/// Stores throw these; `SaveErrors` turns them into the alert and the 1004 response.
struct SaveFailure: Error, Sendable, Equatable {
  var reason: SaveReason
  var message: String
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
      id: Alert.saveError(
        SaveErrorDetails(entity: entity, key: key, reason: .io, message: "")
      ).id)
  }
}
