#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A failed system call: the call's name and the errno read right after it.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
  public var call: String
  public var errno: Int32

  public init(_ call: String, errno: Int32) {
    self.call = call
    self.errno = errno
  }

  public var description: String {
    "\(call): \(String(cString: strerror(errno)))"
  }

  /// Runs a raw call that returns -1 on failure, retrying on EINTR and reading errno at
  /// once (it is gone after the next call).
  @discardableResult
  public static func check<T: BinaryInteger>(_ call: String, _ body: () -> T) throws(SystemError)
    -> T
  {
    let (r, e) = retryingEINTR(body)
    if r < 0 { throw SystemError(call, errno: e) }
    return r
  }
}

/// The one place a system call interrupted by a signal is made again: runs `body` (a raw
/// call returning a negative value on failure, with errno set) until it does not fail with
/// EINTR. Returns its result and, when it failed, the errno read right after it (0 when
/// it did not): errno is gone after the next call.
public func retryingEINTR<T: BinaryInteger>(_ body: () -> T) -> (result: T, errno: Int32) {
  while true {
    let r = body()
    if r >= 0 { return (r, 0) }
    let e = Glibc.errno
    if e != EINTR { return (r, e) }
  }
}

/// Files written with plain system calls (no buffering layer between labeld and the disk).
public enum PlainFile {
  /// The whole file at `path`, read up to `limit` bytes (more is an EFBIG error).
  public static func read(_ path: String, limit: Int = 16 << 20) throws(SystemError) -> [UInt8] {
    let fd = try SystemError.check("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
    defer { close(fd) }
    return try read(descriptor: fd, name: path, limit: limit)
  }

  /// Everything left to read on `fd` (a file, a pipe, standard input) up to `limit` bytes;
  /// `name` is for the error.
  public static func read(descriptor fd: Int32, name: String, limit: Int = 16 << 20)
    throws(SystemError) -> [UInt8]
  {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let n = try SystemError.check("read \(name)") {
        chunk.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress, raw.count) }
      }
      if n == 0 { return out }
      guard out.count + n <= limit else { throw SystemError("read \(name)", errno: EFBIG) }
      out += chunk[0..<n]
    }
  }

  /// Appends `bytes` to the file at `path`, creating it (mode 0644) if it is missing.
  public static func append(_ bytes: [UInt8], to path: String) throws(SystemError) {
    let fd = try SystemError.check("open \(path)") {
      open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    }
    defer { close(fd) }
    try write(bytes, descriptor: fd, name: path)
  }

  /// Writes `bytes` as the whole of the file at `path`, in place (created with mode 0666
  /// less the umask, or truncated), as a shell's `>` does.
  public static func write(_ bytes: [UInt8], to path: String) throws(SystemError) {
    let fd = try SystemError.check("open \(path)") {
      open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    }
    defer { close(fd) }
    try write(bytes, descriptor: fd, name: path)
  }

  /// Writes all of `bytes` to `fd` (a file, a pipe, standard output), however many calls
  /// it takes; `name` is for the error.
  public static func write(_ bytes: [UInt8], descriptor fd: Int32, name: String)
    throws(SystemError)
  {
    var done = 0
    while done < bytes.count {
      let (n, err) = bytes.withUnsafeBytes { raw -> (Int, Int32) in
        guard let base = raw.baseAddress else { return (0, EIO) }
        return retryingEINTR { Glibc.write(fd, base + done, raw.count - done) }
      }
      guard n > 0 else { throw SystemError("write \(name)", errno: n == 0 ? EIO : err) }
      done += n
    }
  }
}
