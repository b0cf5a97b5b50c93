import Synchronization

/// A wake-up call for a loop that otherwise sleeps: `wait` returns true when signalled,
/// false when the timeout passed first. A signal with nobody waiting is kept for the next.
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
    await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
      let token: UInt64? = state.withLock { s in
        if s.pending {
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
      Task {
        try? await Task.sleep(for: timeout)
        self.fire(token: token, value: false)
      }
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
