import Dispatch
import LabelCore
import Synchronization

/// One connection carrying concurrent calls. Each request is written by its caller;
/// labeld answers in request order, and each answer goes to the call waiting for its id.
///
/// Who reads the answers: the caller first, for a moment (`ownWait`) on its own thread,
/// which is where most answers arrive (labeld answers in tens of microseconds): no other
/// thread is woken, so a call costs little more than the round trip. An answer that takes
/// longer is read on the channel's lane, off Swift's cooperative pool, while the caller
/// waits suspended; the lane stops once no call waits. One reader at a time, and it hands
/// every answer it reads to its call. When the connection ends, every waiting call fails
/// with `connectionLost`, and the channel is done: the client opens a new one.
final class CallChannel: Sendable {
  /// Why a call has no answer, and whether its request left at all (if not, it is safe to
  /// send it again, whatever it does).
  enum Failure: Error {
    case notSent(LabelError)
    case unanswered(LabelError)
  }
  private typealias Outcome = Result<Answer, Failure>
  private typealias Waiter = CheckedContinuation<Outcome, Never>

  /// A call's place: waiting (suspended, or still reading on its own), or answered.
  private enum Slot {
    case waiting(Waiter?)
    case answered(Outcome)
  }
  private enum Reader { case none, caller, lane }

  private struct State {
    var nextID = 1
    var slots: [Int: Slot] = [:]
    /// Set once the connection has ended; every later call fails with it.
    var ended: LabelError?
    var reader = Reader.none
    var hasWaiting: Bool {
      slots.values.contains { if case .waiting = $0 { true } else { false } }
    }
  }

  /// How long a caller reads for its own answer before handing over to the lane. It
  /// blocks a cooperative thread that long at most; answers take far less.
  static let ownWait = Duration.milliseconds(1)
  /// How long the lane waits for more before it checks whether any call still waits.
  private static let laneWait = Duration.milliseconds(50)

  private let socket: any MessageLink
  private let state = Mutex(State())
  private let lane = DispatchQueue(label: "LabelKit.answers")
  /// Timeouts fire here.
  private static let timers = DispatchQueue(label: "LabelKit.timeouts")

  /// Connects by `route`.
  init(route: LabeldRoute) throws(LabelError) { socket = try route.connect() }

  deinit { socket.shutdown() }

  /// Whether the connection has ended (the client then opens a new one).
  var isOpen: Bool { state.withLock { $0.ended == nil } }

  /// Ends the connection: waiting calls fail with `connectionLost`.
  func close() {
    socket.shutdown()
    end(.connectionLost)
  }

  /// Sends `method` and waits for its answer, or `timeout`, or the task's cancellation.
  /// Runs on the caller's executor: no hop to reach it.
  nonisolated(nonsending) func call(_ method: String, _ params: JSONValue, timeout: Duration?)
    async throws(Failure) -> Answer
  {
    let id: Int
    do {
      id = try state.withLock { s throws(Failure) in
        if let ended = s.ended { throw .notSent(ended) }
        defer { s.nextID += 1 }
        s.slots[s.nextID] = .waiting(nil)
        return s.nextID
      }
    }
    do {
      try socket.send(RequestLine.encode(id: id, method: method, params: params))
    } catch {
      // The connection is gone (labeld restarted): the next call opens a new one.
      state.withLock { $0.slots[id] = nil }
      end(error)
      throw .notSent(error)
    }
    let started = DispatchTime.now()
    if claimReading() {
      readOwnAnswer(id)
      if let outcome = take(id) { return try outcome.get() }
    }
    // A timer only for a call that waits: most are answered above, well within any timeout.
    if let timeout {
      Self.timers.asyncAfter(deadline: started + timeout.dispatchInterval) { [weak self] in
        self?.finish(id, .failure(.unanswered(.timeout)))
      }
    }
    let outcome = await withTaskCancellationHandler {
      await withCheckedContinuation { (waiter: Waiter) in
        let answered: Outcome? = state.withLock { s in
          guard case .answered(let outcome) = s.slots[id] else {
            s.slots[id] = .waiting(waiter)
            return nil
          }
          s.slots[id] = nil
          return outcome
        }
        if let answered { waiter.resume(returning: answered) }
      }
    } onCancel: {
      finish(id, .failure(.unanswered(.cancelled)))
    }
    return try outcome.get()
  }

