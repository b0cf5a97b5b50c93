import Foundation
import LabelCore
import LabelKit
import LabelSQLite
import LabelStore
import LabelWire

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A large store: 100,000 products and 1,000,000 jobs of history written into the
/// database, 10,000 jobs waiting for a USB printer that is unplugged, and 200 simulated printers.
/// Start-up to READY, idle RSS, pages of products and jobs, all 10,000 waiting jobs,
/// `printers.list` of 200 printers. A call is timed from its request's first byte sent to
/// its answer's last byte read, unparsed: labeld's time plus the socket's, which `hello`'s
/// time shows. Half the products are rows as labeld writes them (with their digest), half
/// as a labeld before digests left them (decoded on every read).
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
      INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid)
      VALUES (?, ?, 1, 1, ?, ?, ?)
      """)
    let stored = try db.statement(
      "INSERT INTO documents (job, data) VALUES (last_insert_rowid(), ?)")
    let document = Array("^XA^FO20,20^A0N,30,30^FDhistory^FS^XZ".utf8)
    for i in 0..<jobs {
      try job.bind(
        "sim:p\(i % 200)", i % 20 == 0 ? "aborted" : "completed", t0 + Double(i), t0 + Double(i),
        1000 + i % 50
      ).run()
      try stored.bind(document).run()
    }
    let product = try db.statement(
      "INSERT INTO products (sku, version, json, digest) VALUES (?, 1, ?, ?)")
    for i in 0..<products {
      let sku = String(format: "SKU-%06d", i)
      let json = RowCoding.encode(
        Product(
          sku: sku, name: "Product \(i)", price: Decimal(199 + i % 500) / 100, currency: "EUR",
          barcode: "4006381333931", version: 1, updatedAt: Date(timeIntervalSince1970: 1.767e9)))
      try product.bind(sku, json, i < products / 2 ? RowDigest.of(json) : nil).run()
    }
    let waiting = try db.statement(
      """
      INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid)
      VALUES ('usb:04f9:209d:GONE', 'pending', 1, 0, ?, ?, 1000)
      """)
    for i in 0..<10_000 {
      try waiting.bind(t0 + Double(jobs + i), t0 + Double(jobs + i)).run()
      try stored.bind(document).run()
    }
  }
  try db.close()
  let printers = (0..<200).flatMap { ["--simulate", "p\($0)=zpl"] }
  // USB on, with nothing plugged in: the waiting jobs' printer is not connected.
  let args = ["--no-cups", "--job-history", "1000000"] + printers
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
  var id = 0
  /// One call's round trip, its answer read as bytes and not parsed.
  func raw(_ method: String, _ params: JSONValue = [:]) throws -> UInt64 {
    id += 1
    let request = try JSONWriter.write(
      ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
        as JSONValue)
    let t = now()
    try c.sendLine(request)
    let answer = try c.readLine()
    let took = now() - t
    // An error answer starts with its "error" member.
    guard answer.starts(with: Array(#"{"id":"#.utf8))
    else {
      throw BenchError.failed("\(method): \(String(decoding: answer.prefix(300), as: UTF8.self))")
    }
    return took
  }
  func timed(_ n: Int, _ call: (Int) throws -> UInt64) throws -> [UInt64] {
    try (0..<n).map { try call($0) }.sorted()
  }
  func sku(_ range: Range<Int>) -> JSONValue {
    .string(String(format: "SKU-%06d", Int.random(in: range)))
  }
  progress("pages and printers.list")
  let hello = try timed(1000) { _ in try raw("hello") }
  let written = try timed(500) { _ in
    try raw("products.list", ["limit": 100, "after": sku(0..<(products / 2 - 100))])
  }
  let decoded = try timed(500) { _ in
    try raw("products.list", ["limit": 100, "after": sku((products / 2)..<(products - 100))])
  }
  let thousand = try timed(100) { _ in
    try raw("products.list", ["limit": 1000, "after": sku(0..<(products / 2 - 1000))])
  }
  let jobPages = try timed(500) { _ in
    try raw("jobs.list", ["limit": 100, "after": .int(Int.random(in: 0..<jobs))])
  }
  let printerPages = try timed(200) { i in
    try raw(
      "jobs.list",
      [
        "printer": .string("sim:p\(i % 200)"), "after": .int(Int.random(in: 0..<jobs)),
        "limit": 100,
      ])
  }
  let statePages = try timed(200) { _ in
    try raw(
      "jobs.list", ["states": ["aborted"], "after": .int(Int.random(in: 0..<jobs)), "limit": 100])
  }
  let pending = try timed(20) { _ in
    try raw("jobs.list", ["states": ["pending"], "limit": 10_000])
  }
  let pendingCount =
    try c.call("jobs.list", ["states": ["pending"], "limit": 10_000])["jobs"]?.arrayValue?.count
    ?? 0
  let printersList = try timed(200) { _ in try raw("printers.list") }
  let count = try c.call("printers.list")["printers"]?.arrayValue?.count ?? 0
  emit("| measurement | value |\n|---|---:|")
  emit(
    String(
      format:
        "| large store: start-up to READY=1, %d jobs, %d products, %d printers, median of 5 (ms) | %.0f |",
      jobs, products, count, ready[2]))
  emit(String(format: "| large store: idle RSS after start-up (MB) | %.1f |", Double(idle) / 1024))
  let base = percentile(hello, 0.5)
  emit(
    "| large store: hello, p50 / p99 (ms) | "
      + String(format: "%.3f / %.3f |", base, percentile(hello, 0.99)))
  for (name, lat) in [
    ("products.list, a page of 100 rows labeld wrote, at a random sku", written),
    ("products.list, a page of 100 rows from before digests (decoded)", decoded),
    ("products.list, a page of 1,000 rows labeld wrote", thousand),
    ("jobs.list, a page of 100 at a random id", jobPages),
    ("jobs.list, a printer's page of 100", printerPages),
    ("jobs.list, a page of 100 aborted jobs", statePages),
    ("jobs.list, all \(pendingCount) pending jobs", pending),
    ("printers.list, \(count) printers", printersList),
  ] {
    let p50 = percentile(lat, 0.5)
    emit(
      "| large store: \(name), p50 / p99 (ms), p50 in hellos | "
        + String(format: "%.2f / %.2f, %.1f× |", p50, percentile(lat, 0.99), p50 / base))
  }
}
