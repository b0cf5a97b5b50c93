import Dispatch
import LabelCore
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Per-connection limits (protocol v1: message size, outgoing queue bound).
struct ConnectionLimits: Sendable {
  var maxMessageBytes = 1 << 20
  /// Queued outgoing messages at which a notification overflows the connection.
  var maxQueuedMessages = 1024
  /// Requests read ahead of the one being handled before reading pauses.
  var maxPendingRequests = 64
  /// Queued outgoing messages above which reading pauses (responses apply back-pressure
  /// to the requests that cause them instead of overflowing).
  var pauseReadsAtQueued = 256
  /// How long an overflowed or closing connection may take to take its last lines.
  var closeGraceSeconds = 10.0
}

/// One client connection: reads `\n`-framed requests, handles them one at a time in order,
/// and writes responses and notifications through a bounded outgoing queue without ever
/// blocking the writer (the alert channel delivers under its lock).
///
/// `@unchecked Sendable`: every mutable field lives in `state` (a Mutex); the two Dispatch
/// sources are created in `init` and only resumed, suspended or cancelled under that lock.
final class Connection: EventSubscriber, @unchecked Sendable {
  typealias Handler = @Sendable ([UInt8], Connection) async -> [UInt8]?

  let subscriberID: UInt64
  let peer: PeerCredentials
  private let fd: Int32
  private let limits: ConnectionLimits
  private let queue: DispatchQueue
  private let readSource: any DispatchSourceRead
  private let writeSource: any DispatchSourceWrite
  private let handler: Handler
  private let onClose: @Sendable (Connection) -> Void
  /// Asks the alert channel for the next replay chunk.
  private let onReplayDrained: @Sendable (Connection) -> Void
  private let state = Mutex(State())
  private let log: Logger

  private enum Inbound { case line([UInt8]), tooLarge }

  private struct State {
    var readBuffer: [UInt8] = []
    var inbox: [Inbound] = []
    var processing = false
    var readSuspended = true
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
    var queued: Int { outbox.count - outHead }
  }

