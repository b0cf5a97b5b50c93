import Dispatch
import Foundation
import LabelCore
import LabelKit
import LabelLoad
import LabelPOSIX
import LabelTestKit
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// The web endpoint: printers.list over a WebSocket against the Unix socket at 100 clients
// (same labeld, runs interleaved), one alert's fan-out to 1,000 WebSocket subscribers, and
// labeld's memory at rest with the endpoint on and off.

/// One connection of the comparison, the client's part as thin as it can be for both
/// transports: a request prebuilt once, the answer read up to its end and not parsed, so
/// what is measured is labeld (the bench shares labeld's two cores).
private final class RawClient {
  let fd: Int32
  let request: [UInt8]
  let webSocket: Bool
  /// Bytes read and not yet an answer.
  var buffer: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  let keep: AnyObject?

  init(socket: String, line: [UInt8]) throws {
    fd = try UnixSocket.connect(path: socket)
    request = line + [0x0A]
    webSocket = false
    keep = nil
  }

  init(port: Int, token: String, line: [UInt8]) throws {
    let ws = try WebSocketClient(port: port, token: token)
    fd = ws.connection.fd
    request = WebSocketClient.frame(opcode: 1, line)
    webSocket = true
    keep = ws
  }

  /// A WebSocket to the endpoint's `unix:` listener at `path` (the handshake by hand: the
  /// same bytes as `WebSocketClient`'s).
  init(unixHTTP path: String, token: String, line: [UInt8]) throws {
    let fd = try UnixSocket.connect(path: path)
    let hello = WebSocketClient.handshake(["Authorization": "Bearer \(token)"])
    _ = hello.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var head: [UInt8] = []
    var byte: UInt8 = 0
    while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 10_000) == 1, read(fd, &byte, 1) == 1 else {
        close(fd)
        throw BenchError.failed("no handshake answer on \(path)")
      }
      head.append(byte)
    }
    self.fd = fd
    request = WebSocketClient.frame(opcode: 1, line)
    webSocket = true
    keep = nil
  }

  deinit { if keep == nil { close(fd) } }

  /// One call: false when the connection failed.
  func call() -> Bool {
    let sent = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard sent == request.count else { return false }
    while true {
      if let end = answerEnd() {
        buffer.removeFirst(end)
        return true
      }
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 10_000) == 1 else { return false }
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n > 0 {
        buffer += chunk[0..<n]
      } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
        return false
      }
    }
  }

  /// Where the first whole answer ends in `buffer`, once it is there.
  private func answerEnd() -> Int? {
    let held = buffer.count
    if !webSocket {
      return buffer.firstIndex(of: 0x0A).map { $0 + 1 }
    }
    guard held >= 2 else { return nil }
    var length = Int(buffer[1] & 0x7F)
    var at = 2
    if length == 126 {
      guard held >= 4 else { return nil }
      length = Int(buffer[2]) << 8 | Int(buffer[3])
      at = 4
    } else if length == 127 {
      guard held >= 10 else { return nil }
      length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
      at = 10
    }
    return held >= at + length ? at + length : nil
  }
}

