import Dispatch
import LabelCore
import Synchronization

/// Where a client posts the alerts its answers carried (a failed save's saveError), for
/// each of its alert streams still running.
final class OfferBoard: Sendable {
  private struct Entry {
    weak var inbox: OfferInbox?
  }
  private let entries = Mutex<[Entry]>([])

  func register(_ inbox: OfferInbox) {
    entries.withLock { e in
      e.removeAll { $0.inbox == nil }
      e.append(Entry(inbox: inbox))
    }
  }

  func offer(_ event: AlertEvent) {
    for entry in entries.withLock({ $0 }) { entry.inbox?.post(event) }
  }
}

/// One stream's offered alerts, and the wait between two connection attempts, which an
/// offer cuts short: a failed save is shown at once even while labeld is away.
final class OfferInbox: Sendable {
  private struct State {
    var offers: [AlertEvent] = []
    var sleeper: (token: Int, continuation: CheckedContinuation<Void, Never>)?
    var tokens = 0
  }
  private let state = Mutex(State())
  /// Where the waits' timers fire: a queue of the kit's own (Dispatch's global queue has
  /// as many threads as cores, which blocking work elsewhere in the app may hold).
  private static let timers = DispatchQueue(label: "LabelKit.backoff")

  func post(_ event: AlertEvent) {
    let sleeper = state.withLock { s in
      s.offers.append(event)
      defer { s.sleeper = nil }
      return s.sleeper
    }
    sleeper?.continuation.resume()
  }

  func take() -> [AlertEvent] {
    state.withLock { s in
      defer { s.offers = [] }
      return s.offers
    }
  }

  /// Waits `duration`, or until an alert is offered or the task is cancelled.
  func sleep(for duration: Duration) async {
    guard duration > .zero else { return }
    let token = state.withLock { s in
      s.tokens += 1
      return s.tokens
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let cancelled = Task.isCancelled
        let waitNow = state.withLock { s in
          guard s.offers.isEmpty, !cancelled else { return false }
          s.sleeper = (token, continuation)
          return true
        }
        guard waitNow else { return continuation.resume() }
        Self.timers.asyncAfter(deadline: .now() + duration.dispatchInterval) {
          self.wake(token)
        }
      }
    } onCancel: {
      wake(token)
    }
  }

  private func wake(_ token: Int) {
    let sleeper = state.withLock { s -> CheckedContinuation<Void, Never>? in
      guard let sleeper = s.sleeper, sleeper.token == token else { return nil }
      s.sleeper = nil
      return sleeper.continuation
    }
    sleeper?.resume()
  }
}
