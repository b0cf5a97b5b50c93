import Dispatch
import LabelCore
import LabelEvents
import LabelLog
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Per-connection limits (protocol v1: message size, outgoing queue bound).
package struct ConnectionLimits: Sendable {
  package var maxMessageBytes = 1 << 20
  /// Queued outgoing messages at which a notification overflows the connection.
  package var maxQueuedMessages = 1024
  /// Requests read ahead of the one being handled before reading pauses.
  package var maxPendingRequests = 64
  /// Queued outgoing messages above which reading pauses (responses apply back-pressure
  /// to the requests that cause them instead of overflowing).
  package var pauseReadsAtQueued = 256
  /// How long an overflowed or closing connection may take to take its last lines.
  package var closeGraceSeconds = 10.0
  /// Bytes of queued outgoing lines above which the next request waits to be handled: a
  /// client that does not read its answers cannot make labeld hold more than this (and
  /// the one answer that crossed it) for it.
  package var pauseHandlingAtQueuedBytes = 4 << 20
  /// What all connections together may hold in requests read but not yet answered,
  /// beyond a 64 KiB floor each (`ReadAheadBudget`). At least two of the largest message.
  package var readAheadBytes = 64 << 20
  /// How long a request line that has grown past the 64 KiB floor (it now holds bytes of
  /// the shared read-ahead) may take to end, counted while labeld is reading: a client
  /// that sends most of a large line and stops cannot keep those bytes from the others.
  package var longLineSeconds = 30.0

  package init() {}
}

