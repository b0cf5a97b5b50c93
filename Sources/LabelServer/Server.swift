import LabelCore
import LabelEvents
import LabelLog
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The Unix-socket listener: accepts clients, records their peer credentials, and keeps
/// every live connection until it closes.
///
/// Sockets are watched by labeld's own `EventLoop` (one thread, epoll), not Dispatch
/// sources (see `EventLoop` for the crash that decided it); the loop also runs what its
/// connections do later (retries, timers, close bookkeeping), so every socket of the
/// server is touched on one thread.
package final class Server: Sendable {
  private let listenFD: Int32
  private let ownedPath: String?
  private let loop: EventLoop
  private let listening = Mutex<EventLoop.Token?>(nil)
  private let connections = Mutex<[UInt64: Connection]>([:])
  private let nextID = Atomic<UInt64>(1)
  private let stopped = Atomic<Bool>(false)
  private let overflowed = Atomic<Int>(0)
  /// When accept last failed and was logged: a descriptor shortage retries every 100 ms
  /// but is logged at most every 10 s.
  private let lastAcceptError = Mutex<ContinuousClock.Instant?>(nil)
  private let dispatcher: Dispatcher
  private let channel: EventChannel
  private let limits: ConnectionLimits
  private let log: Logger
  /// What all connections together may hold in unanswered requests.
  package let readAhead: ReadAheadBudget

  /// Serves on `listenFD` (non-blocking, listening). `ownedPath` is unlinked on stop when
  /// this process created the socket (not when systemd passed it in).
  package init(
    listenFD: Int32, ownedPath: String?, dispatcher: Dispatcher, channel: EventChannel,
    limits: ConnectionLimits, log: Logger
  ) throws(SystemError) {
    self.listenFD = listenFD
    self.ownedPath = ownedPath
    self.dispatcher = dispatcher
    self.channel = channel
    self.limits = limits
    self.log = log
    // Room for two of the largest message at least, or one could never be read whole.
    self.readAhead = ReadAheadBudget(
      total: max(limits.readAheadBytes, 2 * (limits.maxMessageBytes + 64 * 1024)))
    self.loop = try EventLoop()
  }

  /// Starts the loop and accepting.
  package func start() throws(SystemError) {
    try loop.start()
    let token = try loop.add(listenFD) { [weak self] readiness in
      if readiness.contains(.readable) { self?.acceptAll() }
    }
    listening.withLock { $0 = token }
  }

  /// Stops listening, unlinks the socket it created, closes every connection and the
  /// loop. Once: a second call does nothing.
  package func stop() {
    guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
    if let token = listening.withLock({ t in
      defer { t = nil }; return t
    }) {
      loop.remove(token)
    }
    if let ownedPath { unlink(ownedPath) }
    let all = connections.withLock { c in
      defer { c.removeAll() }
      return Array(c.values)
    }
    for connection in all { connection.close() }
    loop.stop()
  }

  package var connectionCount: Int { connections.withLock { $0.count } }

  /// Connections closed after an `overflow` since start-up (they fell behind).
  package var overflowCount: Int { overflowed.load(ordering: .relaxed) }

  private func acceptAll() {
    while true {
      let fd: Int32
      do {
        guard let accepted = try UnixSocket.accept(listenFD) else { return }
        fd = accepted
      } catch {
        // EMFILE/ENFILE: the client waits in the backlog until descriptors free up.
        let now = ContinuousClock.now
        let shouldLog = lastAcceptError.withLock { last in
          guard last.map({ now - $0 > .seconds(10) }) ?? true else { return false }
          last = now
          return true
        }
        if shouldLog {
          log.error("accept failed: \(error) (\(connectionCount) clients connected); retrying")
        }
        loop.after(.milliseconds(100)) { [weak self] in self?.acceptAll() }
        return
      }
      let peer: PeerCredentials
      do {
        peer = try UnixSocket.peerCredentials(fd)
      } catch {
        log.warning("dropping a client without peer credentials: \(error)")
        close(fd)
        continue
      }
      log.debug("connection from pid \(peer.pid) uid \(peer.uid)")
      serve(
        fd: fd, caller: Caller(peer: peer),
        framer: LineFramer(maxMessageBytes: limits.maxMessageBytes),
        closeDescriptor: { _ = Glibc.close($0) })
    }
  }

  /// Serves a client that came in another way (a WebSocket after its handshake) on this
  /// server's loop, read-ahead budget and dispatcher, framed by `framer`: one pipeline, two
  /// framings. `closeDescriptor` closes `fd` when the connection ends (at once, when the
  /// server has stopped).
  @discardableResult
  package func adopt(
    fd: Int32, caller: Caller, framer: any Framer,
    closeDescriptor: @escaping @Sendable (Int32) -> Void
  ) -> Connection? {
    guard !stopped.load(ordering: .acquiring) else {
      closeDescriptor(fd)
      return nil
    }
    let flags = fcntl(fd, F_GETFL)
    if flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 {
      log.warning("dropping a \(caller.description) connection: its socket cannot be non-blocking")
      closeDescriptor(fd)
      return nil
    }
    return serve(fd: fd, caller: caller, framer: framer, closeDescriptor: closeDescriptor)
  }

  /// Closes every connection whose caller `matches` (a revoked token's), each told
  /// `reason` where its framing can say it (a WebSocket's close 1008).
  package func closeConnections(because reason: String, where matches: (Caller) -> Bool) -> Int {
    let doomed = connections.withLock { c in c.values.filter { matches($0.caller) } }
    for connection in doomed { connection.close(because: reason) }
    return doomed.count
  }

  @discardableResult
  private func serve(
    fd: Int32, caller: Caller, framer: any Framer,
    closeDescriptor: @escaping @Sendable (Int32) -> Void
  ) -> Connection {
    let id = nextID.add(1, ordering: .relaxed).oldValue
    let dispatcher = self.dispatcher
    let connection = Connection(
      id: id, fd: fd, caller: caller, framer: framer, limits: limits, loop: loop, log: log,
      budget: readAhead,
      handler: { line, connection in await dispatcher.handle(line, connection: connection) },
      immediate: { line, connection in dispatcher.handleAtOnce(line, caller: connection.caller) },
      onClose: { [weak self] connection in self?.closed(connection) },
      onReplayDrained: { [channel] connection in channel.pump(connection.subscriberID) },
      closeDescriptor: closeDescriptor)
    connections.withLock { $0[id] = connection }
    log.debug("connection \(id): \(caller.description)")
    connection.start()
    // Adopted while `stop` was collecting the connections: not left open behind it.
    if stopped.load(ordering: .acquiring) { connection.close() }
    return connection
  }

  private func closed(_ connection: Connection) {
    channel.unsubscribe(connection.subscriberID)
    if connection.overflowed { overflowed.add(1, ordering: .relaxed) }
    _ = connections.withLock { $0.removeValue(forKey: connection.subscriberID) }
    log.debug("connection \(connection.subscriberID) closed")
  }
}
