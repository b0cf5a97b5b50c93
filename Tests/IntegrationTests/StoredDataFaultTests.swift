import Foundation
import LabelCore
import LabelKit
import LabelSQLite
import LabelTestKit
import Testing

/// Stored data that cannot be read back, and job writes that fail: reported on the alert
/// channel with the store's reason, kept there until resolved, never silently skipped.
@Suite struct StoredDataFaultTests {
  static let doc: JSONValue = ["format": "native", "data": base64("^XA^FDstored^FS^XZ")]

  /// Runs `sql` on labeld's database from this (another) process, waiting for its lock.
  static func edit(_ d: DaemonProcess, _ sql: String) throws {
    let db = try Database(path: d.stateDirectory.appendingPathComponent("labeld.db").path)
    db.setBusyTimeout(milliseconds: 10_000)
    try db.execute(sql)
    try db.close()
  }

  /// A subscriber to alerts and jobs that keeps everything it saw (events may come in any
  /// order between the two topics).
  static func events(_ d: DaemonProcess, since: Int? = nil) throws -> Events {
    let w = try d.client()
    var params: JSONValue = ["topics": ["alerts", "jobs"]]
    if let since, case .object(var o) = params {
      o["since"] = .int(since)
      params = .object(o)
    }
    try w.call("subscribe", params)
    return Events(w)
  }

  static func submit(_ c: BlockingConnection) throws -> Int {
    try c.call("jobs.submit", ["printer": "sim:zebra", "document": doc], as: JobResult.self).job.id
  }

