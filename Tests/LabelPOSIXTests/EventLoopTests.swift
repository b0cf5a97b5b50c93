import Dispatch
import LabelPOSIX
import Synchronization
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The daemon's epoll loop on real sockets: what a handler hears, that a removed
/// descriptor is never reported, and that thousands of short registrations leave nothing
/// behind (the churn that crashed Dispatch's sources).
@Suite struct EventLoopTests {
  /// A connected, non-blocking Unix socket pair.
  static func pair() throws -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    let r = socketpair(
      AF_UNIX,
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
    try #require(r == 0)
    return (fds[0], fds[1])
  }

  /// Waits for `semaphore`, failing the test instead of hanging if the loop never calls.
  static func wait(_ semaphore: DispatchSemaphore, _ what: String) {
    #expect(semaphore.wait(timeout: .now() + 30) == .success, "the loop never reported \(what)")
  }

  @Test func bytesWritten_reachTheHandler_asReadable() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let (a, b) = try Self.pair()
    defer { close(a); close(b) }
    let got = Mutex<[UInt8]>([])
    let done = DispatchSemaphore(value: 0)
    let token = try loop.add(a) { readiness in
      guard readiness.contains(.readable) else { return }
      var buffer = [UInt8](repeating: 0, count: 64)
      while true {
        let n = read(a, &buffer, buffer.count)
        guard n > 0 else { break }
        let total = got.withLock { g in
          g += buffer[0..<n]
          return g.count
        }
        if total == 5 { done.signal() }
      }
    }
    defer { loop.remove(token) }
    #expect(write(b, "hello", 5) == 5)
    Self.wait(done, "readable")
    #expect(got.withLock { $0 } == Array("hello".utf8))
  }

  @Test func aFullSocket_isReportedWritable_onceThePeerReads() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let (a, b) = try Self.pair()
    defer { close(a); close(b) }
    let block = [UInt8](repeating: 0x41, count: 4096)
    var filled = 0
    while true {
      let n = send(a, block, block.count, Int32(MSG_DONTWAIT))
      if n <= 0 { break }
      filled += n
    }
    #expect(errno == EAGAIN)
    let writable = DispatchSemaphore(value: 0)
    let armed = Atomic<Bool>(false)
    let token = try loop.add(a) { readiness in
      if readiness.contains(.writable) && armed.load(ordering: .acquiring) { writable.signal() }
    }
    defer { loop.remove(token) }
    try loop.watchWritable(token, true)
    armed.store(true, ordering: .releasing)
    var sink = [UInt8](repeating: 0, count: 65_536)
    var drained = 0
    while drained < filled {
      let n = read(b, &sink, sink.count)
      if n <= 0 { break }
      drained += n
    }
    #expect(drained == filled)
    Self.wait(writable, "writable")
  }

  /// Writability is reported only while watched: a peer reading what was written does not
  /// wake the loop (it did for every answer read), and watching a socket that is writable
  /// already reports it at once (an owner that met EAGAIN misses no edge).
  @Test func writability_isReportedOnlyWhileWatched() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let (a, b) = try Self.pair()
    defer { close(a); close(b) }
    let reports = Mutex<(writable: Int, readable: Int)>((0, 0))
    let read = DispatchSemaphore(value: 0)
    let writable = DispatchSemaphore(value: 0)
    let token = try loop.add(a) { readiness in
      reports.withLock {
        if readiness.contains(.writable) { $0.writable += 1 }
        if readiness.contains(.readable) { $0.readable += 1 }
      }
      if readiness.contains(.writable) { writable.signal() }
      if readiness.contains(.readable) { read.signal() }
    }
    defer { loop.remove(token) }
    var byte: UInt8 = 0
    for i in 0..<50 {
      #expect(send(a, [UInt8(i)], 1, Int32(MSG_DONTWAIT)) == 1)
      #expect(Glibc.read(b, &byte, 1) == 1 && byte == UInt8(i))
    }
    // Something the loop surely reports, after everything above: a byte to read.
    #expect(send(b, [0x42], 1, 0) == 1)
    Self.wait(read, "readable")
    #expect(reports.withLock { $0.writable } == 0, "50 answers read, no writable report")
    try loop.watchWritable(token, true)
    Self.wait(writable, "writable once watched")
    try loop.watchWritable(token, false)
  }

  @Test func aClosedPeer_isReportedAsHangup() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let (a, b) = try Self.pair()
    defer { close(a) }
    let hung = DispatchSemaphore(value: 0)
    let token = try loop.add(a) { readiness in
      if readiness.contains(.hangup) { hung.signal() }
    }
    defer { loop.remove(token) }
    close(b)
    Self.wait(hung, "hangup")
    var byte: UInt8 = 0
    #expect(read(a, &byte, 1) == 0, "a hangup reads as end of file")
  }

  @Test func aRemovedDescriptor_isNeverReported() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let (a, b) = try Self.pair()
    let (c, d) = try Self.pair()
    defer { for fd in [a, b, c, d] { close(fd) } }
    let removedCalls = Atomic<Int>(0)
    let firstReport = DispatchSemaphore(value: 0)
    let removed = try loop.add(a) { _ in
      if removedCalls.add(1, ordering: .relaxed).newValue == 1 { firstReport.signal() }
    }
    // Wait for a first report, so what follows is new (a handler looked up just before
    // `remove` may still run once after it: EventLoop's contract, which this test would
    // otherwise race with).
    #expect(write(b, "0", 1) == 1)
    Self.wait(firstReport, "the first report")
    let other = DispatchSemaphore(value: 0)
    let kept = try loop.add(c) { readiness in
      if readiness.contains(.readable) { other.signal() }
    }
    defer { loop.remove(kept) }
    loop.remove(removed)
    loop.remove(removed)  // twice is harmless
    let before = removedCalls.load(ordering: .relaxed)
    #expect(write(b, "x", 1) == 1)
    #expect(write(d, "y", 1) == 1)
    Self.wait(other, "the kept descriptor")
    // Both writes happened before the loop reported `c`; `a` was out of the set by then.
    #expect(removedCalls.load(ordering: .relaxed) == before)
    #expect(loop.count == 1)
  }

  @Test func thousandsOfShortRegistrations_leaveNothingBehind() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let heard = Atomic<Int>(0)
    // The lowest free descriptor before: other tests in this process open and close their
    // own meanwhile, but a leak of one a round would put the next far above it.
    let (x0, y0) = try Self.pair()
    close(x0)
    close(y0)
    for round in 0..<20_000 {
      let (a, b) = try Self.pair()
      let token = try loop.add(a) { _ in heard.add(1, ordering: .relaxed) }
      if round % 2 == 0 { _ = write(b, "z", 1) }
      loop.remove(token)
      close(a)
      close(b)
    }
    #expect(loop.count == 0)
    // Every descriptor went back: the next socket gets a low number again.
    let (x, y) = try Self.pair()
    defer { close(x); close(y) }
    #expect(x < x0 + 1000, "descriptor \(x), \(x0) before: registrations leaked descriptors")
  }

  @Test func stop_fromAnotherThread_waitsForTheLoop_andIsIdempotent() throws {
    let loop = try EventLoop()
    try loop.start()
    loop.stop()
    loop.stop()
    #expect(loop.count == 0)
  }

  /// A loop with nothing to do sleeps in `epoll_wait` until something happens: not a turn
  /// while idle, with no timer, after a timer has run, or after work was handed over.
  @Test func anIdleLoop_sleeps() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let done = DispatchSemaphore(value: 0)
    loop.after(.milliseconds(1)) { loop.execute { done.signal() } }
    Self.wait(done, "a timer and the work it handed over")
    let turns = loop.turns
    usleep(200_000)
    #expect(loop.turns == turns, "an idle loop woke \(loop.turns - turns) times in 200 ms")
  }

  /// Work handed to the loop runs on its thread (the thread its socket handlers run on),
  /// in the order it was handed over, from any thread and from the loop itself.
  @Test func executedWork_runsOnTheLoopsThread_inOrder() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    let (a, b) = try Self.pair()
    defer { close(a); close(b) }
    let handlerThread = Mutex<pthread_t?>(nil)
    let seen = DispatchSemaphore(value: 0)
    let token = try loop.add(a) { _ in
      handlerThread.withLock { $0 = pthread_self() }
      seen.signal()
    }
    defer { loop.remove(token) }
    #expect(write(b, "0", 1) == 1)
    Self.wait(seen, "the socket's first readiness")
    let ran = Mutex<[Int]>([])
    let threads = Mutex<[pthread_t]>([])
    let done = DispatchSemaphore(value: 0)
    for i in 0..<100 {
      loop.execute {
        ran.withLock { $0.append(i) }
        threads.withLock { $0.append(pthread_self()) }
        // Handed over by the loop itself: runs after everything already waiting.
        if i == 99 { loop.execute { done.signal() } }
      }
    }
    Self.wait(done, "the work handed over")
    #expect(ran.withLock { $0 } == Array(0..<100))
    let loopThread = try #require(handlerThread.withLock { $0 })
    #expect(threads.withLock { $0 }.allSatisfy { pthread_equal($0, loopThread) != 0 })
  }

  /// Timers run earliest deadline first (two with one deadline in the order they were
  /// set), never before their delay has passed, each once.
  @Test func timers_runInDeadlineOrder_neverEarly() throws {
    let loop = try EventLoop()
    try loop.start()
    defer { loop.stop() }
    var generator = SystemRandomNumberGenerator()
    let delays = (0..<200).map { _ in Int.random(in: 0...40, using: &generator) }
    let ran = Mutex<[(index: Int, early: Bool)]>([])
    let done = DispatchSemaphore(value: 0)
    for (i, ms) in delays.enumerated() {
      let set = ContinuousClock.now
      loop.after(.milliseconds(ms)) {
        let early = ContinuousClock.now - set < .milliseconds(ms)
        let count = ran.withLock { r in
          r.append((i, early))
          return r.count
        }
        if count == delays.count { done.signal() }
      }
    }
    Self.wait(done, "all 200 timers")
    let order = ran.withLock { $0 }
    #expect(
      order.filter(\.early).isEmpty, "timers ran early: \(order.filter(\.early).map(\.index))")
    #expect(Set(order.map(\.index)).count == delays.count)
    // Set one after another, so a later index never has an earlier deadline for the same
    // delay: for equal delays the order of setting holds.
    for ms in Set(delays) {
      let same = order.map(\.index).filter { delays[$0] == ms }
      #expect(same == same.sorted(), "timers of \(ms) ms ran out of order: \(same)")
    }
    // A shorter delay set later may run before a longer one set earlier, never after one
    // set at the same time with a longer delay and more than the clock's slack.
    let positions = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1.index, $0) })
    let zero = delays.indices.filter { delays[$0] == 0 }
    let long = delays.indices.filter { delays[$0] == 40 }
    if let lastZero = zero.map({ positions[$0]! }).max(),
      let firstLong = long.map({ positions[$0]! }).min()
    {
      #expect(lastZero < firstLong, "a 0 ms timer ran after a 40 ms one")
    }
    #expect(loop.timerCount == 0)
  }

  /// Stopping the loop lets go of the work still waiting: a timer for an hour neither
  /// runs nor keeps what it captured alive.
  @Test func stop_dropsWaitingTimers_andWhatTheyHold() throws {
    final class Held: Sendable {}
    let loop = try EventLoop()
    try loop.start()
    weak var weakHeld: Held?
    let ran = Atomic<Bool>(false)
    do {
      let held = Held()
      weakHeld = held
      loop.after(.seconds(3600)) {
        withExtendedLifetime(held) { ran.store(true, ordering: .relaxed) }
      }
    }
    #expect(loop.timerCount == 1)
    loop.stop()
    #expect(loop.timerCount == 0)
    #expect(weakHeld == nil)
    loop.execute { ran.store(true, ordering: .relaxed) }
    loop.after(.zero) { ran.store(true, ordering: .relaxed) }
    #expect(loop.timerCount == 0)
    let didRun = ran.load(ordering: .relaxed)
    #expect(!didRun)
  }
}

/// Libraries opened on first use: a library that is not there is a typed error naming it,
/// never a crash, and what is mapped can be asked without mapping it.
@Suite struct SharedLibraryTests {
  @Test func aMissingLibrary_isAnErrorNamingIt() {
    guard case .failure(let error) = SharedLibrary.open(["libnot-there.so.9", "libalso-not.so.1"])
    else {
      Issue.record("a library that does not exist was opened")
      return
    }
    #expect(
      error.message.contains("libnot-there.so.9") && error.message.contains("libalso-not.so.1"))
  }

  @Test func theFirstNameThatLoads_isOpened_andIsThenMapped() {
    #expect(!SharedLibrary.isLoaded("libnot-there.so.9"))
    guard case .success = SharedLibrary.open(["libnot-there.so.9", "libm.so.6"]) else {
      Issue.record("libm.so.6 did not open")
      return
    }
    #expect(SharedLibrary.isLoaded("libm.so.6"))
  }
}
