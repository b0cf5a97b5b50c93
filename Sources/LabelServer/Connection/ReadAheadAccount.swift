/// The second stage of a connection: what it holds of requests read and not yet answered,
/// against its floor and the shared `ReadAheadBudget`, and the deadline of a partial
/// message that has grown past the floor (it then holds bytes the others could use).
package struct ReadAheadAccount: Sendable {
  package let budget: ReadAheadBudget
  private let id: UInt64
  /// Bytes of requests held: read and not yet answered (a partial message, queued ones, the
  /// one being handled, their framing).
  package private(set) var held = 0
  /// Of `held`, what is borrowed from the shared budget.
  package private(set) var borrowed = 0
  /// Reading stopped until the budget has bytes again.
  package var waitingForBudget = false
  /// The partial message is past the floor and has a deadline; `deadlineEpoch` tells that
  /// deadline from earlier ones.
  private var watched = false
  private var deadlineEpoch: UInt64 = 0

  package init(budget: ReadAheadBudget, id: UInt64) {
    self.budget = budget
    self.id = id
  }

  /// How many bytes may be read now: what the floor and the borrowed bytes leave,
  /// borrowing another `chunk` when that is short (`wake` is called when a refused
  /// borrow could succeed; it is made only when a borrow is asked for, so the read loop's
  /// usual call allocates nothing). Zero stops reading: until the budget has bytes again, or
  /// until the connection's own read-ahead (`cap`) is answered.
  package mutating func allowance(
    chunk: Int, cap: Int, wake: @autoclosure () -> @Sendable () -> Void
  ) -> Int {
    guard held < cap else { return 0 }
    var room = budget.floor + borrowed - held
    if room < chunk {
      if budget.borrow(chunk, id: id, wake: wake()) {
        borrowed += chunk
        room += chunk
      } else if room <= 0 {
        waitingForBudget = true
      }
    }
    return max(0, room)
  }

  /// `bytes` were read.
  package mutating func took(_ bytes: Int) { held += bytes }

  /// Bytes of requests answered (or dropped) are no longer held; what was borrowed for
  /// them goes back to the budget.
  package mutating func release(_ bytes: Int) {
    held = max(0, held - bytes)
    let needed = max(0, held - budget.floor)
    if borrowed > needed {
      let surplus = borrowed - needed
      borrowed = needed
      budget.giveBack(surplus)
    }
  }

  /// The connection closed: everything goes back. A request still being handled releases
  /// its bytes when it ends (`release` clamps at zero).
  package mutating func close() {
    held = 0
    budget.giveBack(borrowed)
    borrowed = 0
    budget.forget(id)
    watched = false
  }

  /// A message was completed: the one that was being watched has ended, and one still
  /// long is a new one.
  package mutating func messageEnded() { watched = false }

  /// Gives a partial message past the floor its deadline, once per message: the epoch to
  /// time, or nil when no new deadline is due.
  package mutating func watch(partialBytes: Int) -> UInt64? {
    guard partialBytes > budget.floor else {
      watched = false
      return nil
    }
    guard !watched else { return nil }
    watched = true
    deadlineEpoch &+= 1
    return deadlineEpoch
  }

  /// Whether the deadline of `epoch` is the one in force (it then stops being watched).
  package mutating func deadlinePassed(_ epoch: UInt64) -> Bool {
    guard watched, deadlineEpoch == epoch else { return false }
    watched = false
    return true
  }
}
