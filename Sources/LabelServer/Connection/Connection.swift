import LabelCore
import LabelEvents
import LabelLog
import LabelPOSIX
import LabelWire
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// One client connection, a pipeline of four stages under one lock:
///
///     socket → Framer → ReadAheadAccount → RequestInbox → handler → Outbox → socket
///
/// The framer turns bytes into messages (`LineFramer` on the Unix socket); the account
/// holds their bytes against the shared read-ahead budget until they are answered; the
/// inbox hands them to the handler one at a time, in order; the outbox writes answers and
/// notifications without ever blocking. This class owns the descriptor and what the
/// stages cannot decide alone: when reading pauses, when handling waits for the writer,
/// the timers, and closing.
///
/// The descriptor is registered with the server's `EventLoop` (edge-triggered for reading
/// and writing) from `start` until `closeNow`, which removes and closes it under the state
/// lock: a handler that runs after that finds `closed` set and touches nothing.
///
/// `@unchecked Sendable`: every mutable field lives in `state` (a Mutex).
package final class Connection: EventSubscriber, @unchecked Sendable {
  package typealias Handler = @Sendable ([UInt8], Connection) async -> [UInt8]?
  /// Answers a request on the calling thread when it can without waiting (`.later`: it
  /// cannot, and `Handler` takes it).
  package typealias ImmediateHandler = @Sendable ([UInt8], Connection) -> Dispatcher.Immediate

  package let subscriberID: UInt64
  package let caller: Caller
  private let fd: Int32
  /// Closes the descriptor (a WebSocket's goes back to the HTTP library).
  private let closeDescriptor: @Sendable (Int32) -> Void
  private let limits: ConnectionLimits
  private let loop: EventLoop
  private let handler: Handler
  private let immediate: ImmediateHandler
  private let onClose: @Sendable (Connection) -> Void
  /// Asks the alert channel for the next replay chunk.
  private let onReplayDrained: @Sendable (Connection) -> Void
  private let state: Mutex<State>
  private let log: Logger
  private static let chunkSize = 64 * 1024

  private struct State {
    var framer: any Framer
    var account: ReadAheadAccount
    var inbox = RequestInbox()
    var outbox = Outbox()
    /// Reading paused (or not started): readiness is noted by the next `readable` call
    /// that a resume makes, not by the loop's edges.
    var readSuspended = true
    var registration: EventLoop.Token?
    var readStopped = false
    var eof = false
    var writeArmed = false
    /// The loop watches the socket for writability (`updateWritableWatch`).
    var watchingWritable = false
    var closing = false
    var closed = false
    /// A `since` replay is in progress and wants its next chunk once the queue drains.
    var catchingUp = false
    /// Keep-alive: the client sent something since the last ping.
    var heard = true
    /// Everything is written and the sending side shut: what the client still sends is
    /// read and dropped until it closes (`finishClosing`).
    var lingering = false
    /// Sent `overflow`: the server counts it when it closes (`labeld_clients_overflowed_total`).
    var overflowed = false
  }

  package init(
    id: UInt64, fd: Int32, caller: Caller, framer: any Framer, limits: ConnectionLimits,
    loop: EventLoop, log: Logger, budget: ReadAheadBudget,
    handler: @escaping Handler, immediate: @escaping ImmediateHandler = { _, _ in .later },
    onClose: @escaping @Sendable (Connection) -> Void,
    onReplayDrained: @escaping @Sendable (Connection) -> Void,
    closeDescriptor: @escaping @Sendable (Int32) -> Void = { _ = Glibc.close($0) }
  ) {
    self.subscriberID = id
    self.fd = fd
    self.caller = caller
    self.closeDescriptor = closeDescriptor
    self.limits = limits
    self.loop = loop
    self.log = log
    self.handler = handler
    self.immediate = immediate
    self.onClose = onClose
    self.onReplayDrained = onReplayDrained
    self.state = Mutex(State(framer: framer, account: ReadAheadAccount(budget: budget, id: id)))
  }

  /// Registers with the loop and starts reading; a connection the loop cannot take is
  /// closed (its client sees the socket close).
  package func start() {
    state.withLock { s in
      guard !s.closed else { return }
      s.readSuspended = false
      do {
        s.registration = try loop.add(fd) { [weak self] readiness in
          guard let self else { return }
          if !readiness.isDisjoint(with: [.readable, .hangup]) { self.readable() }
          if !readiness.isDisjoint(with: [.writable, .hangup]) { self.writable() }
        }
      } catch {
        log.error("connection \(subscriberID): cannot watch its socket: \(error)")
        closeNow(&s)
        return
      }
      // Answers queued before it started, that the socket could not take at once.
      guard updateWritableWatch(&s) else { return }
      if s.framer.keepAlive() != nil && limits.keepAliveSeconds > 0 { scheduleKeepAlive() }
    }
  }

  private func scheduleKeepAlive() {
    loop.after(.seconds(limits.keepAliveSeconds)) { [weak self] in self?.keepAliveTick() }
  }

  /// Pings an idle client; one that sent nothing since the last ping is gone (unless
  /// labeld itself stopped reading it).
  private func keepAliveTick() {
    state.withLock { s in
      guard !s.closed, !s.closing, let ping = s.framer.keepAlive() else { return }
      if !s.heard && !s.readSuspended {
        log.info("connection \(subscriberID) (\(caller.description)) did not answer a ping; closed")
        closeNow(&s)
        return
      }
      s.heard = false
      s.outbox.append(OutboundMessage(bytes: ping, kind: .response, alertSeq: nil))
      if !s.writeArmed { flush(&s) }
      scheduleKeepAlive()
    }
  }

  // MARK: reading: socket → framer → account → inbox

  private func readable() {
    // Not zeroed: only the bytes `read` returns are looked at, and zeroing the chunk on
    // every read showed in profiles of small requests (docs/benchmarks.md).
    var chunk = [UInt8](unsafeUninitializedCapacity: Self.chunkSize) { _, count in
      count = Self.chunkSize
    }
    var framed: [Inbound] = []
    var fatal = false
    let handleHere = state.withLock { s -> Bool in
      if s.lingering {
        discardUntilClosed(&s, into: &chunk)
        return false
      }
      guard !s.closed, !s.readStopped, !s.readSuspended else { return false }
      // Edge-triggered: read until EAGAIN or EOF.
      while true {
        let allowance = readAllowance(&s)
        guard allowance > 0 else { break }
        let (n, e) = retryingEINTR {
          chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, allowance)) }
        }
        if n > 0 {
          s.heard = true
          s.account.took(n)
          framed.removeAll(keepingCapacity: true)
          let taken = chunk.withUnsafeBytes {
            s.framer.take(UnsafeRawBufferPointer(rebasing: $0[..<n]), into: &framed)
          }
          s.account.release(taken.discarded)
          if !taken.replies.isEmpty {
            s.outbox.append(OutboundMessage(bytes: taken.replies, kind: .response, alertSeq: nil))
            if !s.writeArmed { flush(&s) }
            if s.closed { return false }
          }
          if !framed.isEmpty { s.account.messageEnded() }
          s.inbox.append(contentsOf: framed)
          if taken.ended { s.readStopped = true }
          if taken.goodbye {
            s.eof = true
            break
          }
          if s.readStopped || s.inbox.count >= limits.maxPendingRequests
            || s.outbox.count >= limits.pauseReadsAtQueued
          {
            break
          }
        } else if n == 0 {
          s.eof = true
          s.readStopped = true
          break
        } else {
          if e == EAGAIN || e == EWOULDBLOCK { break }
          fatal = true
          break
        }
      }
      if fatal {
        closeNow(&s)
        return false
      }
      watchPartial(&s)
      updateReadPause(&s)
      if s.eof && !s.inbox.processing && s.inbox.isEmpty { closeAfterFlush(&s) }
      guard !s.closing, !s.closed else { return false }
      return s.inbox.claim()
    }
    if handleHere { drainAtOnce() }
  }

  /// How many bytes this connection may read now (zero stops reading; `budgetReturned`
  /// resumes it when the shared budget has bytes again).
  private func readAllowance(_ s: inout State) -> Int {
    s.account.allowance(
      chunk: Self.chunkSize, cap: limits.maxMessageBytes + Self.chunkSize,
      wake: { [weak self] in
        guard let self else { return }
        self.loop.execute { self.budgetReturned() }
      })
  }

  private func budgetReturned() {
    state.withLock { s in
      guard s.account.waitingForBudget, !s.closed else { return }
      s.account.waitingForBudget = false
      updateReadPause(&s)
    }
  }

  /// Gives a partial message past the floor its deadline (once per message).
  private func watchPartial(_ s: inout State) {
    guard let epoch = s.account.watch(partialBytes: s.framer.partialBytes) else { return }
    loop.after(.seconds(limits.longLineSeconds)) { [weak self] in
      self?.deadlinePassed(epoch)
    }
  }

  /// The deadline of a long partial message has come. Not the client's fault while labeld
  /// itself holds the message up (the shared budget is spent, or it is still handling the
  /// connection's earlier requests) and the client reads its answers: the message gets a
  /// new deadline. Otherwise it is refused: its bytes go back to the others at once, and
  /// the connection answers -32600 after its earlier answers and closes.
  private func deadlinePassed(_ epoch: UInt64) {
    let handleHere = state.withLock { s -> Bool in
      guard !s.closed, !s.closing, s.account.deadlinePassed(epoch) else { return false }
      let clientReads = s.outbox.count < limits.pauseReadsAtQueued && !writerIsBehind(s)
      if s.readSuspended && clientReads {
        watchPartial(&s)
        return false
      }
      s.inbox.append(.refused(.requestLineTimedOut(seconds: limits.longLineSeconds)))
      s.readStopped = true
      s.account.release(s.framer.dropPartial())
      updateReadPause(&s)
      return s.inbox.claim()
    }
    if handleHere { Task { await self.drain() } }
  }

  /// Pauses reading while requests or responses pile up; resumes when they drain.
  private func updateReadPause(_ s: inout State) {
    guard !s.closed else { return }
    let shouldPause =
      s.readStopped || s.closing || s.account.waitingForBudget
      || s.inbox.count >= limits.maxPendingRequests || s.outbox.count >= limits.pauseReadsAtQueued
      || s.account.held >= limits.maxMessageBytes + Self.chunkSize
    if shouldPause && !s.readSuspended {
      s.readSuspended = true
    } else if !shouldPause && s.readSuspended {
      s.readSuspended = false
      // Edge-triggered: data that arrived while paused raises no new event.
      loop.execute { [weak self] in self?.readable() }
    }
  }

  // MARK: handling: inbox → handler → outbox

  /// The most requests answered on the reading thread in a row: a client that pipelines
  /// many cheap calls does not keep the loop from the other connections.
  private static let atOnceLimit = 32

  /// Answers the requests at the head of the inbox that can be answered without waiting,
  /// on this thread (the event loop's: no task, no hand-off); the first that cannot, and
  /// everything after it, go to `drain` in a task. Called with the inbox claimed.
  private func drainAtOnce() {
    for _ in 0..<Self.atOnceLimit {
      guard case .handle(let head) = state.withLock({ next(&$0, taking: false) }) else { return }
      guard case .message(let message, let wireBytes) = head,
        case .answered(let reply) = immediate(message, self)
      else { break }
      if let reply { send(reply) }
      state.withLock { s in
        // Still the head (the claim keeps every other handler out), unless the answer
        // could not be written and the connection closed, emptying the inbox.
        guard !s.closed, !s.inbox.isEmpty else { return }
        s.inbox.dropHead()
        s.account.release(wireBytes)
        updateReadPause(&s)
      }
    }
    Task { await self.drain() }
  }

  /// The inbox's next step, with what the connection knows: a closing connection handles
  /// nothing more, and a client with too many answers unread waits (`flush` resumes it
  /// once it has read them).
  private func next(_ s: inout State, taking: Bool) -> RequestInbox.Next {
    let next = s.inbox.next(
      taking: taking, ending: s.closing || s.closed, writerBehind: writerIsBehind(s))
    if case .idle = next, s.eof, !s.closed { closeAfterFlush(&s) }
    return next
  }

  /// Whether the client has left so many answers unread that the next request waits.
  private func writerIsBehind(_ s: State) -> Bool {
    s.outbox.count >= limits.pauseReadsAtQueued
      || s.outbox.bytes >= limits.pauseHandlingAtQueuedBytes
  }

  private func drain() async {
    while true {
      guard case .handle(let head) = state.withLock({ next(&$0, taking: true) }) else { return }
      switch head {
      case .message(let message, let wireBytes):
        if let reply = await handler(message, self) { send(reply) }
        state.withLock { $0.account.release(wireBytes) }
      case .refused, .failed:
        if case .refused(let error) = head { send(Wire.error(id: nil, error)) }
        state.withLock { s in
          s.inbox.processing = false
          closeAfterFlush(&s)
        }
        return
      }
      state.withLock { updateReadPause(&$0) }
    }
  }

  /// Takes up requests again once a client that fell behind has read enough.
  private func resumeHandlingIfCaughtUp(_ s: inout State) {
    guard s.inbox.waitingForWriter, !writerIsBehind(s), !s.closing, !s.closed else { return }
    s.inbox.waitingForWriter = false
    if s.inbox.claim() { Task { await self.drain() } }
    updateReadPause(&s)
  }

  // MARK: writing: outbox → socket

  /// Queues a response.
  package func send(_ bytes: [UInt8]) {
    deliver(OutboundMessage(bytes: bytes, kind: .response, alertSeq: nil))
  }

  package func deliver(_ message: OutboundMessage) {
    guard !message.bytes.isEmpty else { return }
    state.withLock { s in
      if s.closed || s.closing { return }
      // Replays are sized by `replayBudget`; live notifications are what can overflow.
      if message.kind == .notification && s.outbox.count >= limits.maxQueuedMessages {
        overflow(&s)
        return
      }
      enqueue(message, &s)
      if !s.writeArmed { flush(&s) }
    }
  }

  /// Queues a replay chunk and writes it with as few `send`s as fit.
  package func deliver(contentsOf messages: [OutboundMessage]) {
    state.withLock { s in
      if s.closed || s.closing { return }
      for message in messages where !message.bytes.isEmpty { enqueue(message, &s) }
      if !s.writeArmed { flush(&s) }
    }
  }

  /// Queues a message in its wire form.
  private func enqueue(_ message: OutboundMessage, _ s: inout State) {
    var framed = message
    framed.bytes = s.framer.outbound(message.bytes)
    s.outbox.append(framed)
  }

  package func subscribed(after seq: UInt64) {
    state.withLock { $0.outbox.subscribed(after: seq) }
  }

  /// Replay chunks fill at most half the bound, leaving room for live notifications.
  package var replayBudget: Int {
    state.withLock { s in s.closing ? 0 : max(0, limits.maxQueuedMessages / 2 - s.outbox.count) }
  }

  package func setCatchingUp(_ catchingUp: Bool) {
    state.withLock { s in
      s.catchingUp = catchingUp
      requestReplayIfDrained(&s)
    }
  }

  /// It fell behind and was sent `overflow` (it closes once that is written).
  package var overflowed: Bool { state.withLock { $0.overflowed } }

  package func overflowNow() {
    state.withLock { s in
      if !s.closing && !s.closed { overflow(&s) }
    }
  }

  private func requestReplayIfDrained(_ s: inout State) {
    guard s.catchingUp, !s.closing, s.outbox.count <= limits.maxQueuedMessages / 4 else {
      return
    }
    s.catchingUp = false
    loop.execute { [self] in onReplayDrained(self) }
  }

  private func writable() {
    state.withLock { s in
      guard !s.closed, s.writeArmed else { return }
      s.writeArmed = false
      flush(&s)
    }
  }

  /// Has the loop watch the socket for writability while an answer waits for it
  /// (`writeArmed`), and only then: watched all the time, every answer a client read woke
  /// the loop to find nothing to write, once per subscriber for every alert
  /// (docs/benchmarks.md, "The loop's wake-ups"). False, with the connection closed, when
  /// the loop cannot watch it.
  private func updateWritableWatch(_ s: inout State) -> Bool {
    guard let registration = s.registration, s.watchingWritable != s.writeArmed else {
      return true
    }
    do throws(SystemError) {
      try loop.watchWritable(registration, s.writeArmed)
    } catch {
      // Not watched, a connection whose answers wait would wait for ever. (A watch left
      // on after draining costs one wake-up more, no harm.)
      guard s.writeArmed else { return true }
      log.error("connection \(subscriberID): cannot watch its socket for writing: \(error)")
      closeNow(&s)
      return false
    }
    s.watchingWritable = s.writeArmed
    return true
  }

  /// Writes what the outbox holds until the socket would block (then waits for the loop's
  /// next writable edge), and lets reading and handling go on as it empties.
  private func flush(_ s: inout State) {
    let fd = self.fd
    switch s.outbox.flush({ bytes in
      retryingEINTR {
        Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
      }
    }) {
    case .wouldBlock:
      s.writeArmed = true
      guard updateWritableWatch(&s) else { return }
    case .failed:
      closeNow(&s)
      return
    case .drained:
      _ = updateWritableWatch(&s)
      if s.closing {
        finishClosing(&s)
        return
      }
      requestReplayIfDrained(&s)
    }
    resumeHandlingIfCaughtUp(&s)
    // Reading paused because answers piled up resumes once they are written, whether or
    // not a request is waiting to be handled (none may be: the client waited for them).
    updateReadPause(&s)
  }

  /// The subscriber fell too far behind: drop what it has not started to receive, tell it
  /// where to resume (`overflow` with the last alert seq it was sent), and close.
  private func overflow(_ s: inout State) {
    let (dropped, seq) = s.outbox.dropUnstarted()
    s.overflowed = true
    enqueue(
      OutboundMessage(
        bytes: Wire.notification(.overflow, OverflowParams(seq: seq)), kind: .notification,
        alertSeq: nil), &s)
    log.warning(
      "connection \(subscriberID) (\(caller.description)) overflowed: \(dropped) messages dropped, "
        + "resume from seq \(seq)")
    s.account.release(s.inbox.removeAll())
    closeAfterFlush(&s)
  }

  // MARK: closing

  /// Stops reading and closes once every queued message is written (or the grace runs
  /// out).
  private func closeAfterFlush(_ s: inout State) {
    guard !s.closed, !s.closing else { return }
    s.closing = true
    s.readStopped = true
    updateReadPause(&s)
    let farewell = s.framer.farewell()
    if !farewell.isEmpty {
      s.outbox.append(OutboundMessage(bytes: farewell, kind: .response, alertSeq: nil))
    }
    if s.outbox.count == 0 {
      finishClosing(&s)
      return
    }
    if !s.writeArmed { flush(&s) }
    if !s.closed {
      // Holds the connection until it is closed: the server keeps it registered until then.
      loop.after(.seconds(limits.closeGraceSeconds)) { [self] in
        state.withLock { closeNow(&$0) }
      }
    }
  }

  /// Everything is written. A framing that ends with a farewell (a WebSocket's close
  /// frame) shuts its sending side and reads what the client still sends until the
  /// client closes too or the grace runs out (RFC 6455 §7.1.1): closing with the client's
  /// bytes unread makes the kernel reset the connection, and a reset can destroy the
  /// farewell and the answers before it on their way. Otherwise it closes now.
  private func finishClosing(_ s: inout State) {
    guard !s.closed, !s.lingering, !s.eof, !s.framer.farewell().isEmpty else {
      closeNow(&s)
      return
    }
    s.lingering = true
    _ = shutdown(fd, Int32(SHUT_WR))
    loop.execute { [weak self] in self?.readable() }
    loop.after(.seconds(limits.closeGraceSeconds)) { [self] in
      state.withLock { closeNow(&$0) }
    }
  }

  /// Lingering: reads and drops what has arrived; closes at the client's end. At most a
  /// few chunks a turn, so a client that keeps sending cannot hold the loop.
  private func discardUntilClosed(_ s: inout State, into chunk: inout [UInt8]) {
    guard !s.closed else { return }
    for _ in 0..<16 {
      let (n, e) = retryingEINTR {
        chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      }
      if n > 0 { continue }
      if n < 0 && (e == EAGAIN || e == EWOULDBLOCK) { return }
      closeNow(&s)
      return
    }
    loop.execute { [weak self] in self?.readable() }
  }

  private func closeNow(_ s: inout State) {
    guard !s.closed else { return }
    s.closed = true
    s.closing = true
    _ = s.inbox.removeAll()
    s.outbox.removeAll()
    // What it held goes back to the others.
    s.account.close()
    s.readSuspended = true
    s.writeArmed = false
    // Out of the loop first, then closed: the number is free for reuse only once nothing
    // can act on it here (a handler already on its way finds `closed`).
    if let registration = s.registration { loop.remove(registration) }
    s.registration = nil
    closeDescriptor(fd)
    loop.execute { [self] in onClose(self) }
  }

  /// Closes at once (daemon shutdown).
  package func close() {
    state.withLock { closeNow(&$0) }
  }

  /// Closes at once for a reason of labeld's (a revoked token), after one try to write
  /// the framing's last words (a WebSocket close 1008 saying `reason`) behind what the
  /// client has started to receive; what it has not started is dropped. A client told so
  /// knows at once, and under TLS its answer (closing too) is what makes libmicrohttpd
  /// finish forwarding the connection.
  package func close(because reason: String) {
    state.withLock { s in
      guard !s.closed else { return }
      let farewell = s.framer.farewell(ending: reason)
      if !farewell.isEmpty {
        _ = s.outbox.dropUnstarted()
        s.outbox.append(OutboundMessage(bytes: farewell, kind: .response, alertSeq: nil))
        let fd = self.fd
        _ = s.outbox.flush({ bytes in
          retryingEINTR {
            Glibc.send(
              fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
          }
        })
      }
      closeNow(&s)
    }
  }

  package var isClosed: Bool { state.withLock { $0.closed } }
}