  /// Becomes the reader if there is none.
  private func claimReading() -> Bool {
    state.withLock { s in
      guard s.reader == .none, s.ended == nil else { return false }
      s.reader = .caller
      return true
    }
  }

  /// Reads on the caller's thread until call `id` is answered or `ownWait` has passed,
  /// then hands reading over: to the lane if calls still wait, else to nobody.
  private func readOwnAnswer(_ id: Int) {
    let deadline = ContinuousClock.now + Self.ownWait
    while true {
      let left = deadline - ContinuousClock.now
      if left <= .zero { break }
      do {
        dispatch(try socket.readAvailable(waiting: left))
      } catch {
        end(error)
        break
      }
      let answered = state.withLock { s in
        if case .answered = s.slots[id] { return true }
        return s.slots[id] == nil
      }
      if answered { break }
    }
    handOver()
  }

  /// The reader is done: the lane reads on while calls wait.
  private func handOver() {
    let startLane = state.withLock { s in
      guard s.ended == nil, s.hasWaiting else {
        s.reader = .none
        return false
      }
      s.reader = .lane
      return true
    }
    if startLane { lane.async { self.readOnLane() } }
  }

  private func readOnLane() {
    while true {
      do {
        dispatch(try socket.readAvailable(waiting: Self.laneWait))
      } catch {
        return end(error)
      }
      let done = state.withLock { s in
        guard s.ended == nil, s.hasWaiting else {
          s.reader = .none
          return true
        }
        return false
      }
      if done { return }
    }
  }

  /// Hands each answer read to its call.
  private func dispatch(_ lines: [[UInt8]]) {
    for line in lines {
      let answer: Answer
      let message: JSONValue
      do {
        message = try RequestLine.parse(line)
        // Notifications do not come to an unsubscribed connection; skip any that do.
        if ServerNotification(message) != nil { continue }
        answer = try RequestLine.answer(message)
      } catch {
        socket.shutdown()
        return end(error)
      }
      guard let id = message["id"]?.intValue else { continue }
      finish(id, .success(answer))
    }
  }

  /// Gives call `id` its outcome, unless it has one: resumes it if it is suspended, else
  /// leaves the outcome for it to take.
  private func finish(_ id: Int, _ outcome: Outcome) {
    let waiter: Waiter? = state.withLock { s in
      guard case .waiting(let waiter) = s.slots[id] else { return nil }
      if let waiter {
        s.slots[id] = nil
        return waiter
      }
      s.slots[id] = .answered(outcome)
      return nil
    }
    waiter?.resume(returning: outcome)
  }

  /// Call `id`'s outcome, taken out, if it has one.
  private func take(_ id: Int) -> Outcome? {
    state.withLock { s in
      guard case .answered(let outcome) = s.slots[id] else { return nil }
      s.slots[id] = nil
      return outcome
    }
  }

  private func end(_ error: LabelError) {
    let waiters: [Waiter] = state.withLock { s in
      s.ended = s.ended ?? error
      s.reader = .none
      var suspended: [Waiter] = []
      for (id, slot) in s.slots {
        guard case .waiting(let waiter) = slot else { continue }
        if let waiter {
          suspended.append(waiter)
          s.slots[id] = nil
        } else {
          s.slots[id] = .answered(.failure(.unanswered(error)))
        }
      }
      return suspended
    }
    for waiter in waiters { waiter.resume(returning: .failure(.unanswered(error))) }
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