/// One client connection: reads `\n`-framed requests, handles them one at a time in order,
/// and writes responses and notifications through a bounded outgoing queue without ever
/// blocking the writer (the alert channel delivers under its lock).
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
  package let peer: PeerCredentials
  private let fd: Int32
  private let limits: ConnectionLimits
  private let queue: DispatchQueue
  private let loop: EventLoop
  private let handler: Handler
  private let immediate: ImmediateHandler
  private let onClose: @Sendable (Connection) -> Void
  /// Asks the alert channel for the next replay chunk.
  private let onReplayDrained: @Sendable (Connection) -> Void
  private let state = Mutex(State())
  private let log: Logger
  private let budget: ReadAheadBudget
  private static let chunkSize = 64 * 1024

  /// A request line, or the error that ends reading (the line was too large, or did not
  /// end in time): the connection answers it and closes.
  private enum Inbound { case line([UInt8]), refused(RPCError) }

  private struct State {
    var readBuffer: [UInt8] = []
    /// How much of `readBuffer` has been searched for a newline already.
    var scanned = 0
    var inbox: [Inbound] = []
    /// Bytes of requests held: read and not yet answered (partial line, queued lines, the
    /// one being handled, their newlines).
    var held = 0
    /// Of `held`, what is borrowed from the shared read-ahead budget.
    var borrowed = 0
    /// Reading stopped until the budget has bytes again.
    var waitingForBudget = false
    /// Handling stopped until the client has read enough of its answers.
    var waitingForWriter = false
    /// Bytes of queued outgoing lines not yet written.
    var outBytes = 0
    var processing = false
    /// Reading paused (or not started): readiness is noted by the next `readable` call
    /// that a resume makes, not by the loop's edges.
    var readSuspended = true
    var registration: EventLoop.Token?
    var readStopped = false
    var eof = false
    var outbox: [OutboundMessage] = []
    var outHead = 0
    var headOffset = 0
    var writeArmed = false
    var closing = false
    var closed = false
    var lastWrittenAlertSeq: UInt64 = 0
    /// A `since` replay is in progress and wants its next chunk once the queue drains.
    var catchingUp = false
    /// The partial line in `readBuffer` is past the floor and has a deadline
    /// (`longLineSeconds`); `longLineEpoch` tells that deadline from earlier ones.
    var longLineWatched = false
    var longLineEpoch: UInt64 = 0
    var queued: Int { outbox.count - outHead }
  }

  package init(
    id: UInt64, fd: Int32, peer: PeerCredentials, limits: ConnectionLimits, queue: DispatchQueue,
    loop: EventLoop, log: Logger, budget: ReadAheadBudget, handler: @escaping Handler,
    immediate: @escaping ImmediateHandler = { _, _ in .later },
    onClose: @escaping @Sendable (Connection) -> Void,
    onReplayDrained: @escaping @Sendable (Connection) -> Void
  ) {
    self.subscriberID = id
    self.budget = budget
    self.fd = fd
    self.peer = peer
    self.limits = limits
    self.queue = queue
    self.loop = loop
    self.log = log
    self.handler = handler
    self.immediate = immediate
    self.onClose = onClose
    self.onReplayDrained = onReplayDrained
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
      }
    }
  }

  // MARK: reading

  private func readable() {
    var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
    var fatal = false
    let handleHere = state.withLock { s -> Bool in
      guard !s.closed, !s.readStopped, !s.readSuspended else { return false }
      // Edge-triggered: read until EAGAIN or EOF.
      while true {
        let allowance = readAllowance(&s)
        guard allowance > 0 else { break }
        let (n, e) = retryingEINTR {
          chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, allowance)) }
        }
        if n > 0 {
          s.held += n
          s.readBuffer.append(contentsOf: chunk[0..<n])
          frame(&s)
          if s.readStopped || s.inbox.count >= limits.maxPendingRequests
            || s.queued >= limits.pauseReadsAtQueued
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
      watchLongLine(&s)
      updateReadPause(&s)
      if s.eof && !s.processing && s.inbox.isEmpty { closeAfterFlush(&s) }
      guard !s.processing, !s.inbox.isEmpty, !s.closing, !s.closed else { return false }
      s.processing = true
      return true
    }
    if handleHere { drainAtOnce() }
  }

  /// How many bytes this connection may read now: what its floor and borrowed bytes
  /// leave, borrowing another chunk when that is short. Zero stops reading: until the
  /// budget has bytes again (`budgetReturned`), or until its own read-ahead (one largest
  /// message beyond the one being handled) is answered.
  private func readAllowance(_ s: inout State) -> Int {
    guard s.held < limits.maxMessageBytes + Self.chunkSize else { return 0 }
    var room = budget.floor + s.borrowed - s.held
    if room < Self.chunkSize {
      let id = subscriberID
      let wake: @Sendable () -> Void = { [weak self] in
        guard let self else { return }
        self.queue.async { self.budgetReturned() }
      }
      if budget.borrow(Self.chunkSize, id: id, wake: wake) {
        s.borrowed += Self.chunkSize
        room += Self.chunkSize
      } else if room <= 0 {
        s.waitingForBudget = true
      }
    }
    return max(0, room)
  }

  private func budgetReturned() {
    state.withLock { s in
      guard s.waitingForBudget, !s.closed else { return }
      s.waitingForBudget = false
      updateReadPause(&s)
    }
  }

  /// Bytes of requests answered (or dropped): no longer held, and what was borrowed for
  /// them goes back to the budget.
  private func release(_ bytes: Int, _ s: inout State) {
    s.held = max(0, s.held - bytes)
    let needed = max(0, s.held - budget.floor)
    if s.borrowed > needed {
      let surplus = s.borrowed - needed
      s.borrowed = needed
      budget.giveBack(surplus)
    }
  }

  /// Splits the read buffer into lines; a line over the limit ends reading. Only bytes not
  /// looked at before are searched for a newline, so a long line read in many chunks
  /// costs its length once, not once per chunk.
  private func frame(_ s: inout State) {
    var start = 0
    let buffer = s.readBuffer
    var from = min(s.scanned, buffer.count)
    s.scanned = buffer.count
    while let nl = buffer[from...].firstIndex(of: 0x0A) {
      from = nl + 1
      let length = nl - start
      if length > limits.maxMessageBytes {
        s.inbox.append(.refused(.messageTooLarge))
        s.readStopped = true
        s.readBuffer = []
        release(buffer.count - start, &s)
        return
      }
      s.inbox.append(.line(Array(buffer[start..<nl])))
      start = nl + 1
    }
    if start > 0 {
      s.readBuffer.removeFirst(start)
      s.scanned = s.readBuffer.count
      // The line that was being watched has ended; one still long is a new one.
      s.longLineWatched = false
    }
    if s.readBuffer.count > limits.maxMessageBytes {
      s.inbox.append(.refused(.messageTooLarge))
      s.readStopped = true
      release(s.readBuffer.count, &s)
      s.readBuffer = []
    }
  }

  /// Gives a partial line past the floor its deadline (once per line).
  private func watchLongLine(_ s: inout State) {
    guard s.readBuffer.count > budget.floor else {
      s.longLineWatched = false
      return
    }
    guard !s.longLineWatched else { return }
    s.longLineWatched = true
    s.longLineEpoch &+= 1
    let epoch = s.longLineEpoch
    queue.asyncAfter(deadline: .now() + limits.longLineSeconds) { [weak self] in
      self?.longLineExpired(epoch)
    }
  }

  /// The deadline of a long partial line has come. Not the client's fault while labeld
  /// itself holds the line up (the shared budget is spent, or it is still handling the
  /// connection's earlier requests) and the client reads its answers: the line gets a new
  /// deadline. Otherwise it is refused: its bytes go back to the others at once, and the
  /// connection answers -32600 after its earlier answers and closes.
  private func longLineExpired(_ epoch: UInt64) {
    let handleHere = state.withLock { s -> Bool in
      guard !s.closed, !s.closing, s.longLineWatched, s.longLineEpoch == epoch else {
        return false
      }
      s.longLineWatched = false
      let clientReads = s.queued < limits.pauseReadsAtQueued && !writerIsBehind(s)
      if s.readSuspended && clientReads {
        watchLongLine(&s)
        return false
      }
      s.inbox.append(.refused(.requestLineTimedOut(seconds: limits.longLineSeconds)))
      s.readStopped = true
      release(s.readBuffer.count, &s)
      s.readBuffer = []
      s.scanned = 0
      updateReadPause(&s)
      guard !s.processing else { return false }
      s.processing = true
      return true
    }
    if handleHere { Task { await self.drain() } }
  }

  /// Pauses reading while requests or responses pile up; resumes when they drain.
  private func updateReadPause(_ s: inout State) {
    guard !s.closed else { return }
    let shouldPause =
      s.readStopped || s.closing || s.waitingForBudget
      || s.inbox.count >= limits.maxPendingRequests || s.queued >= limits.pauseReadsAtQueued
      || s.held >= limits.maxMessageBytes + Self.chunkSize
    if shouldPause && !s.readSuspended {
      s.readSuspended = true
    } else if !shouldPause && s.readSuspended {
      s.readSuspended = false
      // Edge-triggered: data that arrived while paused raises no new event.
      queue.async { [weak self] in self?.readable() }
    }
  }

  // MARK: handling

  private func startProcessing(_ s: inout State) {
    guard !s.processing, !s.inbox.isEmpty, !s.closing, !s.closed else { return }
    s.processing = true
    Task { await self.drain() }
  }

  /// The most requests answered on the reading thread in a row: a client that pipelines
  /// many cheap calls does not keep the loop from the other connections.
  private static let atOnceLimit = 32

  /// Answers the requests at the head of the inbox that can be answered without waiting,
  /// on this thread (the event loop's: no task, no hand-off); the first that cannot, and
  /// everything after it, go to `drain` in a task. Called with `processing` set.
  private func drainAtOnce() {
    for _ in 0..<Self.atOnceLimit {
      guard let head = state.withLock({ nextRequest(&$0, taking: false) }) else { return }
      guard case .line(let line) = head, case .answered(let reply) = immediate(line, self)
      else { break }
      if let reply { send(reply) }
      state.withLock { s in
        // Still the head (`processing` keeps every other reader of the inbox out), unless
        // the answer could not be written and the connection closed, emptying it.
        guard !s.closed, !s.inbox.isEmpty else { return }
        s.inbox.removeFirst()
        release(line.count + 1, &s)
        updateReadPause(&s)
      }
    }
    Task { await self.drain() }
  }

  /// The request to handle next (taken off the inbox, or only looked at); nil ends the
  /// handling: nothing is left, the connection is closing, or the client has so many
  /// answers unread that the next request waits (`flush` resumes it once it has read).
  private func nextRequest(_ s: inout State, taking: Bool) -> Inbound? {
    if s.closing || s.closed || s.inbox.isEmpty {
      s.processing = false
      if s.eof && !s.closed { closeAfterFlush(&s) }
      return nil
    }
    if writerIsBehind(s) {
      s.processing = false
      s.waitingForWriter = true
      return nil
    }
    return taking ? s.inbox.removeFirst() : s.inbox[0]
  }

  /// Whether the client has left so many answers unread that the next request waits.
  private func writerIsBehind(_ s: State) -> Bool {
    s.queued >= limits.pauseReadsAtQueued || s.outBytes >= limits.pauseHandlingAtQueuedBytes
  }

  private func drain() async {
    while true {
      guard let next = state.withLock({ nextRequest(&$0, taking: true) }) else { return }
      switch next {
      case .line(let line):
        if let reply = await handler(line, self) { send(reply) }
        state.withLock { release(line.count + 1, &$0) }
      case .refused(let error):
        send(Wire.error(id: nil, error))
        state.withLock { s in
          s.processing = false
          closeAfterFlush(&s)
        }
        return
      }
      state.withLock { updateReadPause(&$0) }
    }
  }

  // MARK: writing

  /// Queues a response line.
  package func send(_ bytes: [UInt8]) {
    deliver(OutboundMessage(bytes: bytes, kind: .response, alertSeq: nil))
  }

  package func deliver(_ message: OutboundMessage) {
    guard !message.bytes.isEmpty else { return }
    state.withLock { s in
      if s.closed || s.closing { return }
      // Replays are sized by `replayBudget`; live notifications are what can overflow.
      if message.kind == .notification && s.queued >= limits.maxQueuedMessages {
        overflow(&s)
        return
      }
      s.outbox.append(message)
      s.outBytes += message.bytes.count
      if !s.writeArmed { flush(&s) }
    }
  }

  /// Queues a replay chunk and writes it with as few `send`s as fit (a replay of 10,000
  /// alerts was 10,000 system calls, a third of labeld's CPU under the soak's load).
  package func deliver(contentsOf messages: [OutboundMessage]) {
    state.withLock { s in
      if s.closed || s.closing { return }
      for message in messages where !message.bytes.isEmpty {
        s.outbox.append(message)
        s.outBytes += message.bytes.count
      }
      if !s.writeArmed { flush(&s) }
    }
  }

  package func subscribed(after seq: UInt64) {
    state.withLock { $0.lastWrittenAlertSeq = seq }
  }

  /// Replay chunks fill at most half the bound, leaving room for live notifications.
  package var replayBudget: Int {
    state.withLock { s in s.closing ? 0 : max(0, limits.maxQueuedMessages / 2 - s.queued) }
  }

  package func setCatchingUp(_ catchingUp: Bool) {
    state.withLock { s in
      s.catchingUp = catchingUp
      requestReplayIfDrained(&s)
    }
  }

  package func overflowNow() {
    state.withLock { s in
      if !s.closing && !s.closed { overflow(&s) }
    }
  }

  private func requestReplayIfDrained(_ s: inout State) {
    guard s.catchingUp, !s.closing, s.queued <= limits.maxQueuedMessages / 4 else { return }
    s.catchingUp = false
    queue.async { [self] in onReplayDrained(self) }
  }

  private func writable() {
    state.withLock { s in
      guard !s.closed, s.writeArmed else { return }
      s.writeArmed = false
      flush(&s)
    }
  }

  /// Writes queued lines until the socket would block (then waits for writability). Lines
  /// queued together go out together: up to 64 KiB of them are gathered into one `send`.
  private func flush(_ s: inout State) {
    var gathered: [UInt8] = []
    while s.outHead < s.outbox.count {
      let (n, e): (Int, Int32)
      let head = s.outbox[s.outHead].bytes
      if s.outHead + 1 == s.outbox.count || head.count - s.headOffset >= Self.gatherBytes {
        // One line (or a big one): sent from where it is, not copied.
        (n, e) = head.withUnsafeBytes { raw in
          send_(raw.baseAddress! + s.headOffset, raw.count - s.headOffset)
        }
      } else {
        gathered.removeAll(keepingCapacity: true)
        gathered.append(contentsOf: head[s.headOffset...])
        var i = s.outHead + 1
        while i < s.outbox.count && gathered.count + s.outbox[i].bytes.count <= Self.gatherBytes {
          gathered.append(contentsOf: s.outbox[i].bytes)
          i += 1
        }
        (n, e) = gathered.withUnsafeBytes { raw in send_(raw.baseAddress!, raw.count) }
      }
      if n >= 0 {
        advance(&s, by: n)
        continue
      }
      if e == EAGAIN || e == EWOULDBLOCK {
        // The loop's next writable edge calls `writable`.
        s.writeArmed = true
        compact(&s)
        resumeHandlingIfCaughtUp(&s)
        updateReadPause(&s)
        return
      }
      // EPIPE, ECONNRESET: the peer is gone; nothing more can reach it.
      closeNow(&s)
      return
    }
    s.outbox.removeAll(keepingCapacity: s.outbox.count < 64)
    s.outHead = 0
    s.outBytes = 0
    if s.closing { closeNow(&s) }
    requestReplayIfDrained(&s)
    resumeHandlingIfCaughtUp(&s)
    // Reading paused because answers piled up resumes once they are written, whether or
    // not a request is waiting to be handled (none may be: the client waited for them).
    updateReadPause(&s)
  }

  /// Takes up requests again once a client that fell behind has read enough.
  private func resumeHandlingIfCaughtUp(_ s: inout State) {
    guard s.waitingForWriter, !writerIsBehind(s), !s.closing, !s.closed else { return }
    s.waitingForWriter = false
    startProcessing(&s)
    updateReadPause(&s)
  }

  private static let gatherBytes = 65_536

  /// `n` bytes from the head of the queue were written: the lines they complete leave it.
  private func advance(_ s: inout State, by n: Int) {
    var left = n
    while left > 0 && s.outHead < s.outbox.count {
      let message = s.outbox[s.outHead]
      let take = min(left, message.bytes.count - s.headOffset)
      s.headOffset += take
      left -= take
      if s.headOffset == message.bytes.count {
        if let seq = message.alertSeq { s.lastWrittenAlertSeq = seq }
        s.outHead += 1
        s.headOffset = 0
        s.outBytes -= message.bytes.count
      }
    }
  }

  /// One non-blocking send; the bytes sent, or -1 and the errno.
  private func send_(_ p: UnsafeRawPointer, _ count: Int) -> (Int, Int32) {
    retryingEINTR { Glibc.send(fd, p, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
  }

  private func compact(_ s: inout State) {
    if s.outHead > 256 && s.outHead * 2 > s.outbox.count {
      s.outbox.removeFirst(s.outHead)
      s.outHead = 0
    }
  }

  /// The subscriber fell too far behind: drop what it has not started to receive, tell it
  /// where to resume (`overflow` with the last alert seq it was sent), and close.
  private func overflow(_ s: inout State) {
    var seq = s.lastWrittenAlertSeq
    var keep: [OutboundMessage] = []
    if s.headOffset > 0 {
      let partial = s.outbox[s.outHead]
      keep.append(partial)
      if let partialSeq = partial.alertSeq { seq = partialSeq }
    }
    let dropped = s.queued - keep.count
    s.outbox = keep
    s.outHead = 0
    s.outBytes = keep.reduce(0) { $0 + $1.bytes.count }
    s.outbox.append(
      OutboundMessage(
        bytes: Wire.notification(.overflow, OverflowParams(seq: seq)), kind: .notification,
        alertSeq: nil))
    log.warning(
      "connection \(subscriberID) (uid \(peer.uid)) overflowed: \(dropped) messages dropped, "
        + "resume from seq \(seq)")
    let unread = s.inbox.reduce(0) { total, inbound in
      if case .line(let line) = inbound { return total + line.count + 1 }
      return total
    }
    s.inbox.removeAll()
    release(unread, &s)
    closeAfterFlush(&s)
  }

  // MARK: closing

  /// Stops reading and closes once every queued line is written (or the grace runs out).
  private func closeAfterFlush(_ s: inout State) {
    guard !s.closed, !s.closing else { return }
    s.closing = true
    s.readStopped = true
    updateReadPause(&s)
    if s.queued == 0 {
      closeNow(&s)
      return
    }
    if !s.writeArmed { flush(&s) }
    if !s.closed {
      // Holds the connection until it is closed: the server keeps it registered until then.
      queue.asyncAfter(deadline: .now() + limits.closeGraceSeconds) { [self] in
        state.withLock { closeNow(&$0) }
      }
    }
  }

  private func closeNow(_ s: inout State) {
    guard !s.closed else { return }
    s.closed = true
    s.closing = true
    s.inbox.removeAll()
    s.outbox.removeAll()
    s.outHead = 0
    s.outBytes = 0
    // What it held goes back to the others. A request still being handled gives back
    // its bytes when it ends (`release` clamps at zero).
    s.held = 0
    budget.giveBack(s.borrowed)
    s.borrowed = 0
    budget.forget(subscriberID)
    s.readSuspended = true
    s.writeArmed = false
    // Out of the loop first, then closed: the number is free for reuse only once nothing
    // can act on it here (a handler already on its way finds `closed`).
    if let registration = s.registration { loop.remove(registration) }
    s.registration = nil
    Glibc.close(fd)
    queue.async { [self] in onClose(self) }
  }

  /// Closes at once (daemon shutdown).
  package func close() {
    state.withLock { closeNow(&$0) }
  }

  package var isClosed: Bool { state.withLock { $0.closed } }
}
