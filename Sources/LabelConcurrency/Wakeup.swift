import Synchronization

/// A wake-up call for a loop that otherwise sleeps: `wait` returns true when signalled,
/// false when the timeout passed first. A signal with nobody waiting is kept for the next.
///
/// The standard library has no wait with a timeout: an `AsyncStream` raced against
/// `Task.sleep` in a task group ends for good when the race cancels its consumer. So this
/// is one continuation under a Mutex, and the timeout a child task that sleeps and is
/// cancelled the moment the signal comes (nothing sleeps on after a wait has returned).
package final class Wakeup: Sendable {
  private struct State {
    var pending = false
    var waiter: (token: UInt64, continuation: CheckedContinuation<Bool, Never>)?
    var nextToken: UInt64 = 0
  }
  private let state = Mutex(State())

  package init() {}

  package func signal() { fire(token: nil, value: true) }

  package func wait(timeout: Duration) async -> Bool {
    await withTaskGroup(of: Void.self) { group in
      let signalled = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
        let token = state.withLock { s -> UInt64? in
          guard !s.pending else {
            s.pending = false
            return nil
          }
          s.nextToken += 1
          s.waiter = (s.nextToken, c)
          return s.nextToken
        }
        guard let token else {
          c.resume(returning: true)
          return
        }
        // The timeout: ends by sleeping it out, or early once the signal has come
        // (`cancelAll`) or the waiting task is cancelled (then the wait ends as a timeout).
        group.addTask {
          try? await Task.sleep(for: timeout)
          self.fire(token: token, value: false)
        }
      }
      group.cancelAll()
      return signalled
    }
  }

  private func fire(token: UInt64?, value: Bool) {
    let c = state.withLock { s -> CheckedContinuation<Bool, Never>? in
      guard let w = s.waiter, token == nil || w.token == token else {
        if token == nil { s.pending = true }
        return nil
      }
      s.waiter = nil
      return w.continuation
    }
    c?.resume(returning: value)
  }
}
