import Synchronization

/// A part or a long-running loop of the daemon (the printers, the server; history pruning,
/// CUPS discovery, USB rescans): `run` works until its task is cancelled, lets go of what
/// it holds, and returns.
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

/// Every part and long-running loop of the daemon, each in a task the group owns: `start`
/// runs each at once, in order; `shutdown` cancels them one by one in reverse order of
/// start, awaiting each task's end before cancelling the one before it, and returns when
/// the last has ended. No task outlives the group's shutdown, and nothing waits on a
/// primitive of our own: the order is the awaited tasks'.
package final class ServiceGroup: Sendable {
  private struct State {
    var started: [(name: String, task: Task<Void, Never>)] = []
    var closed = false
  }
  private let state = Mutex(State())

  package init() {}

  /// Starts `service`; after `shutdown` it is not started.
  package func start(_ service: any Service) {
    state.withLock { s in
      guard !s.closed else { return }
      s.started.append((service.name, Task { await service.run() }))
    }
  }

  /// The services started, in order of start.
  package var names: [String] { state.withLock { $0.started.map(\.name) } }

  /// Cancels every service in reverse order of start, each after the one started after it
  /// has returned.
  package func shutdown() async {
    let started = state.withLock { s in
      s.closed = true
      return s.started
    }
    for (_, task) in started.reversed() {
      task.cancel()
      await task.value
    }
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
