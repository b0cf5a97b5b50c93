import Synchronization
import Testing

@testable import LabelServer

/// The shared read-ahead pool: lends up to its total, all or nothing, and wakes those that
/// waited when bytes come back.
struct ReadAheadBudgetTests {
  @Test func lendsUpToItsTotal_thenWakesWaitersWhenBytesComeBack() {
    let budget = ReadAheadBudget(total: 100, floor: 10)
    let woken = Mutex<[UInt64]>([])
    let wake = { (id: UInt64) in { @Sendable in woken.withLock { $0.append(id) } } }
    #expect(budget.borrow(60, id: 1, wake: wake(1)))
    #expect(budget.borrow(40, id: 2, wake: wake(2)))
    #expect(!budget.borrow(1, id: 3, wake: wake(3)))
    #expect(!budget.borrow(1, id: 3, wake: wake(3)), "asking twice waits once")
    #expect(!budget.borrow(50, id: 4, wake: wake(4)))
    budget.forget(4)
    #expect(budget.lent == 100)
    budget.giveBack(30)
    #expect(woken.withLock { $0 } == [3])
    #expect(budget.lent == 70)
    #expect(budget.borrow(30, id: 3, wake: wake(3)))
    budget.giveBack(1000)
    #expect(budget.lent == 0, "never below zero")
  }
}
