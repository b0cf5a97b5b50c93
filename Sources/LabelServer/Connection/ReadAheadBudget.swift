import Synchronization

/// The memory all connections together may hold in requests read but not yet answered
/// (partial lines, queued lines, the request being handled).
///
/// Every connection may hold `floor` bytes of its own (a read chunk: enough for any usual
/// request), so a small request is never kept waiting by someone else's big ones. Beyond
/// that it borrows from one shared pool of `total` bytes; when the pool is empty it stops
/// reading (the kernel's socket buffer then pushes back on the client) and is woken when
/// bytes come back. So many clients each pushing 1 MiB requests without reading answers
/// cost at most `total` plus a floor each, not a megabyte per request per client.
package final class ReadAheadBudget: Sendable {
  /// Bytes each connection holds without borrowing.
  package let floor: Int
  /// Bytes shared by all connections above their floor.
  package let total: Int

  private struct State {
    var lent = 0
    /// Connections that stopped reading for want of budget, woken in arrival order.
    var waiting: [(id: UInt64, wake: @Sendable () -> Void)] = []
  }
  private let state = Mutex(State())

  package init(total: Int, floor: Int = 64 * 1024) {
    self.total = total
    self.floor = floor
  }

  /// Lends up to `wanted` bytes (all or nothing: a connection asks for one read chunk).
  /// When the pool is short, `wake` is kept and called once bytes are given back.
  package func borrow(_ wanted: Int, id: UInt64, wake: @escaping @Sendable () -> Void) -> Bool {
    state.withLock { s in
      if s.lent + wanted <= total {
        s.lent += wanted
        return true
      }
      if !s.waiting.contains(where: { $0.id == id }) { s.waiting.append((id, wake)) }
      return false
    }
  }

  /// Gives `bytes` back and wakes the connections that waited (each tries again).
  package func giveBack(_ bytes: Int) {
    guard bytes > 0 else { return }
    let woken = state.withLock { s in
      s.lent = max(0, s.lent - bytes)
      defer { s.waiting.removeAll() }
      return s.waiting.map(\.wake)
    }
    for wake in woken { wake() }
  }

  /// A closed connection no longer waits.
  package func forget(_ id: UInt64) {
    state.withLock { s in s.waiting.removeAll { $0.id == id } }
  }

  /// Bytes lent out now (tests, benchmarks).
  package var lent: Int { state.withLock { $0.lent } }
}
