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

/// A connection's account with the pool: its floor first, then chunks borrowed, given back
/// as requests are answered; one deadline per long partial message.
struct ReadAheadAccountTests {
  @Test func borrowsBeyondTheFloor_andGivesBackAsRequestsAreAnswered() {
    let budget = ReadAheadBudget(total: 100, floor: 10)
    var account = ReadAheadAccount(budget: budget, id: 1)
    #expect(account.allowance(chunk: 40, cap: 1000, wake: {}) == 50)
    #expect(budget.lent == 40)
    account.took(50)
    #expect(account.allowance(chunk: 40, cap: 1000, wake: {}) == 40)
    account.took(40)
    #expect(account.allowance(chunk: 40, cap: 1000, wake: {}) == 0, "the pool has 20 left")
    #expect(account.waitingForBudget)
    account.release(60)
    #expect(account.held == 30 && account.borrowed == 20)
    #expect(budget.lent == 20)
    account.close()
    #expect(budget.lent == 0 && account.held == 0)
  }

  @Test func readingStopsAtTheCap_whateverThePoolHas() {
    let budget = ReadAheadBudget(total: 1000, floor: 10)
    var account = ReadAheadAccount(budget: budget, id: 1)
    account.took(100)
    #expect(account.allowance(chunk: 40, cap: 100, wake: {}) == 0)
    #expect(!account.waitingForBudget)
  }

  @Test func aLongPartialMessage_getsOneDeadline_untilItEnds() {
    var account = ReadAheadAccount(budget: ReadAheadBudget(total: 100, floor: 10), id: 1)
    #expect(account.watch(partialBytes: 10) == nil, "within the floor")
    let first = account.watch(partialBytes: 11)
    #expect(first != nil)
    #expect(account.watch(partialBytes: 50) == nil, "the same message")
    account.messageEnded()
    let second = account.watch(partialBytes: 50)
    #expect(second != nil && second != first)
    let early = account.deadlinePassed(first!)
    let inForce = account.deadlinePassed(second!)
    let again = account.deadlinePassed(second!)
    #expect(!early, "an earlier deadline is not the one in force")
    #expect(inForce)
    #expect(!again, "once")
  }
}
