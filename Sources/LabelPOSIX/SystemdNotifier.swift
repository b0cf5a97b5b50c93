#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The systemd notify protocol, spoken directly: one datagram of `KEY=VALUE` lines to the
/// Unix socket named by `NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace).
/// No libsystemd: the protocol is a documented, stable datagram, and labeld would use
/// three of libsystemd's hundreds of functions. Outside systemd (no `NOTIFY_SOCKET`)
/// every call does nothing.
public struct SystemdNotifier: Sendable {
  /// The socket path as systemd gave it; nil outside systemd.
  public let notifySocket: String?
  /// How often systemd expects `WATCHDOG=1`, when the unit sets `WatchdogSec`.
  public let watchdogInterval: Duration?

  public init(environment: [String: String]) {
    let socket = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    notifySocket = socket
    // WATCHDOG_PID, when set, names the process meant: not us means not ours to ping.
    let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
    if forUs, let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 {
      watchdogInterval = .microseconds(Int64(usec))
    } else {
      watchdogInterval = nil
    }
  }

  /// Start-up is complete: the socket accepts and requests are answered.
  public func ready(status: String) { send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())") }
  public func status(_ text: String) { send("STATUS=\(text)") }
  public func stopping(status: String) { send("STOPPING=1\nSTATUS=\(status)") }
  public func reloading() { send("RELOADING=1\nSTATUS=reloading configuration") }
  public func watchdog() { send("WATCHDOG=1") }

  /// Sends one notification; failures are ignored (systemd may have gone away, and the
  /// daemon's work does not depend on being heard).
  public func send(_ message: String) {
    guard let path = notifySocket else { return }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
    let capacity = MemoryLayout.size(ofValue: addr.sun_path)
    guard bytes.count < capacity else { return }
    withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes) }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let payload = Array(message.utf8)
    _ = payload.withUnsafeBytes { data in
      withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          sendto(fd, data.baseAddress, data.count, Int32(MSG_NOSIGNAL), $0, length)
        }
      }
    }
  }
}