  init(
    id: UInt64, fd: Int32, peer: PeerCredentials, limits: ConnectionLimits, queue: DispatchQueue,
    log: Logger, handler: @escaping Handler, onClose: @escaping @Sendable (Connection) -> Void,
    onReplayDrained: @escaping @Sendable (Connection) -> Void
  ) {
    self.subscriberID = id
    self.fd = fd
    self.peer = peer
    self.limits = limits
    self.queue = queue
    self.log = log
    self.handler = handler
    self.onClose = onClose
    self.onReplayDrained = onReplayDrained
    self.readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
    self.writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
    // The descriptor is closed once both sources are cancelled, never before.
    let pendingCancels = Atomic<Int>(2)
    let cancelled: @Sendable () -> Void = { [fd] in
      if pendingCancels.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
        Glibc.close(fd)
      }
    }
    readSource.setCancelHandler(handler: cancelled)
    writeSource.setCancelHandler(handler: cancelled)
    readSource.setEventHandler { [weak self] in self?.readable() }
    writeSource.setEventHandler { [weak self] in self?.writable() }
  }

  func start() {
    state.withLock { s in
      s.readSuspended = false
      readSource.resume()
    }
  }

  // MARK: reading

  private func readable() {
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var fatal = false
    state.withLock { s in
      guard !s.closed, !s.readStopped else { return }
      // Dispatch read sources are edge-triggered on Linux: read until EAGAIN or EOF.
      while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
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
          let e = errno
          if e == EINTR { continue }
          if e == EAGAIN || e == EWOULDBLOCK { break }
          fatal = true
          break
        }
      }
      if fatal {
        closeNow(&s)
        return
      }
      updateReadPause(&s)
      startProcessing(&s)
      if s.eof && !s.processing && s.inbox.isEmpty { closeAfterFlush(&s) }
    }
  }

  /// Splits the read buffer into lines; a line over the limit ends reading.
  private func frame(_ s: inout State) {
    var start = 0
    let buffer = s.readBuffer
    while let nl = buffer[start...].firstIndex(of: 0x0A) {
      let length = nl - start
      if length > limits.maxMessageBytes {
        s.inbox.append(.tooLarge)
        s.readStopped = true
        s.readBuffer = []
        return
      }
      s.inbox.append(.line(Array(buffer[start..<nl])))
      start = nl + 1
    }
    if start > 0 { s.readBuffer.removeFirst(start) }
    if s.readBuffer.count > limits.maxMessageBytes {
      s.inbox.append(.tooLarge)
      s.readStopped = true
      s.readBuffer = []
    }
  }

  /// Pauses reading while requests or responses pile up; resumes when they drain.
  private func updateReadPause(_ s: inout State) {
    // Once closed, both sources are resumed and cancelled for good: touching them again
    // would leave a suspended source to be released, which Dispatch punishes with a crash.
    guard !s.closed else { return }
    let shouldPause =
      s.readStopped || s.closing || s.inbox.count >= limits.maxPendingRequests
      || s.queued >= limits.pauseReadsAtQueued
    if shouldPause && !s.readSuspended {
      s.readSuspended = true
      readSource.suspend()
    } else if !shouldPause && s.readSuspended {
      s.readSuspended = false
      readSource.resume()
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

  private func drain() async {
    while true {
      let next: Inbound? = state.withLock { s in
        if s.closing || s.closed || s.inbox.isEmpty {
          s.processing = false
          if s.eof && !s.closed { closeAfterFlush(&s) }
          return nil
        }
        return s.inbox.removeFirst()
      }
      guard let next else { return }
      switch next {
      case .line(let line):
        if let reply = await handler(line, self) { send(reply) }
      case .tooLarge:
        send(Wire.error(id: nil, .messageTooLarge))
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
  func send(_ bytes: [UInt8]) {
    deliver(OutboundMessage(bytes: bytes, kind: .response, alertSeq: nil))
  }

  func deliver(_ message: OutboundMessage) {
    guard !message.bytes.isEmpty else { return }
    state.withLock { s in
      if s.closed || s.closing { return }
      // Replays are sized by `replayBudget`; live notifications are what can overflow.
      if message.kind == .notification && s.queued >= limits.maxQueuedMessages {
        overflow(&s)
        return
      }
      s.outbox.append(message)
      if !s.writeArmed { flush(&s) }
    }
  }

  func subscribed(after seq: UInt64) {
    state.withLock { $0.lastWrittenAlertSeq = seq }
  }

  /// Replay chunks fill at most half the bound, leaving room for live notifications.
  var replayBudget: Int {
    state.withLock { s in s.closing ? 0 : max(0, limits.maxQueuedMessages / 2 - s.queued) }
  }

  func setCatchingUp(_ catchingUp: Bool) {
    state.withLock { s in
      s.catchingUp = catchingUp
      requestReplayIfDrained(&s)
    }
  }

  func overflowNow() {
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
      writeSource.suspend()
      flush(&s)
    }
  }

  /// Writes queued lines until the socket would block (then waits for writability).
  private func flush(_ s: inout State) {
    while s.outHead < s.outbox.count {
      let message = s.outbox[s.outHead]
      let offset = s.headOffset
      let n = message.bytes.withUnsafeBytes { raw in
        send_(raw.baseAddress! + offset, raw.count - offset)
      }
      if n >= 0 {
        s.headOffset += n
        if s.headOffset == message.bytes.count {
          if let seq = message.alertSeq { s.lastWrittenAlertSeq = seq }
          s.outHead += 1
          s.headOffset = 0
        }
        continue
      }
      let e = errno
      if e == EINTR { continue }
      if e == EAGAIN || e == EWOULDBLOCK {
        s.writeArmed = true
        writeSource.resume()
        compact(&s)
        return
      }
      // EPIPE, ECONNRESET: the peer is gone; nothing more can reach it.
      closeNow(&s)
      return
    }
    s.outbox.removeAll(keepingCapacity: s.outbox.count < 64)
    s.outHead = 0
    if s.closing { closeNow(&s) }
    requestReplayIfDrained(&s)
  }

  private func send_(_ p: UnsafeRawPointer, _ count: Int) -> Int {
    Glibc.send(fd, p, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
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
    s.outbox.append(
      OutboundMessage(
        bytes: Wire.notification(.overflow, OverflowParams(seq: seq)), kind: .notification,
        alertSeq: nil))
    log.warning(
      "connection \(subscriberID) (uid \(peer.uid)) overflowed: \(dropped) messages dropped, "
        + "resume from seq \(seq)")
    s.inbox.removeAll()
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
    // A suspended Dispatch source must be resumed before it can be cancelled.
    if s.readSuspended {
      s.readSuspended = false
      readSource.resume()
    }
    if !s.writeArmed {
      s.writeArmed = true
      writeSource.resume()
    }
    readSource.cancel()
    writeSource.cancel()
    // The server lets go of the connection only now, with both sources cancelled: a
    // Dispatch source released while suspended would crash.
    queue.async { [self] in onClose(self) }
  }

  /// Closes at once (daemon shutdown).
  func close() {
    state.withLock { closeNow(&$0) }
  }

  var isClosed: Bool { state.withLock { $0.closed } }
}
