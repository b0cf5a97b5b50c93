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
    while true {
      let r = body()
      if r != -1 { return r }
      let e = Glibc.errno
      if e == EINTR { continue }
      throw SystemError(call, errno: e)
    }
  }
}
