import Dispatch
import Synchronization

/// Where the kit's async tests run their tasks: threads of their own, not Swift's shared
/// cooperative pool. The rest of this suite is synchronous and blocks a pool thread for
/// the length of each test (waiting on daemons, emulated USB, CUPS), and the pool has one
/// thread per core: two such tests at once on this 2-core machine stalled every async
/// test, whatever the code under test did. An app's pool is its own; here the tests must
/// not measure their neighbours.
package final class KitExecutor: TaskExecutor {
  package static let shared = KitExecutor()
  /// Serial queues have a thread each when they need one (Dispatch's concurrent ones share
  /// the global queue's, as many as cores); jobs go round them.
  private let lanes = (0..<4).map { DispatchQueue(label: "kit-tests-\($0)") }
  private let next = Mutex(0)

  package func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    let lane = next.withLock { n in
      defer { n = (n + 1) % lanes.count }
      return lanes[n]
    }
    lane.async { unowned.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}

/// Runs `body` with its tasks, and the default actors they call, on `KitExecutor`.
package func onKitExecutor<T, E: Error>(
  isolation: isolated (any Actor)? = #isolation, _ body: () async throws(E) -> T
) async throws(E) -> T {
  try await withTaskExecutorPreference(KitExecutor.shared, isolation: isolation, operation: body)
}
