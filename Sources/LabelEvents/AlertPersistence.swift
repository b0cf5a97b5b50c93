import LabelCore

/// Where the alert channel's journal is written before its events are delivered.
package protocol AlertPersistence: Sendable {
  /// Writes `events` (in seq order) in one transaction, one fsync for the lot, and forgets
  /// rows retention dropped (`seq ≤ forgetThrough`) in the same one. Calls `done` once,
  /// on any thread, with nil when the transaction committed.
  func write(
    _ events: [AlertEvent], forgetThrough: UInt64?,
    done: @escaping @Sendable (SaveFailure?) -> Void)
}
