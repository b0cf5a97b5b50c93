import CLinux
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Readiness of a descriptor, as epoll reports it.
public struct Readiness: OptionSet, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }
  public static let readable = Readiness(rawValue: 1)
  public static let writable = Readiness(rawValue: 2)
  /// The peer hung up or the descriptor has an error: reading or writing says which.
  public static let hangup = Readiness(rawValue: 4)
}

/// labeld's own socket loop: one thread waiting in `epoll_wait` on every registered
/// descriptor, calling its handler when it becomes ready. It owns the epoll and eventfd
/// descriptors; a registered descriptor stays its owner's, who removes it before closing.
///
/// Why not Dispatch read/write sources: a labeld under 70 short connections a second died
/// after 3 min 42 s of a soak of SIGILL in libdispatch's manager thread
/// (`_dispatch_source_refs_finalize_unregistration`), the open swift-corelibs-libdispatch
/// issue 949 about registering and unregistering many descriptors. Here a connection costs
/// one `EPOLL_CTL_ADD` when it starts and one `EPOLL_CTL_DEL` when it ends; between them,
/// only a socket whose peer reads slower than it is written to costs an `EPOLL_CTL_MOD`
/// when its writes would block and one when they have caught up.
///
/// Registrations are edge-triggered (`EPOLLET`) for reading, and for writing while the
/// owner asks (`watchWritable`): a handler hears of each change, reads or writes until
/// `EAGAIN`, and keeps its own note of whether it is paused (an edge that came while paused
/// is not repeated: the owner reads on resume). Writability is not watched all the time
/// because a stream socket is writable again each time its peer reads: every answer read
/// would wake the loop for nothing.
///
/// The loop also runs work handed to it (`execute`) and timers (`after`) on its thread,
/// between readiness handlers: what a socket's owner does later (resume reading, a
/// deadline, closing bookkeeping) runs where its socket's handler runs, with no other
/// thread or queue. Nothing run there may block.
///
/// A handler runs on the loop's thread, one at a time. It may still run once after
/// `remove` returns (it was looked up just before): the owner must make that harmless,
/// e.g. by a `closed` flag checked under the lock it closes under.
///
/// `@unchecked Sendable`: the descriptors are set in `init` and never change; the handler
/// table and the work waiting to run are in Mutexes; `thread` is written once by `start`
/// and read by `stop`.
public final class EventLoop: @unchecked Sendable {
  public typealias Handler = @Sendable (Readiness) -> Void
  public typealias Job = @Sendable () -> Void
  public struct Token: Hashable, Sendable {
    fileprivate let value: UInt64
  }

  private let epollFD: Int32
  private let wakeFD: Int32
  private let handlers = Mutex<[UInt64: (fd: Int32, handler: Handler)]>([:])
  private let nextToken = Atomic<UInt64>(1)
  private let stopping = Atomic<Bool>(false)
  private let thread = Mutex<pthread_t?>(nil)
  private let work = Mutex(Work())
  private let turnCount = Atomic<Int>(0)
  /// Jobs and timers waiting (changed under `work`'s lock): while there are none, as
  /// when every client only asks and is answered, a turn of the loop takes no lock and
  /// reads no clock.
  private let waiting = Atomic<Int>(0)
  private struct Work {
    var jobs: [Job] = []
    var timers = TimerHeap<Job>()
    /// The wake descriptor was written and the loop has not yet taken the work: another
    /// hand-off need not write it again.
    var woken = false
  }
  /// The wake descriptor's token: never given to a registration.
  private static let wakeToken: UInt64 = 0

  public init() throws(SystemError) {
    epollFD = try SystemError.check("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    do throws(SystemError) {
      wakeFD = try SystemError.check("eventfd") {
        eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
      }
    } catch {
      Glibc.close(epollFD)
      throw error
    }
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = Self.wakeToken
    _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
  }

  deinit {
    Glibc.close(wakeFD)
    Glibc.close(epollFD)
  }

  /// Starts the loop's thread. Call once.
  public func start() throws(SystemError) {
    let box = Unmanaged.passRetained(self).toOpaque()
    var id = pthread_t()
    let r = pthread_create(
      &id, nil,
      { raw in
        guard let raw else { return nil }
        let loop = Unmanaged<EventLoop>.fromOpaque(raw).takeRetainedValue()
        loop.run()
        return nil
      }, box)
    if r != 0 {
      Unmanaged<EventLoop>.fromOpaque(box).release()
      throw SystemError("pthread_create", errno: r)
    }
    thread.withLock { $0 = id }
  }

  /// Stops the loop and waits for its thread (unless called from it). Handlers do not run
  /// after this returns (apart from the one running, when called from a handler).
  public func stop() {
    guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
    wakeUp()
    guard
      let id = thread.withLock({ t in
        defer { t = nil }; return t
      })
    else { return }
    if pthread_equal(id, pthread_self()) != 0 {
      pthread_detach(id)
    } else {
      pthread_join(id, nil)
    }
    // What waited to run never will: let go of what its closures hold.
    work.withLock { w in
      w.jobs.removeAll()
      w.timers.removeAll()
      waiting.store(0, ordering: .releasing)
    }
  }

  /// Runs `job` on the loop's thread, after the handlers and work before it. Work handed
  /// over after `stop` never runs.
  public func execute(_ job: @escaping Job) {
    let wake = work.withLock { w in
      guard !stopping.load(ordering: .relaxed) else { return false }
      w.jobs.append(job)
      waiting.add(1, ordering: .releasing)
      defer { w.woken = true }
      return !w.woken
    }
    if wake { wakeUp() }
  }

