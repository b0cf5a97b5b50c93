import Dispatch
import LabelCore
import Synchronization

/// One connection carrying concurrent calls: each request is written by its caller, a
/// reader thread of its own takes the answers (labeld writes them in request order) and
/// resumes the caller waiting for that id. When the connection ends, every waiting call
/// fails with `connectionLost`, and the channel is done: the client opens a new one.
final class CallChannel: Sendable {
  /// Why a call has no answer, and whether its request left at all (if not, it is safe to
  /// send it again, whatever it does).
  enum Failure: Error {
    case notSent(LabelError)
    case unanswered(LabelError)
  }
  private typealias Waiter = CheckedContinuation<Result<Answer, Failure>, Never>

  private struct State {
    var nextID = 1
    var waiting: [Int: Waiter] = [:]
    /// Set once the connection has ended; every later call fails with it.
    var ended: LabelError?
  }

  private let socket: LineSocket
  private let state = Mutex(State())
  /// Answers are read on this queue's thread, which blocks in `read` between them (off
  /// Swift's cooperative pool, whose few threads must never block).
  private let reader = DispatchQueue(label: "LabelKit.answers")
  /// Timeouts fire here.
  private static let timers = DispatchQueue(label: "LabelKit.timeouts")

  init(path: String) throws(LabelError) {
    socket = try LineSocket(path: path)
    // The loop holds the channel until the connection ends (`close` ends it).
    reader.async { self.readAnswers() }
  }

  /// Whether the connection has ended (the client then opens a new one).
  var isOpen: Bool { state.withLock { $0.ended == nil } }

  /// Ends the connection: waiting calls fail with `connectionLost`.
  func close() { socket.shutdown() }

  /// Sends `method` and waits for its answer, or `timeout`, or the task's cancellation.
  func call(_ method: String, _ params: JSONValue, timeout: Duration?) async throws(Failure)
    -> Answer
  {
    let id = state.withLock { s in
      defer { s.nextID += 1 }
      return s.nextID
    }
    let line = RequestLine.encode(id: id, method: method, params: params)
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (waiter: Waiter) in
        let ended: LabelError? = state.withLock { s in
          if let ended = s.ended { return ended }
          s.waiting[id] = waiter
          return nil
        }
        if let ended { return waiter.resume(returning: .failure(.notSent(ended))) }
        do throws(LabelError) {
          try socket.send(line)
        } catch {
          finish(id, .failure(.notSent(error)))
          return
        }
        if let timeout {
          Self.timers.asyncAfter(deadline: .now() + timeout.dispatchInterval) { [weak self] in
            self?.finish(id, .failure(.unanswered(.timeout)))
          }
        }
      }
    } onCancel: {
      finish(id, .failure(.unanswered(.cancelled)))
    }
    return try result.get()
  }

  /// Resumes the call waiting for `id`, if it still waits.
  private func finish(_ id: Int, _ result: Result<Answer, Failure>) {
    state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(returning: result)
  }

  private func readAnswers() {
    while true {
      let lines: [[UInt8]]
      do {
        lines = try socket.readLines(timeout: nil)
      } catch {
        return end(error)
      }
      for line in lines {
        let answer: Answer
        let message: JSONValue
        do {
          message = try RequestLine.parse(line)
          // Notifications do not come to an unsubscribed connection; skip any that do.
          if Notification(message) != nil { continue }
          answer = try RequestLine.answer(message)
        } catch {
          socket.shutdown()
          return end(error)
        }
        guard let id = message["id"]?.intValue else { continue }
        finish(id, .success(answer))
      }
    }
  }

  private func end(_ error: LabelError) {
    let waiting = state.withLock { s in
      s.ended = s.ended ?? error
      defer { s.waiting = [:] }
      return s.waiting
    }
    for waiter in waiting.values { waiter.resume(returning: .failure(.unanswered(error))) }
  }
}

extension Duration {
  /// The duration as Dispatch's interval (nanoseconds; long ones capped at a day).
  var dispatchInterval: DispatchTimeInterval {
    let (seconds, attoseconds) = components
    if seconds >= 86_400 { return .seconds(86_400) }
    return .nanoseconds(Int(max(seconds, 0)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
  }
}
