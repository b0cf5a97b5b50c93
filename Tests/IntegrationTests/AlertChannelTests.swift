import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Testing

/// The one alert channel end to end: faults, saves, ordering, dismiss, replay.
@Suite struct AlertChannelTests {
  static func alert(_ n: JSONValue) throws -> AlertEvent {
    try LabelJSON.decode(AlertEvent.self, from: n)
  }

  @Test func fault_raisesAlertNamingTheJob_clearResumesAndJobCompletes() throws {
    try withDaemon { d in
      let watcher = try d.client()
      try watcher.call("subscribe", ["topics": ["alerts", "jobs", "printers"]])
      let c = try d.client()
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
      let first = try Self.alert(try watcher.waitFor("alert"))
      #expect(first.state == .active)
      #expect(first.id == "printerError:sim:zebra")

      let doc = "^XA^FO20,20^A0N,30,30^FDMilk^FS^XZ"
      let job = try c.call(
        "jobs.submit",
        [
          "printer": "sim:zebra", "copies": 3,
          "document": ["format": "native", "data": base64(doc)],
        ],
        as: JobResult.self
      ).job
      #expect(job.state == .pending)
      // The alert is updated to name the job it holds up.
      let naming = try Self.alert(try watcher.waitFor("alert"))
      #expect(naming.seq > first.seq)
      guard case .printerError(let details) = naming.alert else {
        Issue.record("expected printerError")
        return
      }
      #expect(details.job == job.id)
      #expect(details.reason == .mediaEmpty)
      let printer = try c.call("printers.get", ["printer": "sim:zebra"], as: PrinterResult.self)
        .printer
      #expect(printer.state == .stopped)
      #expect(printer.reasons == [.mediaEmpty])
      #expect(
        try c.call("jobs.get", ["job": .int(job.id)], as: JobResult.self).job.state == .pending)
      #expect(d.simOutput("zebra", job: job.id, ext: "zpl") == nil)

      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
      let cleared = try Self.alert(try watcher.waitFor("alert"))
      #expect(cleared.state == .cleared)
      #expect(cleared.id == "printerError:sim:zebra")
      let done = try watcher.waitFor("job") { $0["state"] == "completed" }
      #expect(done["printed"] == 3)
      #expect(d.simOutput("zebra", job: job.id, ext: "zpl") == Array((doc + doc + doc).utf8))
      #expect(try c.call("alerts.active")["alerts"] == [])
    }
  }

  @Test func saveErrorAndPrinterErrorInOneFlow_reachEverySubscriberInOrder() throws {
    try withDaemon { d in
      let subscribers = try (0..<3).map { _ in try d.client() }
      for s in subscribers { try s.call("subscribe", ["topics": ["alerts"]]) }
      let app = try d.client()
      try app.call("products.save", ["product": ["sku": "4006381333931", "name": "Pen"]])
      // One flow of an Add/Edit Product screen: the printer fails, then the save fails.
      try app.call("printers.simulate", ["printer": "sim:ql", "fault": "coverOpen"])
      let saveError = app.error(
        "products.save",
        ["product": ["sku": "4006381333931", "name": "Pen 2"], "expectedVersion": 0])
      #expect(saveError?.code == 1004)
      for s in subscribers {
        let a = try Self.alert(try s.waitFor("alert"))
        let b = try Self.alert(try s.waitFor("alert"))
        #expect(a.alert.kind == "printerError")
        #expect(b.alert.kind == "saveError")
        #expect(b.seq == a.seq + 1)
        #expect(b.id == "saveError:product:4006381333931")
      }
      // Both stay active side by side: neither hides the other.
      let active = try app.call("alerts.active", [:], as: AlertsResult.self).alerts
      #expect(active.map(\.id) == ["printerError:sim:ql", "saveError:product:4006381333931"])
    }
  }

  @Test func laterSuccessfulSave_clearsTheSaveError() throws {
    try withDaemon { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe")
      try c.call("products.save", ["product": ["sku": "K", "name": "Kettle"]])
      _ = c.error(
        "products.save", ["product": ["sku": "K", "name": "Kettle"], "expectedVersion": 3])
      #expect(try Self.alert(try w.waitFor("alert")).state == .active)
      let saved = try c.call(
        "products.save", ["product": ["sku": "K", "name": "Kettle"], "expectedVersion": 1])
      #expect(saved["product"]?["version"] == 2)
      let cleared = try Self.alert(try w.waitFor("alert"))
      #expect(cleared.state == .cleared)
      #expect(cleared.id == "saveError:product:K")
    }
  }

  @Test func dismiss_marksAlertDismissed_andUnknownIdIsFalse() throws {
    try withDaemon { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe")
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "ribbonEmpty"])
      let raised = try Self.alert(try w.waitFor("alert"))
      #expect(try c.call("alerts.dismiss", ["id": .string(raised.id)]) == ["dismissed": true])
      let dismissed = try Self.alert(try w.waitFor("alert"))
      #expect(dismissed.state == .dismissed)
      #expect(dismissed.seq == raised.seq + 1)
      #expect(try c.call("alerts.active")["alerts"] == [])
      #expect(try c.call("alerts.dismiss", ["id": .string(raised.id)]) == ["dismissed": false])
      #expect(try c.call("alerts.dismiss", ["id": "printerError:sim:none"]) == ["dismissed": false])
    }
  }

  @Test func sameFaultTwice_isOneEvent_newFaultReplacesIt() throws {
    try withDaemon { d in
      let c = try d.client()
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaJam"])
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaJam"])
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "headError"])
      let active = try c.call("alerts.active", [:], as: AlertsResult.self).alerts
      #expect(active.count == 1)
      #expect(active.first?.seq == 2)
      guard case .printerError(let d)? = active.first?.alert else {
        Issue.record("expected printerError")
        return
      }
      #expect(d.reason == .headError)
    }
  }

  @Test func subscribeSince_replaysThenStreams_withoutGapOrDuplicate() throws {
    try withDaemon { d in
      let c = try d.client()
      for fault: JSONValue in ["coverOpen", nil, "mediaEmpty", nil] {
        try c.call("printers.simulate", ["printer": "sim:zebra", "fault": fault])
      }
      let s = try d.client()
      let result = try s.call("subscribe", ["since": 1], as: SubscribeResult.self)
      #expect(result.seq == 4)
      #expect(result.gap == nil)
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "paused"])
      let seqs = try (0..<4).map { _ in try Self.alert(try s.waitFor("alert")).seq }
      #expect(seqs == [2, 3, 4, 5])
    }
  }

  @Test func sinceOlderThanRetention_reportsGap() throws {
    try withDaemon(["--alert-retention", "3", "--simulate", "zebra=zpl"]) { d in
      let c = try d.client()
      for fault: JSONValue in ["coverOpen", nil, "mediaEmpty", nil, "paused", nil] {
        try c.call("printers.simulate", ["printer": "sim:zebra", "fault": fault])
      }
      let s = try d.client()
      let result = try s.call("subscribe", ["since": 0], as: SubscribeResult.self)
      #expect(result.gap == true)
      let seqs = try (0..<3).map { _ in try Self.alert(try s.waitFor("alert")).seq }
      #expect(seqs == [4, 5, 6])
      let fresh = try d.client().call("subscribe", ["since": 3], as: SubscribeResult.self)
      #expect(fresh.gap == nil)
    }
  }

  @Test func jobRejectedFault_abortsTheJobWithReason() throws {
    try withDaemon { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["alerts", "jobs"]])
      try c.call("printers.simulate", ["printer": "sim:ql", "fault": "jobRejected"])
      let job = try c.call(
        "jobs.submit",
        ["printer": "sim:ql", "document": ["format": "native", "data": base64("raster")]],
        as: JobResult.self
      ).job
      let aborted = try w.waitFor("job") { $0["state"] == "aborted" }
      #expect(aborted["id"] == .int(job.id))
      #expect(aborted["error"]?["reason"] == "jobRejected")
      let alert = try Self.alert(try w.waitFor("alert") { $0["job"] == .int(job.id) })
      #expect(alert.state == .active)
      #expect(d.simOutput("ql", job: job.id, ext: "ql") == nil)
    }
  }
}
