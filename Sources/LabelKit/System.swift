// Everything LabelKit asks of the operating system, in this one file: a Unix stream socket
// (connect, send, receive, wait, shut down, close), errno text, who owns a socket file,
// the process's environment and uid. The rest of the kit is plain Swift, so it builds for
// Linux and for Apple platforms alike.

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  import Darwin
#else
  #error("LabelKit needs a POSIX C library")
#endif

/// Thin wrappers over the socket calls; errno is read right after the call that set it.
enum OS {
  /// A failed call: which one and its errno.
  struct Failure: Error, Sendable {
    var call: String
    var errno: Int32

    var text: String { "\(call): \(OS.describe(errno))" }
  }

  static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

  /// `ENOENT`, `ECONNREFUSED`: nothing listens at the path.
  static func meansNotRunning(_ code: Int32) -> Bool { code == ENOENT || code == ECONNREFUSED }
  /// `EACCES`, `EPERM`: the socket or a directory on its path may not be opened.
  static func meansPermission(_ code: Int32) -> Bool { code == EACCES || code == EPERM }

  /// Opens a stream socket connected to `path` (close-on-exec; no SIGPIPE on writes).
  static func connectUnix(_ path: String) throws(Failure) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !bytes.isEmpty, bytes.count < capacity else {
      throw Failure(call: "socket path longer than \(capacity - 1) bytes", errno: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    #if canImport(Darwin)
      let fd = socket(AF_UNIX, SOCK_STREAM, 0)
    #else
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #endif
    guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
    #if canImport(Darwin)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      var on: Int32 = 1
      _ = setsockopt(
        fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
    let length = socklen_t(MemoryLayout<sockaddr_un>.size)
    while true {
      let r = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
      }
      if r == 0 { return fd }
      let code = errno
      if code == EINTR { continue }
      close(fd)
      throw Failure(call: "connect \(path)", errno: code)
    }
  }

  /// Writes as much of `bytes` as the socket takes (blocking); the count written, or the
  /// errno of a failure (`EPIPE`, `ECONNRESET` when labeld has gone).
  static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Failure> {
    #if canImport(Darwin)
      let flags: Int32 = 0
    #else
      let flags = Int32(MSG_NOSIGNAL)
    #endif
    while true {
      let n = Glibc_send(fd, bytes.baseAddress, bytes.count, flags)
      if n >= 0 { return .success(n) }
      let code = errno
      if code == EINTR { continue }
      return .failure(Failure(call: "send", errno: code))
    }
  }

  /// Reads what is there into `buffer` (blocking until something is): the count, 0 at the
  /// end of the stream.
  static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer)
    -> Result<Int, Failure>
  {
    while true {
      let n = read(fd, buffer.baseAddress, buffer.count)
      if n >= 0 { return .success(n) }
      let code = errno
      if code == EINTR { continue }
      return .failure(Failure(call: "read", errno: code))
    }
  }

  /// Waits until `fd` can be read (or has hung up); false when `milliseconds` passed first.
  /// A negative timeout waits for ever.
  static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
      let r = poll(&entry, 1, milliseconds)
      if r > 0 { return true }
      if r == 0 { return false }
      if errno == EINTR { continue }
      // A descriptor poll cannot wait on: let the read report why.
      return true
    }
  }

  /// Sets how long a read on `fd` waits before it fails with `EAGAIN` (nil: for ever).
  static func setReceiveTimeout(_ fd: Int32, seconds: Double?) {
    var value = timeval()
    if let seconds {
      value.tv_sec = .init(seconds.rounded(.down))
      value.tv_usec = .init((seconds - seconds.rounded(.down)) * 1_000_000)
    }
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  /// `EAGAIN`, `EWOULDBLOCK`: a read's receive timeout passed.
  static func meansTimedOut(_ code: Int32) -> Bool { code == EAGAIN || code == EWOULDBLOCK }

  /// Wakes a reader blocked on `fd` (it reads the end of the stream) without closing it.
  static func shutdown(_ fd: Int32) { _ = Glibc_shutdown(fd, Int32(SHUT_RDWR)) }

  static func close(_ fd: Int32) { _ = Glibc_close(fd) }

  /// The group that owns the file at `path` (its name, or the number when it has none) and
  /// its permission bits; nil when it cannot be looked at.
  static func owner(of path: String) -> (group: String, mode: UInt32)? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let mode = UInt32(info.st_mode) & 0o7777
    guard let entry = getgrgid(info.st_gid), let name = entry.pointee.gr_name else {
      return (String(info.st_gid), mode)
    }
    return (String(cString: name), mode)
  }

  static var uid: UInt32 { UInt32(getuid()) }

  /// The process environment as a dictionary.
  static var environment: [String: String] {
    var out: [String: String] = [:]
    #if canImport(Darwin)
      guard var p = _NSGetEnviron()?.pointee else { return out }
    #else
      var p = environ
    #endif
    while let entry = p.pointee {
      let s = String(cString: entry)
      if let eq = s.firstIndex(of: "=") {
        out[String(s[..<eq])] = String(s[s.index(after: eq)...])
      }
      p += 1
    }
    return out
  }
}

// The C functions whose Swift names collide with methods above.
@inline(__always) private func Glibc_send(
  _ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int, _ flags: Int32
) -> Int {
  send(fd, p, n, flags)
}
@inline(__always) private func Glibc_shutdown(_ fd: Int32, _ how: Int32) -> Int32 {
  shutdown(fd, how)
}
@inline(__always) private func Glibc_close(_ fd: Int32) -> Int32 { close(fd) }