  /// Runs `job` on the loop's thread once `delay` has passed (to the millisecond, never
  /// early). Timers are not cancelled: a job checks whether it is still wanted.
  public func after(_ delay: Duration, _ job: @escaping Job) {
    let deadline = ContinuousClock.now.advanced(by: max(delay, .zero))
    let wake = work.withLock { w in
      guard !stopping.load(ordering: .relaxed) else { return false }
      let sooner = w.timers.earliest.map { deadline < $0 } ?? true
      w.timers.add(job, at: deadline)
      waiting.add(1, ordering: .releasing)
      // The loop waits until its earliest timer: an earlier one must wake it to wait less.
      guard sooner, !w.woken else { return false }
      w.woken = true
      return true
    }
    if wake { wakeUp() }
  }

  /// How many times the loop has woken from `epoll_wait` (for tests: an idle loop sleeps).
  public var turns: Int { turnCount.load(ordering: .relaxed) }

  /// How many timers are set and not yet run (for tests).
  public var timerCount: Int { work.withLock { $0.timers.count } }

  private func wakeUp() {
    var one: UInt64 = 1
    _ = Glibc.write(wakeFD, &one, 8)
  }

  /// Registers `fd` (non-blocking) for reading, edge-triggered (and hang-ups and errors,
  /// which epoll always reports). If `fd` is readable already, the handler hears of it at
  /// once.
  public func add(_ fd: Int32, handler: @escaping Handler) throws(SystemError) -> Token {
    let token = nextToken.add(1, ordering: .relaxed).oldValue
    handlers.withLock { $0[token] = (fd, handler) }
    var event = epoll_event()
    event.events = Self.reading
    event.data.u64 = token
    do throws(SystemError) {
      try SystemError.check("epoll_ctl add") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
    } catch {
      _ = handlers.withLock { $0.removeValue(forKey: token) }
      throw error
    }
    return Token(value: token)
  }

  private static let reading = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue

  /// Watches a registered descriptor for writability too (`watch`), or no longer. Turned
  /// on for a descriptor that is writable already, the handler hears of it at once (epoll
  /// looks at the descriptor again), so an owner that met `EAGAIN` and then asks misses no
  /// edge. A descriptor already removed is left alone.
  public func watchWritable(_ token: Token, _ watch: Bool) throws(SystemError) {
    guard let fd = handlers.withLock({ $0[token.value]?.fd }) else { return }
    var event = epoll_event()
    event.events = Self.reading | (watch ? EPOLLOUT.rawValue : 0)
    event.data.u64 = token.value
    try SystemError.check("epoll_ctl mod") { epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
  }

  /// Unregisters a descriptor; call before closing it. Removing twice is harmless.
  public func remove(_ token: Token) {
    guard let entry = handlers.withLock({ $0.removeValue(forKey: token.value) }) else { return }
    var event = epoll_event()
    _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, entry.fd, &event)
  }

  /// How many descriptors are registered (for tests and metrics).
  public var count: Int { handlers.withLock { $0.count } }

  private func run() {
    let capacity = 64
    var events = [epoll_event](repeating: epoll_event(), count: capacity)
    while !stopping.load(ordering: .acquiring) {
      let timeout = waitMilliseconds()
      let (n, _) = retryingEINTR {
        events.withUnsafeMutableBufferPointer {
          epoll_wait(epollFD, $0.baseAddress, Int32(capacity), timeout)
        }
      }
      turnCount.add(1, ordering: .relaxed)
      // EINTR (a signal landed on this thread) is retried; any other failure means a bad
      // epoll descriptor, which cannot happen while `self` lives.
      if n < 0 { continue }
      for i in 0..<Int(n) {
        let token = events[i].data.u64
        if token == Self.wakeToken {
          var value: UInt64 = 0
          _ = Glibc.read(wakeFD, &value, 8)
          continue
        }
        guard let entry = handlers.withLock({ $0[token] }) else { continue }
        entry.handler(Self.readiness(events[i].events))
      }
      runWork()
    }
  }

  /// How long `epoll_wait` may wait: not at all with work waiting, until the earliest
  /// timer (rounded up, so a timer never finds itself early), or for ever.
  private func waitMilliseconds() -> Int32 {
    guard waiting.load(ordering: .acquiring) > 0 else { return -1 }
    enum Next { case work, timer(ContinuousClock.Instant), nothing }
    let next = work.withLock { w -> Next in
      if !w.jobs.isEmpty { return .work }
      return w.timers.earliest.map(Next.timer) ?? .nothing
    }
    switch next {
    case .nothing: return -1
    case .work: return 0
    case .timer(let earliest):
      let left = min(ContinuousClock.now.duration(to: earliest), .seconds(3600))
      guard left > .zero else { return 0 }
      let (seconds, attoseconds) = left.components
      return Int32(seconds) * 1000
        + Int32((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
  }

  /// Runs the work handed over and the timers that are due, timers first.
  private func runWork() {
    // Work handed over after this load wrote the wake descriptor: the next turn runs it.
    guard waiting.load(ordering: .acquiring) > 0 else { return }
    let (jobs, due) = work.withLock { w in
      w.woken = false
      var jobs: [Job] = []
      swap(&jobs, &w.jobs)
      let due = w.timers.takeDue(by: .now)
      waiting.subtract(jobs.count + due.count, ordering: .releasing)
      return (jobs, due)
    }
    for job in due { job() }
    for job in jobs { job() }
  }

  private static func readiness(_ bits: UInt32) -> Readiness {
    var r: Readiness = []
    if bits & (EPOLLIN.rawValue | EPOLLPRI.rawValue) != 0 { r.insert(.readable) }
    if bits & EPOLLOUT.rawValue != 0 { r.insert(.writable) }
    if bits & (EPOLLHUP.rawValue | EPOLLRDHUP.rawValue | EPOLLERR.rawValue) != 0 {
      r.insert(.hangup)
    }
    return r
  }
}