@MainActor func webSection() throws {
  var nofile = rlimit()
  getrlimit(Int32(RLIMIT_NOFILE.rawValue), &nofile)
  nofile.rlim_cur = nofile.rlim_max
  setrlimit(Int32(RLIMIT_NOFILE.rawValue), &nofile)
  let port = freePort()
  let home = config.work.appendingPathComponent("web")
  let httpSocket = home.appendingPathComponent("http.sock").path
  let (daemon, socket) = try startDaemon(
    home,
    benchPrinters + ["--listen-http", "127.0.0.1:\(port)", "--listen-http", "unix:\(httpSocket)"])
  defer { stopDaemon(daemon) }
  let admin = try BlockingConnection(socketPath: socket)
  let token = try admin.call(
    "tokens.create", ["name": "bench", "role": "operator"], as: TokenCreated.self
  ).secret
  // The endpoint starts right after the socket: wait until a WebSocket opens.
  for _ in 0..<500 where (try? WebSocketClient(port: port, token: token)) == nil {
    usleep(10_000)
  }
  emit(
    "| printers.list, 100 clients flat out | round | calls | p50 ms | p99 ms | calls/s "
      + "| labeld CPU per call (µs) |")
  emit("|---|---:|---:|---:|---:|---:|---:|")
  let pid = daemon.processIdentifier
  func cpuTicks() -> Int { ProcessMetrics.read(pid)?.cpuTicks ?? 0 }
  let total = config.requests * 10
  let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"printers.list"}"#.utf8)
  for round in 1...3 {
    for transport in ["Unix socket", "WebSocket", "WebSocket on unix:"] {
      progress("printers.list, \(transport), round \(round) of 3")
      let ticks = cpuTicks()
      let open: @Sendable () throws -> RawClient =
        switch transport {
        case "WebSocket": { try RawClient(port: port, token: token, line: line) }
        case "WebSocket on unix:":
          {
            try RawClient(unixHTTP: httpSocket, token: token, line: line)
          }
        default: { try RawClient(socket: socket, line: line) }
        }
      let (lat, wall) = runClients(
        clients: 100, total: total,
        connect: { () -> RawClient? in
          guard let c = try? open(), c.call() else { return nil }
          return c
        }, call: { $0.call() })
      let cpu = Double(cpuTicks() - ticks) / Double(ProcessMetrics.ticksPerSecond)
      emit(
        "| \(transport) | \(round) | \(lat.count) | "
          + String(
            format: "%.3f | %.3f | %.0f | %.1f |", percentile(lat, 0.5), percentile(lat, 0.99),
            Double(lat.count) / wall, cpu / Double(max(1, lat.count)) * 1e6))
    }
  }
  emit("")
  try webFanout(port: port, token: token, trigger: admin, daemon: daemon.processIdentifier)
  emit("")
  try webIdle()
}

/// One alert to 1,000 WebSocket subscribers, read as labeld's own epoll loop reports them
/// (as the socket's fan-out section does), five rounds.
@MainActor private func webFanout(
  port: Int, token: String, trigger: BlockingConnection, daemon: Int32
) throws {
  progress("connecting 1,000 WebSocket subscribers")
  var subscribers: [WebSocketClient] = []
  for _ in 0..<1000 {
    let ws = try WebSocketClient(port: port, token: token)
    _ = try ws.call("subscribe", ["topics": ["alerts"]])
    subscribers.append(ws)
  }
  let subscribedRSS = rssKB(daemon)
  var fanout = try fanOut(to: subscribers.map { $0.connection.fd }, trigger: trigger).all
  fanout.sort()
  emit("| measurement | value |\n|---|---:|")
  emit(
    String(
      format: "| one alert to 1,000 WebSocket subscribers, median of 5 (ms) | %.2f |", fanout[2]))
  emit(String(format: "| the same, worst of 5 (ms) | %.2f |", fanout[4]))
  emit(
    "| RSS with 1,000 WebSocket subscribers (MB) | \(String(format: "%.1f", Double(subscribedRSS) / 1024)) |"
  )
  withExtendedLifetime(subscribers) {}
}

/// labeld at rest (25 s after start) with the endpoint off and on, and what it mapped.
@MainActor private func webIdle() throws {
  emit("| labeld at rest | RSS (MB) | PSS (MB) | lazily loaded libraries mapped |")
  emit("|---|---:|---:|---|")
  for on in [false, true] {
    progress("at rest, endpoint \(on ? "on" : "off")")
    let home = config.work.appendingPathComponent("web-idle-\(on)")
    let (daemon, _) = try startDaemon(
      home,
      ["--no-config", "--no-cups", "--no-usb"] + benchPrinters
        + (on ? ["--listen-http", "127.0.0.1:\(freePort())"] : []))
    defer { stopDaemon(daemon) }
    usleep(25_000_000)
    let pid = daemon.processIdentifier
    emit(
      "| endpoint \(on ? "on (127.0.0.1)" : "off") | "
        + String(
          format: "%.1f | %.1f |", Double(rollupKB("Rss:", pid)) / 1024,
          Double(rollupKB("Pss:", pid)) / 1024) + " \(lazyLibraries(pid)) |")
  }
}
