import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// Jobs through the scheduler and the simulated printer, observed over the socket.
@Suite struct SchedulerTests {
  @Test func copies_reportPrintedCountOnEveryLabel() throws {
    try withDaemon { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let job = try Fixtures.submit(try d.client(), "sim:ql", "QL", copies: 4)
      var printedSeen: [Int] = []
      var states: [String] = []
      while true {
        let n = try w.waitFor("job") { $0["id"] == .int(job.id) }
        states.append(n["state"]?.stringValue ?? "")
        if let p = n["printed"]?.intValue, printedSeen.last != p { printedSeen.append(p) }
        if n["state"] == "completed" { break }
      }
      #expect(printedSeen == [0, 1, 2, 3, 4])
      #expect(states.first == "pending")
      #expect(states.contains("processing"))
      #expect(d.simOutput("ql", job: job.id, ext: "ql") == Array("QLQLQLQL".utf8))
    }
  }

  @Test func jobsOnOnePrinter_runInFIFOOrder_printersInParallel() throws {
    try withDaemon(["--simulate", "a=zpl,speed=6000", "--simulate", "b=zpl"]) { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let c = try d.client()
      let jobs = try (0..<3).map { i in try Fixtures.submit(c, "sim:a", "A\(i)", copies: 2) }
      let other = try Fixtures.submit(c, "sim:b", "B")
      var completed: [Int] = []
      while completed.count < 4 {
        let n = try w.waitFor("job") { $0["state"] == "completed" }
        completed.append(n["id"]!.intValue!)
      }
      #expect(completed.filter { $0 != other.id } == jobs.map(\.id))
      #expect(d.simOutput("b", job: other.id, ext: "zpl") == Array("B".utf8))
      // One job at a time per printer: a job starts only after the previous one completed.
      let list = try c.call("jobs.list", ["printer": "sim:a"], as: JobsResult.self).jobs
      #expect(list.map(\.state) == [.completed, .completed, .completed])
      for (i, job) in jobs.enumerated() {
        #expect(d.simOutput("a", job: job.id, ext: "zpl") == Array("A\(i)A\(i)".utf8))
      }
    }
  }

  @Test func cancelPending_andCancelProcessing() throws {
    // 60 labels a minute: a 100-copy job stays processing long enough to cancel it.
    try withDaemon(["--simulate", "slow=zpl,speed=600"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let running = try Fixtures.submit(c, "sim:slow", "R", copies: 100)
      let waiting = try Fixtures.submit(c, "sim:slow", "W", copies: 1)
      _ = try w.waitFor("job") { $0["id"] == .int(running.id) && $0["printed"] == 1 }
      let canceledWaiting = try c.call("jobs.cancel", ["job": .int(waiting.id)], as: JobResult.self)
        .job
      #expect(canceledWaiting.state == .canceled)
      try c.call("jobs.cancel", ["job": .int(running.id)])
      let ended = try w.waitFor("job") { $0["id"] == .int(running.id) && $0["state"] == "canceled" }
      let printed = try #require(ended["printed"]?.intValue)
      #expect(printed >= 1 && printed < 100)
      // Exactly the confirmed labels reached the printer; the canceled job printed nothing.
      #expect(
        d.simOutput("slow", job: running.id, ext: "zpl")
          == Array(String(repeating: "R", count: printed).utf8))
      #expect(d.simOutput("slow", job: waiting.id, ext: "zpl") == nil)
      // Cancelling a finished job leaves it as it is.
      #expect(
        try c.call("jobs.cancel", ["job": .int(running.id)], as: JobResult.self).job.printed
          == printed)
    }
  }

  @Test func cancelWhileHeldByFault_cancelsAndClearsTheJobFromTheAlert() throws {
    try withDaemon { d in
      let c = try d.client()
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "offline"])
      let job = try Fixtures.submit(c, "sim:zebra", "X")
      #expect(
        try c.call("jobs.cancel", ["job": .int(job.id)], as: JobResult.self).job.state == .canceled)
      let active = try c.call("alerts.active", [:], as: AlertsResult.self).alerts
      guard case .printerError(let details)? = active.first?.alert else {
        Issue.record("expected the printer's alert")
        return
      }
      #expect(details.job == nil)
    }
  }

  @Test func jobsList_filtersByPrinterAndState() throws {
    try withDaemon { d in
      let c = try d.client()
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "paused"])
      let held = try Fixtures.submit(c, "sim:zebra", "Z")
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let done = try Fixtures.submit(c, "sim:ql", "Q")
      try w.waitForJob(done.id)
      let pending = try c.call("jobs.list", ["states": ["pending", "held"]], as: JobsResult.self)
        .jobs
      #expect(pending.map(\.id) == [held.id])
      let ql = try c.call("jobs.list", ["printer": "sim:ql"], as: JobsResult.self).jobs
      #expect(ql.map(\.id) == [done.id])
      #expect(try c.call("jobs.list", [:], as: JobsResult.self).jobs.count == 2)
    }
  }

  @Test func printerNotifications_followStateChanges() throws {
    try withDaemon { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["printers"]])
      let c = try d.client()
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])
      let stopped = try w.waitFor("printer")
      #expect(stopped["id"] == "sim:zebra")
      #expect(stopped["state"] == "stopped")
      #expect(stopped["reasons"] == ["coverOpen"])
      try c.call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
      let idle = try w.waitFor("printer")
      #expect(idle["state"] == "idle")
      #expect(idle["reasons"] == [])
    }
  }
}
