import Foundation
import LabelCore
import LabelKit
import LabelSQLite
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A store with a long history, small enough for CI: 50,000 ended jobs and 5,000 products
/// written straight into the database, then labeld on it. Answers, not times: lists page
/// through all of it, old jobs are read back, the job cache does not hold the history
/// (memory stays as without it), pruning trims it to --job-history, labelctl pages too.
@Suite(.serialized) struct LargeStoreTests {
  static let jobs = 50_000
  static let products = 5_000

  /// A state dir with the history (and three jobs not ended, for sim:zebra).
  static func makeStore() throws -> URL {
    let home = DaemonProcess.makeTempDirectory()
    let d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    d.stop()
    let db = try Database(path: d.stateDirectory.appendingPathComponent("labeld.db").path)
    let start = Date().timeIntervalSince1970 - Double(jobs)
    try db.transaction { () throws(SQLiteError) in
      let job = try db.statement(
        """
        INSERT INTO jobs (printer, state, copies, printed, created_at, updated_at, owner_uid)
        VALUES (?, ?, 1, ?, ?, ?, ?)
        """)
      let document = try db.statement(
        "INSERT INTO documents (job, data) VALUES (last_insert_rowid(), X'5E58415E585A')")
      let ended = ["completed", "completed", "completed", "canceled", "aborted"]
      for i in 0..<jobs {
        let state = ended[i % ended.count]
        try job.bind(
          "sim:p\(i % 10)", state, state == "completed" ? 1 : 0, start + Double(i),
          start + Double(i), 1000 + i % 3
        ).run()
        try document.run()
      }
      for _ in 0..<3 {
        try job.bind("sim:zebra", "pending", 0, start + Double(jobs), start + Double(jobs), 0)
          .run()
        try document.run()
      }
      let product = try db.statement("INSERT INTO products (sku, version, json) VALUES (?, 1, ?)")
      for i in 0..<products {
        let sku = String(format: "SKU-%05d", i)
        try product.bind(
          sku,
          Array(
            #"{"sku":"\#(sku)","name":"Item \#(i)","version":1,"updatedAt":"2026-01-01T00:00:00Z"}"#
              .utf8)
        )
        .run()
      }
    }
    try db.close()
    return home
  }

  static func rssMiB(_ d: DaemonProcess) -> Int {
    let status =
      (try? String(contentsOfFile: "/proc/\(d.process.processIdentifier)/status", encoding: .utf8))
      ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
  }

  @Test func fiftyThousandJobs_pageAndReadBack_withoutHoldingTheHistory() throws {
    let home = try Self.makeStore()
    defer { try? FileManager.default.removeItem(at: home) }
    let empty = try DaemonProcess(["--simulate", "zebra=zpl"])
    let emptyRSS = Self.rssMiB(empty)
    empty.stop()
    let d = try DaemonProcess(
      ["--simulate", "zebra=zpl", "--job-history", "100000"], directory: home)
    let c = try d.client()
    // The three jobs not ended were resumed and print.
    let w = Events(try d.client())
    try w.client.call("subscribe", ["topics": ["jobs"]])
    for id in (Self.jobs + 1)...(Self.jobs + 3)
    where try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job.state != .completed {
      try w.waitForJob(id)
    }
    // The history is on disk, not in memory.
    #expect(Self.rssMiB(d) - emptyRSS < 15, "RSS \(Self.rssMiB(d)) MiB against \(emptyRSS) empty")
    // Pages anywhere in it, by id, printer, state, owner.
    let first = try c.call("jobs.list", ["limit": 100], as: JobsResult.self)
    #expect(first.jobs.map(\.id) == Array(1...100))
    #expect(first.next == 100)
    let deep = try c.call("jobs.list", ["after": 40_000, "limit": 100], as: JobsResult.self)
    #expect(deep.jobs.map(\.id) == Array(40_001...40_100))
    let printer = try c.call(
      "jobs.list", ["printer": "sim:p3", "after": 30_000, "limit": 5], as: JobsResult.self)
    #expect(printer.jobs.map(\.id) == [30_004, 30_014, 30_024, 30_034, 30_044])
    let aborted = try c.call(
      "jobs.list", ["states": ["aborted"], "after": 49_000, "limit": 3], as: JobsResult.self)
    #expect(aborted.jobs.map(\.id) == [49_005, 49_010, 49_015])
    let owner = try c.call(
      "jobs.list", ["owner": 1002, "after": 49_990, "limit": 100], as: JobsResult.self)
    #expect(owner.jobs.map(\.id) == [49_992, 49_995, 49_998])
    #expect(owner.next == nil)
    let old = try c.call("jobs.get", ["job": 12_345], as: JobResult.self).job
    #expect(old.printer == "sim:p4")
    #expect(old.state == .aborted)
    // The whole product list, a page at a time, as labelctl does it.
    let listed = try d.ctl("products", "--json")
    #expect(listed.status == 0)
    #expect(try listed.json()["products"]?.arrayValue?.count == Self.products)
    let table = try d.ctl("products")
    #expect(table.stdout.split(separator: "\n").count == Self.products + 1)
  }

  @Test func historyBeyondJobHistory_isPrunedInTheBackground_oldestFirst() throws {
    let home = try Self.makeStore()
    defer { try? FileManager.default.removeItem(at: home) }
    let d = try DaemonProcess(
      ["--simulate", "zebra=zpl", "--job-history", "40000"], directory: home)
    let c = try d.client()
    // Readiness: the first job left is the 10,001st, or up to three later: exactly the
    // newest 40,000 ended jobs are kept, and the zebra ends its 3 waiting jobs while the
    // prune runs (each one ended before it moves the bound up by one).
    var firstLeft = 0
    for _ in 0..<600 {
      firstLeft = try c.call("jobs.list", ["limit": 1], as: JobsResult.self).jobs.first?.id ?? 0
      if firstLeft > 10_000 { break }
      usleep(50_000)
    }
    #expect((10_001...10_004).contains(firstLeft), "first job left: \(firstLeft)")
    #expect(c.error("jobs.get", ["job": 9_999])?.code == 1003)
    #expect(try c.call("jobs.get", ["job": 45_000], as: JobResult.self).job.id == 45_000)
  }
}
