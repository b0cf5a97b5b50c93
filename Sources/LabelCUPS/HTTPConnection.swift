import CCUPS

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// One connection to the CUPS server (`http_t`), owned by exactly one instance:
/// `httpClose` in `deinit`. Not Sendable: its owner (`CUPSClient`) uses it on one serial
/// queue only.
final class HTTPConnection {
  let raw: OpaquePointer
  /// The server it talks to (`CUPS_SERVER`, client.conf, or the default socket).
  let server: String

  /// Connects to the server libcups is configured for (`CUPS_SERVER` first), giving up
  /// after `timeoutMS`; every later read or write gives up after `ioTimeout` seconds.
  init(timeoutMS: Int32 = 3000, ioTimeout: Double = 10) throws(CUPSError) {
    try CUPSLibrary.require()
    let server = String(cString: cupsServer())
    guard
      let http = httpConnect2(
        server, ippPort(), nil, AF_UNSPEC, cupsEncryption(), 1, timeoutMS, nil)
    else {
      let reason = String(cString: strerror(errno))
      throw CUPSError(
        status: .serviceUnavailable,
        message: "cannot connect to the CUPS server \(server): \(reason)"
      )
    }
    // No callback: a read or write that waits longer than this fails instead of hanging.
    httpSetTimeout(http, ioTimeout, nil, nil)
    raw = http
    self.server = server
  }

  deinit {
    httpClose(raw)
  }
}
