import Foundation
import LabelClient
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Peak RSS of labeld while 32 clients each push 1 MiB requests as fast as labeld takes
/// them and never read an answer (issue #12's aim: < 200 MB), then whether it still
/// answers a well-behaved client.
@MainActor func hostilePeersSection() throws {
  let (daemon, socket) = try startDaemon(
    config.work.appendingPathComponent("hostile"), benchPrinters)
  defer { stopDaemon(daemon) }
  let before = rssKB(daemon.processIdentifier)
  // A valid request a little under the 1 MiB line limit.
  let padding = String(repeating: "x", count: 1_048_576 - 100)
  let line =
    Array(
      #"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"client":"\#(padding)"}}"#.utf8) + [0x0A]
  let clients = 32
  let seconds = 10.0
  let sent = Mutex<Int>(0)
  let group = DispatchGroup()
  progress("\(clients) clients pushing 1 MiB requests for \(Int(seconds)) s without reading")
  let deadline = now() + UInt64(seconds * 1e9)
  for _ in 0..<clients {
    group.enter()
    Thread.detachNewThread {
      defer { group.leave() }
      guard let fd = try? UnixSocket.connect(path: socket) else { return }
      defer { close(fd) }
      var offset = 0
      while now() < deadline {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&p, 1, 100) == 1 else { continue }
        let n = line.withUnsafeBytes {
          send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if n < 0 {
          if errno == EAGAIN || errno == EINTR { continue }
          return
        }
        offset += n
        if offset == line.count {
          offset = 0
          sent.withLock { $0 += 1 }
        }
      }
    }
  }
  var peak = 0
  while group.wait(timeout: .now() + 0.1) == .timedOut {
    peak = max(peak, rssKB(daemon.processIdentifier))
  }
  peak = max(peak, rssKB(daemon.processIdentifier))
  let answers = (try? LabelClient(socketPath: socket).call("hello")) != nil
  emit("| measurement | value |\n|---|---:|")
  emit(
    String(
      format:
        "| labeld RSS before (MB) | %.1f |\n| labeld peak RSS, %d clients pushing 1 MiB requests without reading, %.0f s (MB) | %.1f |",
      Double(before) / 1024, clients, seconds, Double(peak) / 1024))
  emit("| 1 MiB requests the clients got in, all told | \(sent.withLock { $0 }) |")
  emit("| a well-behaved client is answered afterwards | \(answers ? "yes" : "**no**") |")
}
