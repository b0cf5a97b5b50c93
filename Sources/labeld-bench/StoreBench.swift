import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelPOSIX
import LabelRender
import LabelSQLite
import LabelTestKit
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Bytes of labeld.db plus its WAL after 10,000 jobs go through a fresh daemon.
@MainActor func storeSize() throws -> String {
  let home = config.work.appendingPathComponent("size")
  let (p, sock) = try startDaemon(home, ["--simulate", "zebra=zpl", "--job-history", "100000"])
  defer { stopDaemon(p) }
  let label =
    "^XA^PW406^LL203^FO20,20^A0N,30,30^FDWhole milk 1 L^FS^FO20,60^BY2^BEN,60,Y,N^FD400638133393^FS^XZ"
  let docBytes: JSONValue = [
    "format": "native", "data": .string(Data(label.utf8).base64EncodedString()),
  ]
  let group = DispatchGroup()
  for _ in 0..<10 {
    group.enter()
    Thread.detachNewThread {
      defer { group.leave() }
      guard let c = try? BlockingConnection(socketPath: sock) else { return }
      for _ in 0..<1000 {
        _ = try? c.call("jobs.submit", ["printer": "sim:zebra", "document": docBytes])
      }
    }
  }
  group.wait()
  usleep(500_000)
  let db = home.appendingPathComponent("state/labeld.db").path
  let size = ["", "-wal"].map {
    (try? FileManager.default.attributesOfItem(atPath: db + $0)[.size] as? Int) ?? 0
  }
  return String(
    format: "| store size per 10,000 jobs (%d-byte label), db + WAL (MB) | %.2f |\n",
    label.utf8.count, Double(size.reduce(0, +)) / 1e6)
}

/// Milliseconds from exec to the first answered request, with 100,000 ended jobs stored.
@MainActor func startupWithHistory() throws -> String {
  let home = config.work.appendingPathComponent("history")
  let args = ["--simulate", "zebra=zpl", "--job-history", "200000"]
  let (p, _) = try startDaemon(home, args)
  stopDaemon(p)  // creates the schema
  do {
    let db = try Database(path: home.appendingPathComponent("state/labeld.db").path)
    try db.transaction { () throws(SQLiteError) in
      let insert = try db.statement(
        """
        INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid)
        VALUES ('sim:zebra', 'completed', 1, 1, ?, ?, 0)
        """)
      let document = try db.statement(
        "INSERT INTO documents (job, data) VALUES (last_insert_rowid(), ?)")
      let now = Date().timeIntervalSince1970
      let bytes = Array("^XA^FO20,20^A0N,30,30^FDhistory^FS^XZ".utf8)
      for i in 0..<100_000 {
        try insert.bind(now - Double(i), now - Double(i)).run()
        try document.bind(bytes).run()
      }
    }
    try db.close()
  } catch {
    return "| start-up with 100,000 jobs of history | failed: \(error) |\n"
  }
  var times: [Double] = []
  for _ in 0..<5 {
    let t0 = now()
    let (p2, _) = try startDaemon(home, args)
    times.append(Double(now() - t0) / 1e6)
    stopDaemon(p2)
  }
  times.sort()
  return String(
    format: "| start-up to first answer, 100,000 jobs of history, median of 5 (ms) | %.1f |\n",
    times[2])
}

/// Milliseconds from exec to systemd's READY=1 (read from a NOTIFY_SOCKET of our own), on
/// an empty state directory and on the demo data, median of 9 each (issue #8's aim:
/// < 100 ms).
@MainActor func coldStartToReady() -> String {
  let home = config.work.appendingPathComponent("ready")
  guard let timer = ReadyTimer(home) else {
    return "| cold start | cannot bind a notify socket |\n"
  }
  func run(_ name: String, _ extra: [String]) -> Double? {
    var times: [Double] = []
    for i in 0..<9 {
      let state = home.appendingPathComponent("\(name)-\(i)")
      guard let (p, ms) = timer.start(state: state, extra) else { return nil }
      stopDaemon(p)
      times.append(ms)
    }
    times.sort()
    return times[times.count / 2]
  }
  let empty = run("empty", ["--simulate", "zebra=zpl"])
  let demo = run(
    "demo",
    ["--seed", "seeds", "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql"])
  return String(
    format: "| cold start to READY=1, fresh state dir, median of 9 (ms) | %.1f |\n", empty ?? -1)
    + String(
      format:
        "| cold start to READY=1, fresh state dir seeded with the demo data, median of 9 (ms) | %.1f |\n",
      demo ?? -1)
}

/// Times labeld from exec to the `READY=1` it sends systemd, through a NOTIFY_SOCKET of
/// our own.
final class ReadyTimer {
  private let listener: NotifyListener

  init?(_ home: URL) {
    try? FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    guard let listener = try? NotifyListener(directory: home) else { return nil }
    self.listener = listener
  }

  /// Starts labeld on `state` (its socket in it) and returns it with the milliseconds to
  /// READY=1; nil when it does not get there within `timeout` seconds.
  func start(state: URL, _ extra: [String], timeout: Double = 30) -> (Process, Double)? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: config.labeld)
    p.arguments =
      [
        "--no-config", "--socket", state.appendingPathComponent("s.sock").path,
        "--state-dir", state.appendingPathComponent("state").path, "--log-level", "error",
      ] + extra
    p.environment = ["NOTIFY_SOCKET": listener.path]
    let t0 = now()
    guard (try? p.run()) != nil else { return nil }
    let deadline = now() + UInt64(timeout * 1e9)
    while now() < deadline {
      guard let message = listener.next(timeout: 1) else { continue }
      if message.contains("READY=1") { return (p, Double(now() - t0) / 1e6) }
    }
    stopDaemon(p)
    return nil
  }
}