  @Test func unreadableJobDocument_isASaveErrorThatStaysUntilItReadsOrIsCancelled() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    var d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    var c = try d.client()
    try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
    let (a, b, x) = (try Self.submit(c), try Self.submit(c), try Self.submit(c))
    d.stop()
    try Self.edit(d, "UPDATE documents SET data = X'' WHERE job IN (\(a), \(x))")
    d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    c = try d.client()
    let w = try Self.events(d, since: 0)
    // The unreadable ones are held and reported; the printer goes on with the next.
    let raised = try w.waitFor("alert") {
      $0["kind"] == "saveError" && $0["key"] == .string("\(a)") && $0["state"] == "active"
    }
    #expect(raised["entity"] == "job")
    #expect(raised["reason"] == "io")
    // (b may have printed before this subscriber was served: job notifications are live.)
    if try c.call("jobs.get", ["job": .int(b)], as: JobResult.self).job.state != .completed {
      try w.waitForJob(b)
    }
    #expect(try c.call("jobs.get", ["job": .int(a)], as: JobResult.self).job.state == .held)
    // Still active after the other job printed: it stays until resolved.
    let active = try c.call("alerts.active", as: AlertsResult.self).alerts.map(\.id)
    #expect(active.contains("saveError:job:\(a)"))
    // Resolved by the document being there again: printed once, the alert cleared.
    try Self.edit(
      d, "UPDATE documents SET data = CAST('^XA^FDback^FS^XZ' AS BLOB) WHERE job = \(a)")
    _ = try w.waitFor("job", timeout: 120) { $0["id"] == .int(a) && $0["state"] == "completed" }
    _ = try w.waitFor("alert") {
      $0["id"] == .string("saveError:job:\(a)") && $0["state"] == "cleared"
    }
    #expect(d.simOutput("zebra", job: a, ext: "zpl") == Array("^XA^FDback^FS^XZ".utf8))
    // Or by cancelling the job.
    try c.call("jobs.cancel", ["job": .int(x)])
    let cleared = try w.waitFor("alert") {
      $0["id"] == .string("saveError:job:\(x)") && $0["state"] == "cleared"
    }
    let canceled = try c.call("jobs.get", ["job": .int(x)], as: JobResult.self).job
    #expect(canceled.state == .canceled, "\(cleared)\n\(d.log.suffix(3000))")
  }

  /// A job write that fails (another process holds the database lock) raises a saveError
  /// for the job; the next good job write writes its row again and clears it, and clears a
  /// failed submission's too. After a restart the row says what happened.
  @Test func failedJobWrite_isClearedByTheNextGoodJobWrite_andTheRowCatchesUp() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    var d = try DaemonProcess(
      ["--simulate", "zebra=zpl", "--busy-timeout-ms", "100"], directory: home)
    let c = try d.client()
    let w = try Self.events(d)
    try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
    let a = try Self.submit(c)
    let lock = try Database(path: d.stateDirectory.appendingPathComponent("labeld.db").path)
    try lock.execute("BEGIN EXCLUSIVE")
    try c.call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
    do {
      try w.waitForJob(a)
    } catch {
      Issue.record("\(error)\n\(d.log.suffix(4000))")
      throw error
    }
    let failed = try w.waitFor("alert") {
      $0["kind"] == "saveError" && $0["key"] == .string("\(a)") && $0["state"] == "active"
    }
    #expect(failed["reason"] == "busy")
    let refused = try #require(
      c.error("jobs.submit", ["printer": "sim:zebra", "document": Self.doc]))
    #expect(refused.code == 1004)
    #expect(refused.data?["key"] == "new")
    try lock.execute("COMMIT")
    try lock.close()
    let b = try Self.submit(c)
    _ = try w.waitFor("alert") {
      $0["id"] == .string("saveError:job:\(a)") && $0["state"] == "cleared"
    }
    _ = try w.waitFor("alert") { $0["id"] == "saveError:job:new" && $0["state"] == "cleared" }
    // (b may have printed before this subscriber was served: job notifications are live.)
    if try c.call("jobs.get", ["job": .int(b)], as: JobResult.self).job.state != .completed {
      try w.waitForJob(b)
    }
    d.stop()
    d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    let again = try d.client().call("jobs.get", ["job": .int(a)], as: JobResult.self).job
    #expect(again.state == .completed)
    #expect(again.printed == 1)
  }

  /// A product or template row whose JSON no longer decodes is reported, never skipped in
  /// silence: `get` answers 1004 with a saveError for its key, `list` leaves it out and
  /// raises that alert, and saving the key again clears it.
  @Test func undecodableRows_areReported_andClearedBySavingAgain() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    var d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    var c = try d.client()
    for sku in ["P1", "P2"] {
      try c.call("products.save", ["product": ["sku": .string(sku), "name": "n"]])
    }
    for name in ["T1", "T2"] {
      var t = Fixtures.shelfTemplate
      if case .object(var o) = t { o["name"] = .string(name); t = .object(o) }
      try c.call("templates.save", ["template": t])
    }
    d.stop()
    try Self.edit(d, "UPDATE products SET json = CAST('not json' AS BLOB) WHERE sku = 'P1'")
    try Self.edit(d, "UPDATE templates SET json = CAST('{}' AS BLOB) WHERE name = 'T1'")
    d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    c = try d.client()
    let w = try Self.events(d)
    let got = try #require(c.error("products.get", ["sku": "P1"]))
    #expect(got.code == 1004)
    #expect(got.data?["entity"] == "product")
    #expect(got.data?["key"] == "P1")
    #expect(got.data?["reason"] == "io")
    let products = try c.call("products.list")["products"]?.arrayValue?.compactMap { $0["sku"] }
    #expect(products == ["P2"])
    let templates = try c.call("templates.list")["templates"]?.arrayValue?.compactMap { $0["name"] }
    #expect(templates == ["T2"])
    _ = try w.waitFor("alert") { $0["id"] == "saveError:template:T1" && $0["state"] == "active" }
    let render = c.error(
      "labels.render", ["template": "T1", "data": [:], "language": "zpl", "format": "native"])
    #expect(render?.code == 1004)
    let active = try c.call("alerts.active", as: AlertsResult.self).alerts.map(\.id)
    #expect(active.contains("saveError:product:P1"))
    try c.call("products.save", ["product": ["sku": "P1", "name": "again"]])
    _ = try w.waitFor("alert") { $0["id"] == "saveError:product:P1" && $0["state"] == "cleared" }
    #expect(try c.call("products.get", ["sku": "P1"])["product"]?["name"] == "again")
  }
}
