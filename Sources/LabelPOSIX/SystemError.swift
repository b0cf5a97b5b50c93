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
