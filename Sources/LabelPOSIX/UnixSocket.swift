#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The credentials of the process at the other end of a Unix socket (SO_PEERCRED).
public struct PeerCredentials: Sendable, Equatable {
  public var pid: Int32
  public var uid: UInt32
  public var gid: UInt32
  /// The peer's supplementary groups when it connected (SO_PEERGROUPS).
  public var groups: [UInt32]
  public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
    self.pid = pid
    self.uid = uid
    self.gid = gid
    self.groups = groups
  }
}

/// Unix stream socket calls, each returning a raw descriptor that the caller then owns.
public enum UnixSocket {
  /// `struct ucred` is hidden behind _GNU_SOURCE in Glibc's headers; this mirrors its layout.
  private struct UCred {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
  }

  private static func address(_ path: String) throws(SystemError) -> (sockaddr_un, socklen_t) {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: addr.sun_path)
    guard bytes.count < capacity else { throw SystemError("socket path", errno: ENAMETOOLONG) }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return (addr, socklen_t(MemoryLayout<sockaddr_un>.size))
  }

  private static func newSocket() throws(SystemError) -> Int32 {
    try SystemError.check("socket") {
      socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
  }

  /// Connects to `path`; the descriptor is blocking.
  public static func connect(path: String) throws(SystemError) -> Int32 {
    var (addr, len) = try address(path)
    let fd = try newSocket()
    do throws(SystemError) {
      try SystemError.check("connect") {
        withUnsafePointer(to: &addr) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, len) }
        }
      }
    } catch {
      close(fd)
      throw error
    }
    return fd
  }

  /// Binds and listens at `path`. A stale socket file (nothing accepting behind it) is
  /// replaced; a live one is an error (EADDRINUSE) so two daemons never share a path.
  /// `group`, when given, owns the socket before it listens, so no client can connect
  /// while it still has the process's group (a member of `group` refused for a moment, a
  /// test seeing the wrong group); a group that cannot be set is reported through
  /// `groupFailed` (with errno) and the socket still listens.
  public static func listen(
    path: String, mode: mode_t = 0o660, group: gid_t? = nil, backlog: Int32 = 1024,
    groupFailed: (Int32) -> Void = { _ in }
  ) throws(SystemError) -> Int32 {
    var (addr, len) = try address(path)
    if access(path, F_OK) == 0 {
      if let probe = try? connect(path: path) {
        close(probe)
        throw SystemError("bind \(path) (another daemon is listening)", errno: EADDRINUSE)
      }
      unlink(path)
    }
    let fd = try newSocket()
    do throws(SystemError) {
      try SystemError.check("bind \(path)") {
        withUnsafePointer(to: &addr) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
      }
      if let group, chown(path, uid_t.max, group) != 0 { groupFailed(errno) }
      try SystemError.check("chmod \(path)") { chmod(path, mode) }
      try SystemError.check("listen") { Glibc.listen(fd, backlog) }
      try setNonBlocking(fd)
    } catch {
      close(fd)
      throw error
    }
    return fd
  }

  /// Accepts one connection (non-blocking, close-on-exec); nil when none is waiting.
  public static func accept(_ listener: Int32) throws(SystemError) -> Int32? {
    while true {
      let (fd, e) = retryingEINTR { Glibc.accept(listener, nil, nil) }
      if fd >= 0 {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        try setNonBlocking(fd)
        return fd
      }
      switch e {
      case ECONNABORTED: continue
      case EAGAIN, EWOULDBLOCK: return nil
      default: throw SystemError("accept", errno: e)
      }
    }
  }

  public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
    let flags = try SystemError.check("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
    try SystemError.check("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
  }

  /// The peer's pid, uid and gid, as the kernel recorded them at connect time.
  public static func peerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
    var cred = UCred()
    var len = socklen_t(MemoryLayout<UCred>.size)
    try SystemError.check("getsockopt(SO_PEERCRED)") {
      getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)
    }
    return PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid, groups: peerGroups(fd))
  }

  /// SO_PEERGROUPS (Linux 4.13): the peer's supplementary groups as they were at connect
  /// time. Empty where the kernel lacks it.
  private static func peerGroups(_ fd: Int32) -> [UInt32] {
    let soPeerGroups: Int32 = 59
    var groups = [UInt32](repeating: 0, count: 64)
    for _ in 0..<2 {
      var len = socklen_t(groups.count * MemoryLayout<UInt32>.size)
      let rc = groups.withUnsafeMutableBytes {
        getsockopt(fd, SOL_SOCKET, soPeerGroups, $0.baseAddress, &len)
      }
      let count = Int(len) / MemoryLayout<UInt32>.size
      if rc == 0 { return Array(groups.prefix(count)) }
      guard errno == ERANGE, count > groups.count else { return [] }
      groups = [UInt32](repeating: 0, count: count)
    }
    return []
  }

  /// The id of the group named `name`, nil when there is none.
  public static func groupID(named name: String) -> UInt32? {
    var group = group()
    var result: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    let rc = getgrnam_r(name, &group, &buffer, buffer.count, &result)
    guard rc == 0, result != nil else { return nil }
    return group.gr_gid
  }

  /// Creates `path`'s parent directories as needed (mode 0755 for the last one).
  public static func makeParentDirectory(of path: String) throws(SystemError) {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
    let dir = String(path[..<slash])
    try makeDirectories(dir, mode: 0o755)
  }

  /// `mkdir -p`.
  public static func makeDirectories(_ dir: String, mode: mode_t) throws(SystemError) {
    var current = dir.hasPrefix("/") ? "" : "."
    for part in dir.split(separator: "/") {
      current += "/" + part
      if mkdir(current, mode) != 0 && errno != EEXIST {
        throw SystemError("mkdir \(current)", errno: errno)
      }
    }
  }
}
