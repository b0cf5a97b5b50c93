import FoundationEssentials
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A datagram socket standing in for systemd's NOTIFY_SOCKET: what labeld says to its
/// service manager (READY=1, WATCHDOG=1, STOPPING=1), for the service tests and the
/// bench's cold-start timing.
package final class NotifyListener: @unchecked Sendable {
  /// What to put in NOTIFY_SOCKET.
  package let path: String
  private let fd: Int32

  /// Binds `directory/notify.sock`.
  package init(directory: URL) throws(SystemError) {
    path = directory.appendingPathComponent("notify.sock").path
    fd = try SystemError.check("socket") {
      socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) {
      $0.copyBytes(from: Array(path.utf8.prefix(107)) + [0])
    }
    let (bound, err) = withUnsafePointer(to: &addr) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        retryingEINTR { bind(fd, address, socklen_t(MemoryLayout<sockaddr_un>.size)) }
      }
    }
    if bound != 0 {
      close(fd)
      throw SystemError("bind \(path)", errno: err)
    }
  }

  deinit { close(fd) }

  /// The next datagram, or nil after `timeout` seconds.
  package func next(timeout: Double = 30) -> String? {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard retryingEINTR({ poll(&pfd, 1, Int32(timeout * 1000)) }).result == 1 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = retryingEINTR { recv(fd, &buffer, buffer.count, 0) }.result
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
  }

  /// Reads datagrams until one has the line `line` (or `timeout` seconds pass with none);
  /// all read so far.
  package func waitFor(_ line: String, timeout: Double = 30) -> [String] {
    var seen: [String] = []
    while let message = next(timeout: timeout) {
      seen.append(message)
      if message.split(separator: "\n").contains(Substring(line)) { break }
    }
    return seen
  }
}
