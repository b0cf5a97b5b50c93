import Dispatch

/// The one way labeld calls blocking C (SQLite, libcups, libusb, a TCP connect) from async
/// code: a serial lane with a thread of its own, off Swift's cooperative pool (whose few
/// threads must never block), that runs each call in order and resumes the caller with its
/// result. Each owner of a C handle has one lane, and touches the handle only on it.
public final class BlockingQueue: Sendable {
  private let queue: DispatchQueue

  /// `label` names the thread (debuggers and `ps -L` show it).
  public init(label: String) { queue = DispatchQueue(label: label) }

  /// Runs `body` on the lane and returns its result, or its typed error, to the caller.
  public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T)
    async throws(E) -> T
  {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: Result(catching: body)) }
    }
    return try result.get()
  }

  /// Runs `body` on the lane without waiting for it.
  public func submit(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

  /// Runs `body` on the lane and blocks until it is done: for start-up and shutdown, never
  /// from async code.
  public func sync<T>(_ body: () throws -> T) rethrows -> T { try queue.sync(execute: body) }
}
