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
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let n = try SystemError.check("read \(path)") {
        chunk.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress, raw.count) }
      }
      if n == 0 { return out }
      guard out.count + n <= limit else { throw SystemError("read \(path)", errno: EFBIG) }
      out += chunk[0..<n]
    }
  }

  /// Appends `bytes` to the file at `path`, creating it (mode 0644) if it is missing.
  public static func append(_ bytes: [UInt8], to path: String) throws(SystemError) {
    let fd = try SystemError.check("open \(path)") {
      open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
      let (n, err) = bytes.withUnsafeBytes { raw -> (Int, Int32) in
        guard let base = raw.baseAddress else { return (0, EIO) }
        return retryingEINTR { write(fd, base + done, raw.count - done) }
      }
      guard n > 0 else { throw SystemError("write \(path)", errno: n == 0 ? EIO : err) }
      done += n
    }
  }
}
