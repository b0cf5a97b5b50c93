import Foundation
import LabelCore
import LabelKit
import LabelSQLite

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A large store (issue #13): 100,000 products and 1,000,000 jobs of history written into
/// the database, and 200 simulated printers. Start-up to READY, a page of 100 products or
/// jobs, idle RSS, `printers.list` of 200 printers. Aims: < 1 s, < 2 ms, < 64 MB, < 5 ms.
@MainActor func largeSection() throws {
  let products = 100_000
  let jobs = 1_000_000
  let home = config.work.appendingPathComponent("large")
  let state = home.appendingPathComponent("store")
  guard let timer = ReadyTimer(home) else { throw BenchError.failed("no notify socket") }
  // The schema, from labeld itself.
  guard let (first, _) = timer.start(state: state, ["--no-cups", "--no-usb"]) else {
    throw BenchError.failed("labeld did not start on an empty store")
  }
  stopDaemon(first)
  progress("writing \(jobs) jobs and \(products) products into the database")
  let db = try Database(path: state.appendingPathComponent("state/labeld.db").path)
  let t0 = Date().timeIntervalSince1970 - Double(jobs)
  try db.transaction { () throws(SQLiteError) in
    let job = try db.statement(
      """
      INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid, document)
      VALUES (?, ?, 1, 1, ?, ?, ?, ?)
      """)
    let document = Array("^XA^FO20,20^A0N,30,30^FDhistory^FS^XZ".utf8)
    for i in 0..<jobs {
      try job.bind(
        "sim:p\(i % 200)", i % 20 == 0 ? "aborted" : "completed", t0 + Double(i), t0 + Double(i),
        1000 + i % 50, document
      ).run()
    }
    let product = try db.statement("INSERT INTO products (sku, version, json) VALUES (?, 1, ?)")
    for i in 0..<products {
      let sku = String(format: "SKU-%06d", i)
      let json =
        #"{"sku":"\#(sku)","name":"Product \#(i)","barcode":"4006381333931","price":1.99,"currency":"EUR","version":1,"updatedAt":"2026-01-01T00:00:00Z"}"#
      try product.bind(sku, Array(json.utf8)).run()
    }
  }
  try db.close()
  let printers = (0..<200).flatMap { ["--simulate", "p\($0)=zpl"] }
  let args = ["--no-cups", "--no-usb", "--job-history", "1000000"] + printers
  var ready: [Double] = []
  var daemon: Process?
  for round in 0..<5 {
    progress("start-up \(round + 1) of 5")
    guard let (p, ms) = timer.start(state: state, args) else {
      throw BenchError.failed("labeld did not report READY with the large store")
    }
    ready.append(ms)
    if round < 4 { stopDaemon(p) } else { daemon = p }
  }
  guard let daemon else { return }
  defer { stopDaemon(daemon) }
  ready.sort()
  usleep(500_000)
  let idle = rssKB(daemon.processIdentifier)
  let c = try BlockingConnection(socketPath: state.appendingPathComponent("s.sock").path)
  func timed(_ n: Int, _ call: (Int) throws -> Void) throws -> [UInt64] {
    var out: [UInt64] = []
    for i in 0..<n {
      let t = now()
      try call(i)
      out.append(now() - t)
    }
    return out.sorted()
  }
  progress("pages and printers.list")
  let productPages = try timed(500) { _ in
    let after = String(format: "SKU-%06d", Int.random(in: 0..<products))
    _ = try c.call("products.list", ["limit": 100, "after": .string(after)])
  }
  let jobPages = try timed(500) { _ in
    _ = try c.call("jobs.list", ["limit": 100, "after": .int(Int.random(in: 0..<jobs))])
  }
  let printerPages = try timed(200) { i in
    _ = try c.call(
      "jobs.list",
      [
        "printer": .string("sim:p\(i % 200)"), "after": .int(Int.random(in: 0..<jobs)),
        "limit": 100,
      ])
  }
  let statePages = try timed(200) { _ in
    _ = try c.call(
      "jobs.list", ["states": ["aborted"], "after": .int(Int.random(in: 0..<jobs)), "limit": 100])
  }
  let printersList = try timed(200) { _ in _ = try c.call("printers.list") }
  let count = try c.call("printers.list")["printers"]?.arrayValue?.count ?? 0
  emit("| measurement | value |\n|---|---:|")
  emit(
    String(
      format:
        "| large store: start-up to READY=1, %d jobs, %d products, %d printers, median of 5 (ms) | %.0f |",
      jobs, products, count, ready[2]))
  emit(String(format: "| large store: idle RSS after start-up (MB) | %.1f |", Double(idle) / 1024))
  for (name, lat) in [
    ("products.list, a page of 100 at a random sku", productPages),
    ("jobs.list, a page of 100 at a random id", jobPages),
    ("jobs.list, a printer's page of 100", printerPages),
    ("jobs.list, a page of 100 aborted jobs", statePages),
    ("printers.list, \(count) printers", printersList),
  ] {
    emit(
      "| large store: \(name), p50 / p99 (ms) | "
        + String(format: "%.2f / %.2f |", percentile(lat, 0.5), percentile(lat, 0.99)))
  }
}
