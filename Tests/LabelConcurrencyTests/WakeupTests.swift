import LabelConcurrency
import Testing

/// A poller's wake-up call: a signal wakes the wait (or the next one, if it came first),
/// once; a wait without one ends at its timeout; a cancelled waiter does not sleep on.
@Suite struct WakeupTests {
  @Test func aSignalBeforeTheWait_isKept_forOneWait() async {
    let wakeup = Wakeup()
    wakeup.signal()
    wakeup.signal()
    #expect(await wakeup.wait(timeout: .seconds(3600)))
    // Two signals before one wait are one wake-up.
    #expect(await !wakeup.wait(timeout: .milliseconds(10)))
  }

  @Test func aSignalDuringTheWait_wakesIt() async {
    let wakeup = Wakeup()
    async let woke = wakeup.wait(timeout: .seconds(3600))
    // Whether it lands before or after the wait begins, the wait sees it.
    wakeup.signal()
    #expect(await woke)
  }

  @Test func withoutASignal_theWaitEndsAtItsTimeout() async {
    let wakeup = Wakeup()
    let start = ContinuousClock.now
    #expect(await !wakeup.wait(timeout: .milliseconds(20)))
    #expect(ContinuousClock.now - start >= .milliseconds(20))
    // The timeout that ended the wait does not leave a signal behind.
    wakeup.signal()
    #expect(await wakeup.wait(timeout: .seconds(3600)))
  }

  @Test func aCancelledWaiter_endsAsATimeout() async {
    let wakeup = Wakeup()
    let waiter = Task { await wakeup.wait(timeout: .seconds(60)) }
    waiter.cancel()
    #expect(await !waiter.value)
    // Nothing was consumed: a later signal still wakes the next wait.
    wakeup.signal()
    #expect(await wakeup.wait(timeout: .seconds(3600)))
  }
}
