import Foundation
import LabelKit
import LabelPOSIX
import LabelSQLite
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Peak RSS of labeld while 32 clients each push 1 MiB requests as fast as labeld takes
/// them and never read an answer (issue #12's aim: < 200 MB), then whether it still
/// answers a well-behaved client. Twice: requests labeld answers at once (`hello`), and
/// saves it cannot answer because another process holds the database lock, so that all
/// it reads is held (the read-ahead budget is what bounds it).
@MainActor func hostilePeersSection() throws {
  emit("| measurement | value |\n|---|---:|")
  try hostileRun(answered: true)
  try hostileRun(answered: false)
}

@MainActor private func hostileRun(answered: Bool) throws {
  let (daemon, socket) = try startDaemon(
    config.work.appendingPathComponent(answered ? "hostile-answered" : "hostile-locked"),
    benchPrinters + ["--busy-timeout-ms", "600000"])
  defer { stopDaemon(daemon) }
  let before = rssKB(daemon.processIdentifier)
  let padding = String(repeating: "x", count: 1_048_576 - 200)
  let request =
    answered
    ? #"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"client":"\#(padding)"}}"#
    : #"{"jsonrpc":"2.0","id":1,"method":"products.save","params":{"product":{"sku":"H","name":"n"},"pad":"\#(padding)"}}"#
  let line = Array(request.utf8) + [0x0A]
  var lock: Database?
  if !answered {
    let db = try Database(path: config.work.path + "/hostile-locked/state/labeld.db")
    try db.execute("BEGIN EXCLUSIVE")
    lock = db
  }
  let clients = 32
  let seconds = 10.0
  let sent = Mutex<Int>(0)
  let group = DispatchGroup()
  progress(
    "\(clients) clients pushing 1 MiB \(answered ? "hello" : "products.save (database locked)") "
      + "requests for \(Int(seconds)) s without reading")
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
        let (n, e) = retryingEINTR {
          line.withUnsafeBytes {
            send(
              fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
          }
        }
        if n < 0 {
          if e == EAGAIN { continue }
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
  while group.wait(timeout: .now() + 0.1) == .timedOut {}
  let peak = peakRSSKB(daemon.processIdentifier)
  let polite = (try? BlockingConnection(socketPath: socket).call("hello")) != nil
  if let lock {
    try lock.execute("COMMIT")
    try lock.close()
  }
  let kind = answered ? "answered (hello)" : "unanswered (database locked)"
  emit(
    "| \(kind): labeld RSS before / peak, \(clients) clients pushing 1 MiB requests without "
      + "reading for \(Int(seconds)) s (MB) | "
      + String(format: "%.1f / %.1f |", Double(before) / 1024, Double(peak) / 1024))
  emit("| \(kind): 1 MiB requests the clients got in, all told | \(sent.withLock { $0 }) |")
  emit("| \(kind): a well-behaved client is answered meanwhile | \(polite ? "yes" : "**no**") |")
}
