import Dispatch
import Foundation
import LabelCore
import LabelKit
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// Request latency at 1/10/100 clients and one alert's fan-out to 1,000 subscribers, each
// against a labeld of its own with two simulated printers.

/// The simulated printers of the latency and fan-out sections.
let benchPrinters = [
  "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql",
]

/// Runs `clients` threads, each with its own connection, making `perClient` calls of
/// `method`; returns every call's latency (ns), sorted, and the wall time.
/// With `interval` (seconds), each client paces itself to one call per interval (an
/// offered load of clients / interval calls per second) instead of calling flat out.
func measure(
  socket: String,
  _ method: String, _ params: JSONValue, clients: Int, total: Int, interval: Double? = nil
)
  -> ([UInt64], Double)
{
  runClients(
    clients: clients, total: total, interval: interval,
    connect: { () -> BlockingConnection? in
      guard let c = try? BlockingConnection(socketPath: socket) else { return nil }
      _ = try? c.call("hello")
      return c
    },
    call: { c in (try? c.call(method, params)) != nil })
}

/// `clients` threads, each on a connection `connect` opens in it, making `total` calls
/// (`call`; false ends that client) between them, started together once all are connected;
/// every call's latency (ns), sorted, and the wall time. With `interval`, each paces itself
/// to one call per interval.
func runClients<Client>(
  clients: Int, total: Int, interval: Double? = nil,
  connect: @escaping @Sendable () -> Client?, call: @escaping @Sendable (Client) -> Bool
) -> ([UInt64], Double) {
  let perClient = max(1, total / clients)
  let latencies = Mutex<[UInt64]>([])
  let group = DispatchGroup()
  let start = DispatchSemaphore(value: 0)
  for _ in 0..<clients {
    group.enter()
    Thread.detachNewThread {
      defer { group.leave() }
      guard let c = connect() else { return }
      start.wait()
      var mine: [UInt64] = []
      mine.reserveCapacity(perClient)
      var next = now() + UInt64.random(in: 0...UInt64((interval ?? 0) * 1e9))
      for _ in 0..<perClient {
        if let interval {
          let t = now()
          if next > t { usleep(UInt32((next - t) / 1000)) }
          next += UInt64(interval * 1e9)
        }
        let t = now()
        guard call(c) else { break }
        mine.append(now() - t)
      }
      latencies.withLock { $0 += mine }
    }
  }
  usleep(300_000)  // let every client connect before the clock starts
  let t0 = now()
  for _ in 0..<clients { start.signal() }
  group.wait()
  let wall = Double(now() - t0) / 1e9
  return (latencies.withLock { $0 }.sorted(), wall)
}

/// printers.list, jobs.submit and products.save at 1, 10 and 100 clients, flat out and
/// paced; then labeld's idle RSS.
@MainActor func latencySection() throws {
  let (daemon, socket) = try startDaemon(
    config.work.appendingPathComponent("latency"), benchPrinters)
  defer { stopDaemon(daemon) }
  let idleRSS = rssKB(daemon.processIdentifier)
  emit("| measurement | clients | load | calls | p50 ms | p99 ms | calls/s |")
  emit("|---|---:|---|---:|---:|---:|---:|")
  let doc: JSONValue = [
    "format": "native", "data": .string(Data("^XA^FDbench^FS^XZ".utf8).base64EncodedString()),
  ]
  let product: JSONValue = [
    "product": ["sku": "BENCH-1", "name": "Bench product", "barcode": "4006381333931"]
  ]
  for (method, params) in [
    ("printers.list", [:] as JSONValue),
    ("jobs.submit", ["printer": "sim:zebra", "document": doc]),
    ("products.save", product),
  ] {
    for clients in [1, 10, 100] where method != "products.save" || clients <= 10 {
      // Flat out (closed loop: latency includes queueing behind the other clients), then
      // paced at 10 calls/s per client (an open-loop offered load).
      for interval in [nil, 0.1] as [Double?] {
        progress("\(method), \(clients) clients, \(interval == nil ? "flat out" : "paced")")
        // printers.list is cheap enough that 2,000 calls from 100 clients measure their
        // start-up more than the daemon: ten times as many.
        let flatOut = method == "printers.list" ? config.requests * 10 : config.requests
        let total = interval == nil ? flatOut : min(config.requests, clients * 30)
        let (lat, wall) = measure(
          socket: socket, method, params, clients: clients, total: total, interval: interval)
        let load = interval.map { "\(Int(Double(clients) / $0))/s offered" } ?? "flat out"
        emit(
          "| \(method) | \(clients) | \(load) | \(lat.count) | "
            + String(
              format: "%.3f | %.3f | %.0f |", percentile(lat, 0.5), percentile(lat, 0.99),
              Double(lat.count) / wall))
      }
    }
  }
  emit("")
  emit("| measurement | value |\n|---|---:|")
  emit("| idle RSS (MB) | \(String(format: "%.1f", Double(idleRSS) / 1024)) |")
}

