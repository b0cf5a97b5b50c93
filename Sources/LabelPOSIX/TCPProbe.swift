#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Whether something listens at a network address: a TCP connect that is closed at once.
/// Used to notice that an unreachable network printer is back. Blocking (at most
/// `timeoutMS` per address): call it off the cooperative pool.
public enum TCPProbe {
  public static func canConnect(host: String, port: Int, timeoutMS: Int32 = 1000) -> Bool {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0 else { return false }
    defer { freeaddrinfo(list) }
    var next = list
    while let ai = next {
      next = ai.pointee.ai_next
      let fd = socket(
        ai.pointee.ai_family,
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
          | Int32(SOCK_NONBLOCK.rawValue), 0)
      guard fd >= 0 else { continue }
      defer { close(fd) }
      if connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 { return true }
      guard errno == EINPROGRESS else { continue }
      var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      guard retryingEINTR({ poll(&pfd, 1, timeoutMS) }).result == 1 else { continue }
      var error: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0 { return true }
    }
    return false
  }
}
