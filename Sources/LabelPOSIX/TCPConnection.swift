#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// One TCP connection to a network printer (raw 9100, AppSocket): connect, write and read,
/// every wait bounded by a timeout (non-blocking socket and `poll`). The connection owns
/// its descriptor and closes it when it goes away. Blocking: use it off the cooperative
/// pool (a transport's own queue).
public final class TCPConnection {
  public let fd: Int32
  /// "192.0.2.7:9100".
  public let peer: String

  private init(fd: Int32, peer: String) {
    self.fd = fd
    self.peer = peer
  }

  deinit { close(fd) }

  /// Connects to `host`:`port`, trying each address the name resolves to, each within
  /// `timeoutMS`. Errors: the resolver's (call "getaddrinfo", errno EHOSTUNREACH), a
  /// refused or unreachable address, ETIMEDOUT.
  public static func connect(host: String, port: Int, timeoutMS: Int32) throws(SystemError)
    -> TCPConnection
  {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0 else {
      throw SystemError("resolve \(host)", errno: EHOSTUNREACH)
    }
    defer { freeaddrinfo(list) }
    var last = SystemError("connect \(host):\(port)", errno: EHOSTUNREACH)
    var next = list
    while let ai = next {
      next = ai.pointee.ai_next
      let fd = socket(
        ai.pointee.ai_family,
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
          | Int32(SOCK_NONBLOCK.rawValue), 0)
      guard fd >= 0 else {
        last = SystemError("socket", errno: errno)
        continue
      }
      let connection = TCPConnection(fd: fd, peer: "\(host):\(port)")
      let started = Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen)
      if started == 0 { return connection.configured() }
      guard errno == EINPROGRESS else {
        last = SystemError("connect \(host):\(port)", errno: errno)
        continue
      }
      guard connection.wait(for: Int16(POLLOUT), timeoutMS: timeoutMS) else {
        last = SystemError("connect \(host):\(port)", errno: ETIMEDOUT)
        continue
      }
      var error: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else {
        last = SystemError("connect \(host):\(port)", errno: error == 0 ? errno : error)
        continue
      }
      return connection.configured()
    }
    throw last
  }

  /// No Nagle delay (a status request is a few bytes, answered at once) and keep-alive
  /// (a printer switched off mid-job is noticed).
  private func configured() -> TCPConnection {
    var on: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
    return self
  }

  /// Whether `events` came within `timeoutMS` (false on timeout).
  private func wait(for events: Int16, timeoutMS: Int32) -> Bool {
    var pfd = pollfd(fd: fd, events: events, revents: 0)
    let (r, _) = retryingEINTR { poll(&pfd, 1, timeoutMS) }
    return r == 1
  }

  /// Sends all of `bytes`; each wait for room in the send buffer is at most `timeoutMS`
  /// (ETIMEDOUT: the printer stopped taking data). `cancelled` is asked between waits.
  public func write(
    _ bytes: [UInt8], timeoutMS: Int32, cancelled: () -> Bool = { false }
  ) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
      if cancelled() { throw SystemError("send", errno: ECANCELED) }
      let (n, e) = bytes.withUnsafeBytes { buffer in
        retryingEINTR {
          send(fd, buffer.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        }
      }
      if n >= 0 {
        offset += n
        continue
      }
      guard e == EAGAIN || e == EWOULDBLOCK else { throw SystemError("send", errno: e) }
      guard wait(for: Int16(POLLOUT), timeoutMS: min(timeoutMS, 1000)) else {
        // Waited a second without room: go on waiting up to the whole timeout.
        var waited: Int32 = 1000
        var ready = false
        while waited < timeoutMS && !ready {
          if cancelled() { throw SystemError("send", errno: ECANCELED) }
          ready = wait(for: Int16(POLLOUT), timeoutMS: min(1000, timeoutMS - waited))
          waited += 1000
        }
        if !ready { throw SystemError("send", errno: ETIMEDOUT) }
        continue
      }
    }
  }

  /// What the peer sends within `timeoutMS`, up to `maxLength` bytes: empty on timeout.
  /// The peer closing the connection throws ECONNRESET.
  public func read(maxLength: Int = 4096, timeoutMS: Int32) throws(SystemError) -> [UInt8] {
    guard wait(for: Int16(POLLIN), timeoutMS: timeoutMS) else { return [] }
    var buffer = [UInt8](repeating: 0, count: maxLength)
    let (n, e) = buffer.withUnsafeMutableBytes { raw in
      retryingEINTR { recv(fd, raw.baseAddress!, maxLength, 0) }
    }
    if n < 0 {
      if e == EAGAIN || e == EWOULDBLOCK { return [] }
      throw SystemError("recv", errno: e)
    }
    if n == 0 { throw SystemError("recv", errno: ECONNRESET) }
    return Array(buffer.prefix(n))
  }
}

extension SystemError {
  /// A `TCPConnection.write` stopped because its caller cancelled.
  public var isCancellation: Bool { errno == ECANCELED }
}