/// One alert to 1,000 subscribers: from sending printers.simulate to the last subscriber
/// reading the alert line (raw sockets, read as an epoll loop reports them), five rounds.
@MainActor func fanoutSection() throws {
  var nofile = rlimit()
  getrlimit(Int32(RLIMIT_NOFILE.rawValue), &nofile)
  nofile.rlim_cur = nofile.rlim_max
  setrlimit(Int32(RLIMIT_NOFILE.rawValue), &nofile)
  let (daemon, socket) = try startDaemon(
    config.work.appendingPathComponent("fanout"), benchPrinters)
  defer { stopDaemon(daemon) }
  var subscribers: [Int32] = []
  defer { for fd in subscribers { close(fd) } }
  progress("connecting 1,000 subscribers")
  for _ in 0..<1000 {
    let fd = try UnixSocket.connect(path: socket)
    let req = Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#.utf8) + [0x0A]
    _ = req.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var buf = [UInt8](repeating: 0, count: 4096)
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, 10_000) == 1, read(fd, &buf, buf.count) > 0 else {
      throw BenchError.failed("subscriber \(subscribers.count + 1) got no answer in 10 s")
    }
    subscribers.append(fd)
  }
  let subscribedRSS = rssKB(daemon.processIdentifier)
  var (fanout, toFirst) = try fanOut(
    to: subscribers, trigger: try BlockingConnection(socketPath: socket))
  fanout.sort()
  toFirst.sort()
  emit("| measurement | value |\n|---|---:|")
  emit(String(format: "| one alert to 1,000 subscribers, median of 5 (ms) | %.2f |", fanout[2]))
  emit(String(format: "| one alert to 1,000 subscribers, worst of 5 (ms) | %.2f |", fanout[4]))
  emit(
    String(format: "| the same, to the first subscriber, median of 5 (ms) | %.2f |", toFirst[2]))
  emit(
    "| RSS with 1,000 subscribers (MB) | \(String(format: "%.1f", Double(subscribedRSS) / 1024)) |")
}

/// Five alerts (a fault raised and cleared) to `subscribers` (connected, subscribed), each
/// timed from sending printers.simulate to the last subscriber reading it, and to the
/// first. The subscribers are read as labeld's own epoll loop reports them, not by poll()
/// scanning 1,000 descriptors per wake-up: the time measured is labeld's.
func fanOut(to subscribers: [Int32], trigger: BlockingConnection) throws -> (
  all: [Double], first: [Double]
) {
  var fanout: [Double] = []
  var toFirst: [Double] = []
  let loop = try EventLoop()
  try loop.start()
  defer { loop.stop() }
  let pending = Mutex<Set<Int32>>([])
  // When the first subscriber heard this round: the time to the first is the call and the
  // journal's commit, the rest labeld's sends (and this reader's reads, on the other core).
  let firstHeard = Mutex<UInt64?>(nil)
  let allHeard = DispatchSemaphore(value: 0)
  var tokens: [EventLoop.Token] = []
  defer { for token in tokens { loop.remove(token) } }
  for fd in subscribers {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    tokens.append(
      try loop.add(fd) { readiness in
        guard readiness.contains(.readable) else { return }
        var buf = [UInt8](repeating: 0, count: 4096)
        var got = false
        while read(fd, &buf, buf.count) > 0 { got = true }
        guard got else { return }
        firstHeard.withLock { if $0 == nil { $0 = now() } }
        let done = pending.withLock { p -> Bool in
          p.remove(fd) != nil && p.isEmpty
        }
        if done { allHeard.signal() }
      })
  }
  for round in 0..<5 {
    progress("round \(round + 1) of 5")
    pending.withLock { $0 = Set(subscribers) }
    firstHeard.withLock { $0 = nil }
    let t0 = now()
    _ = try trigger.call(
      "printers.simulate", ["printer": "sim:ql", "fault": round % 2 == 0 ? "coverOpen" : nil])
    guard allHeard.wait(timeout: .now() + 10) == .success else {
      let left = pending.withLock { $0.count }
      throw BenchError.failed("\(left) subscribers had no alert after 10 s")
    }
    fanout.append(Double(now() - t0) / 1e6)
    toFirst.append(Double((firstHeard.withLock { $0 } ?? t0) - t0) / 1e6)
  }
  return (fanout, toFirst)
}
