import LabelConcurrency
import Synchronization
import Testing

/// The daemon's long-running loops in one task group: cancelled in reverse order of start,
/// each only after the one started after it has returned.
@Suite struct ServiceGroupTests {
  @Test func shutdown_cancelsInReverseOrder_waitingForEach() async {
    let log = Mutex<[String]>([])
    let group = ServiceGroup()
    for name in ["discovery", "rescans", "pruning"] {
      group.start(
        LoopService(name) {
          log.withLock { $0.append("start \(name)") }
          while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
          // Letting go takes a while: the next one must not be cancelled meanwhile.
          try? await Task.sleep(for: .milliseconds(20))
          log.withLock { $0.append("end \(name)") }
        })
    }
    #expect(group.names == ["discovery", "rescans", "pruning"])
    for _ in 0..<1000 where log.withLock({ $0.count }) < 3 {
      try? await Task.sleep(for: .milliseconds(5))
    }
    await group.shutdown()
    let events = log.withLock { $0 }
    #expect(Array(events.suffix(3)) == ["end pruning", "end rescans", "end discovery"])
    #expect(Set(events.prefix(3)) == ["start discovery", "start rescans", "start pruning"])
    // After shutdown nothing starts.
    group.start(LoopService("late") { log.withLock { $0.append("late") } })
    try? await Task.sleep(for: .milliseconds(20))
    #expect(!log.withLock { $0 }.contains("late"))
  }

  /// A loop that ends by itself leaves the group as it is; shutdown still returns.
  @Test func aLoopThatEndsByItself_doesNotHoldUpShutdown() async {
    let group = ServiceGroup()
    let ran = Mutex(false)
    group.start(LoopService("once") { ran.withLock { $0 = true } })
    for _ in 0..<1000 where !ran.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
    await group.shutdown()
    #expect(ran.withLock { $0 })
  }

  /// The daemon's parts close in the reverse order they opened, each after the ones opened
  /// after it, and a close is not cut short by the cancellation that stopped its part.
  @Test func heldParts_closeInReverseOrder_andCloseWhole() async {
    let log = Mutex<[String]>([])
    let group = ServiceGroup()
    for name in ["state", "printers", "server"] {
      group.start(
        HeldPart(name) {
          // A close that waits (a printer finishing its label) runs to its end.
          try? await Task.sleep(for: .milliseconds(20))
          log.withLock { $0.append("closed \(name)") }
        })
    }
    await group.shutdown()
    #expect(log.withLock { $0 } == ["closed server", "closed printers", "closed state"])
  }
}
