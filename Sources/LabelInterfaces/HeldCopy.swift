import LabelCore

extension PrinterStatusSink {
  /// A copy is in the printer, but the status it gave right after the copy was sent holds
  /// `faults` (ZPL's head open, a LabelWriter out of labels): it prints when they clear.
  /// Reports them, asks again with back-off (half a second, doubling to five) until the
  /// printer says they are gone, then reports it fine: the copy counts then, and is never
  /// sent again. `ask` gives the printer's faults now, or nil when it stopped answering
  /// with the label still in it: then `stoppedAnswering` is thrown and the copy is not
  /// counted (a missing label is worse than a duplicate).
  ///
  /// The one wait of every transport whose printer keeps a label through a fault (USB and
  /// network printers alike); cancelling the task ends it.
  package func waitWhileHeld(
    _ faults: [Reason], ask: () async throws -> [Reason]?,
    stoppedAnswering: () -> TransportError
  ) async throws {
    await update(faults: faults)
    var wait = Self.firstHeldWait
    while true {
      try await Task.sleep(for: wait)
      wait = min(wait * 2, Self.longestHeldWait)
      guard let now = try await ask() else { throw stoppedAnswering() }
      if now.isEmpty { break }
      await update(faults: now)
    }
    await update(faults: [])
  }
}

extension PrinterStatusSink {
  /// The first wait before a held label's printer is asked again.
  package static var firstHeldWait: Duration { .milliseconds(500) }
  /// The longest wait between two asks while a label is held.
  package static var longestHeldWait: Duration { .seconds(5) }
}
