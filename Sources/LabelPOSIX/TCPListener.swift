#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Listening TCP sockets (the HTTP endpoint's), on numeric addresses only: a listener is
/// configured, never looked up in DNS.
public enum TCPListener {
  /// Binds `host` (an IPv4 or IPv6 literal, no brackets) and `port` (0: any free one) and
  /// listens; the socket is non-blocking and close-on-exec.
  public static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SystemError)
    -> Int32
  {
    var hints = addrinfo()
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &found)
    guard rc == 0, let info = found else {
      throw SystemError("\(host) is not a numeric address", errno: EINVAL)
    }
    defer { freeaddrinfo(found) }
    let fd = socket(
      info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SystemError("socket", errno: errno) }
    do throws(SystemError) {
      var one: Int32 = 1
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
      if info.pointee.ai_family == AF_INET6 {
        setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
      }
      try SystemError.check("bind \(host) port \(port)") {
        bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
      }
      try SystemError.check("listen") { Glibc.listen(fd, backlog) }
      try UnixSocket.setNonBlocking(fd)
    } catch {
      close(fd)
      throw error
    }
    return fd
  }

  /// The port `fd` is bound to.
  public static func port(of fd: Int32) -> Int? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let rc = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard rc == 0 else { return nil }
    return withUnsafePointer(to: &storage) { p -> Int? in
      switch Int32(p.pointee.ss_family) {
      case AF_INET:
        return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
          Int(UInt16(bigEndian: $0.pointee.sin_port))
        }
      case AF_INET6:
        return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
          Int(UInt16(bigEndian: $0.pointee.sin6_port))
        }
      default: return nil
      }
    }
  }
}
