/// The third stage of a connection: the requests framed and not yet handled, taken one at
/// a time in the order they came (protocol v1 answers a connection's requests in order),
/// and whether a handler is at work on them.
package struct RequestInbox: Sendable {
  private var items: [Inbound] = []
  /// A handler is taking requests (on the loop's thread or in a task); no other may.
  package var processing = false
  /// Handling stopped until the client has read enough of its answers.
  package var waitingForWriter = false

  package init() {}

  package var count: Int { items.count }
  package var isEmpty: Bool { items.isEmpty }

  package mutating func append(contentsOf inbound: [Inbound]) {
    items.append(contentsOf: inbound)
  }

  package mutating func append(_ inbound: Inbound) { items.append(inbound) }

  /// What the handler does next.
  package enum Next: Sendable {
    case handle(Inbound)
    /// Nothing to do: empty, or the connection is ending.
    case idle
    /// The client has too many answers unread; `resume` once it has read them.
    case waitForWriter
  }

  /// The request to handle next, taken off the inbox or only looked at. Anything but
  /// `handle` ends the handler's turn (`processing` is cleared).
  package mutating func next(taking: Bool, ending: Bool, writerBehind: Bool) -> Next {
    if ending || items.isEmpty {
      processing = false
      return .idle
    }
    if writerBehind {
      processing = false
      waitingForWriter = true
      return .waitForWriter
    }
    return .handle(taking ? items.removeFirst() : items[0])
  }

  /// Drops the head, which was looked at and answered (only the handler that looked at it
  /// calls this while `processing` keeps every other one out).
  package mutating func dropHead() {
    if !items.isEmpty { items.removeFirst() }
  }

  /// Starts a handler's turn when there is work and none is at it.
  package mutating func claim() -> Bool {
    guard !processing, !items.isEmpty else { return false }
    processing = true
    return true
  }

  /// Empties the inbox; returns the wire bytes of the requests dropped.
  package mutating func removeAll() -> Int {
    defer { items.removeAll() }
    return items.reduce(0) { total, inbound in
      if case .message(_, let wireBytes) = inbound { return total + wireBytes }
      return total
    }
  }
}
