import Foundation
import LabelCore
import LabelKit

/// Every notification a subscriber received, kept: waiting for one looks at what already
/// came as well, so two events that arrive in either order are both seen.
package final class Events {
  package let client: BlockingConnection
  package private(set) var seen: [(method: String, params: JSONValue)] = []
  /// Checked at least twice a second while waiting: a non-nil answer (a part of the test
  /// rig that died) ends the wait at once with that message instead of a timeout.
  package var watch: (() -> String?)?

  package init(_ client: BlockingConnection) { self.client = client }

  /// The next notification; nil when `orNilWhenTimedOut` and none came in `timeout`.
  private func next(timeout: Double, orNilWhenTimedOut: Bool) throws -> (
    method: String, params: JSONValue
  )? {
    do {
      let n = try client.nextNotification(timeout: timeout)
      return (n.method, n.params)
    } catch {
      if case .timeout = error, orNilWhenTimedOut { return nil }
      throw error
    }
  }

  /// The first notification `method` matching `match`, received before or within
  /// `timeout` seconds.
  package func waitFor(
    _ method: String, timeout: Double = 30, where match: (JSONValue) -> Bool = { _ in true }
  ) throws -> JSONValue {
    if let n = seen.first(where: { $0.method == method && match($0.params) }) { return n.params }
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else {
        throw HarnessError.failed(
          "no \(method) notification as expected in \(timeout) s; seen: \(seen.map { $0.params })")
      }
      if let failure = watch?() { throw HarnessError.failed(failure) }
      let slice = watch == nil ? left : min(left, 0.5)
      guard let n = try next(timeout: slice, orNilWhenTimedOut: watch != nil) else { continue }
      seen.append((n.method, n.params))
      if n.method == method && match(n.params) { return n.params }
    }
  }

  /// Waits for the `job` notification of job `id` in `state`.
  @discardableResult
  package func waitForJob(_ id: Int, state: String = "completed", timeout: Double = 30) throws
    -> JSONValue
  {
    try waitFor("job", timeout: timeout) { $0["id"] == .int(id) && $0["state"] == .string(state) }
  }
}
