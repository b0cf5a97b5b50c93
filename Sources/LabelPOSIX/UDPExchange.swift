#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// One UDP request and its answer (an SNMP GET to a printer): a connected datagram socket,
/// so only the peer's datagrams are read; every wait bounded. Blocking: use it off the
/// cooperative pool.
public enum UDPExchange {
  /// Sends `request` to `host`:`port` and returns the first datagram that comes back
  /// within `timeoutMS` and that `accept` takes, trying `attempts` times; ETIMEDOUT when
  /// none does. Answers are at most 64 KiB (a datagram's size).
  public static func request(
    _ request: [UInt8], host: String, port: Int, timeoutMS: Int32, attempts: Int = 2,
    accept: ([UInt8]) -> Bool = { _ in true }
  ) throws(SystemError) -> [UInt8] {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0, let ai = list else {
      throw SystemError("resolve \(host)", errno: EHOSTUNREACH)
    }
    defer { freeaddrinfo(list) }
    let fd = try SystemError.check("socket") {
      socket(
        ai.pointee.ai_family,
        Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
          | Int32(SOCK_NONBLOCK.rawValue), 0)
    }
    defer { close(fd) }
    try SystemError.check("connect \(host):\(port)") {
      connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen)
    }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    for _ in 0..<max(attempts, 1) {
      let sent = request.withUnsafeBytes { raw in
        retryingEINTR { send(fd, raw.baseAddress!, raw.count, Int32(MSG_NOSIGNAL)) }
      }
      if sent.result < 0 { throw SystemError("send to \(host):\(port)", errno: sent.errno) }
      let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMS))
      while ContinuousClock.now < deadline {
        let left = deadline - ContinuousClock.now
        let (seconds, attoseconds) = left.components
        let ms = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard retryingEINTR({ poll(&pfd, 1, max(ms, 1)) }).result == 1 else { break }
        let (n, e) = buffer.withUnsafeMutableBytes { raw in
          retryingEINTR { recv(fd, raw.baseAddress!, raw.count, 0) }
        }
        if n < 0 {
          if e == EAGAIN || e == EWOULDBLOCK { continue }
          // A refused port answers with ICMP: nothing listens there.
          throw SystemError("recv from \(host):\(port)", errno: e)
        }
        let answer = Array(buffer.prefix(n))
        if accept(answer) { return answer }
      }
    }
    throw SystemError("no answer from \(host):\(port)", errno: ETIMEDOUT)
  }
}
