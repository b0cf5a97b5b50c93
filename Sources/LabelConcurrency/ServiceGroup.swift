import Synchronization

/// A long-running loop of the daemon (history pruning, CUPS discovery, USB rescans): `run`
/// works until its task is cancelled, lets go of what it holds, and returns.
package protocol Service: Sendable {
  var name: String { get }
  func run() async
}

/// A service made of a closure.
package struct LoopService: Service {
  package let name: String
  private let body: @Sendable () async -> Void

  package init(_ name: String, _ body: @escaping @Sendable () async -> Void) {
    self.name = name
    self.body = body
  }

  package func run() async { await body() }
}

/// Every long-running loop in one task group: `start` adds each as a child, in order;
/// `shutdown` cancels them one by one in reverse order of start, waiting for each to
/// return before cancelling the one before it, and returns when the group is empty.
package final class ServiceGroup: Sendable {
  private struct State {
    var started: [(name: String, stop: Stop)] = []
    var group: Task<Void, Never>?
    var adder: AsyncStream<(any Service, Stop)>.Continuation?
    var closed = false
  }
  private let state = Mutex(State())

  /// A child's stop request, and the news that it returned.
  private final class Stop: Sendable {
    let requested = Latch()
    let finished = Latch()
  }

  /// Opens once; everyone waiting, and everyone who comes later, goes through.
  private final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>(
      (false, []))

    func open() {
      let waiting = state.withLock { s in
        s.open = true
        defer { s.waiting = [] }
        return s.waiting
      }
      for c in waiting { c.resume() }
    }

    func wait() async {
      await withCheckedContinuation { c in
        let now = state.withLock { s in
          if !s.open { s.waiting.append(c) }
          return s.open
        }
        if now { c.resume() }
      }
    }
  }

  package init() {
    let (stream, adder) = AsyncStream<(any Service, Stop)>.makeStream()
    let group = Task {
      await withTaskGroup(of: Void.self) { group in
        for await (service, stop) in stream {
          group.addTask {
            // The service runs in a child of its own, cancelled when its stop comes.
            await withTaskGroup(of: Void.self) { inner in
              inner.addTask { await service.run() }
              inner.addTask { await stop.requested.wait() }
              _ = await inner.next()
              inner.cancelAll()
              await inner.waitForAll()
            }
            stop.finished.open()
          }
        }
        await group.waitForAll()
      }
    }
    state.withLock {
      $0.group = group
      $0.adder = adder
    }
  }

  /// Starts `service` in the group; after `shutdown` it is not started.
  package func start(_ service: any Service) {
    let stop = Stop()
    let adder: AsyncStream<(any Service, Stop)>.Continuation? = state.withLock { s in
      guard !s.closed else { return nil }
      s.started.append((service.name, stop))
      return s.adder
    }
    adder?.yield((service, stop))
  }

  /// The services running, in order of start.
  package var names: [String] { state.withLock { $0.started.map(\.name) } }

  /// Cancels every service in reverse order of start, each after the one started after it
  /// has returned, then waits for the group to end.
  package func shutdown() async {
    let (started, adder, group) = state.withLock { s in
      s.closed = true
      return (s.started, s.adder, s.group)
    }
    for (_, stop) in started.reversed() {
      stop.requested.open()
      await stop.finished.wait()
    }
    adder?.finish()
    await group?.value
  }
}

/// A part of the daemon held open while its group runs (the state, the printers, the
/// server): `run` waits until the group stops it, then `close` lets the part go, shielded
/// from the cancellation that stopped it (a drain may take its time). Started in the order
/// the parts open, so the group closes them in the reverse order, each after the ones
/// opened after it have closed: no part is stopped by hand.
package struct HeldPart: Service {
  package let name: String
  private let close: @Sendable () async -> Void

  package init(_ name: String, close: @escaping @Sendable () async -> Void) {
    self.name = name
    self.close = close
  }

  package func run() async {
    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    await Task { await close() }.value
  }
}
