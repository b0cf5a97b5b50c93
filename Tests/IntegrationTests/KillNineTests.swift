import Dispatch
import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Synchronization
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Crash safety: kill -9 at random moments while clients submit jobs and save products.
@Suite struct KillNineTests {
  struct Acknowledged {
    var jobs: [Int: Int] = [:]  // id → copies
    var versions: [String: Int] = [:]  // sku → highest acknowledged version
    var saveAttempts: [String: Int] = [:]
    var duplicateJobIDs: [Int] = []
  }

  @Test func thirtyKills_loseNoAcknowledgedJobOrSave_andSeqNeverGoesBack() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let args = ["--simulate", "zebra=zpl,speed=10000", "--simulate", "ql=brother-ql"]
    let acked = Mutex(Acknowledged())
    var highestSeqSeen: UInt64 = 0
    let doc: JSONValue = ["format": "native", "data": base64("^XA^FDcrash^FS^XZ")]

    for round in 0..<30 {
      let d = try DaemonProcess(args, directory: home)
      let watcher = try d.client()
      let sub: SubscribeResult
      sub = try watcher.call("subscribe", ["topics": ["alerts"]], as: SubscribeResult.self)
      #expect(sub.seq >= highestSeqSeen, "round \(round): seq went back")
      highestSeqSeen = max(highestSeqSeen, sub.seq)

      let workers = DispatchGroup()
      let path = d.socketPath
      for worker in 0..<3 {
        workers.enter()
        Thread.detachNewThread {
          defer { workers.leave() }
          guard let c = try? BlockingConnection(socketPath: path) else { return }
          c.timeout = 10
          var i = 0
          while true {
            i += 1
            usleep(5_000)  // a busy shop, not a flood: the backlog must drain at the end
            if worker == 0 {
              let sku = "P\(i % 7)"
              acked.withLock { $0.saveAttempts[sku, default: 0] += 1 }
              guard
                let r = try? c.call(
                  "products.save",
                  ["product": ["sku": .string(sku), "name": .string("Round \(round)")]],
                  as: ProductSaveResult.self)
              else { return }
              acked.withLock { $0.versions[sku] = max($0.versions[sku] ?? 0, r.product.version) }
            } else {
              let printer: JSONValue = worker == 1 ? "sim:zebra" : "sim:ql"
              let copies = 1 + i % 3
              guard
                let r = try? c.call(
                  "jobs.submit", ["printer": printer, "copies": .int(copies), "document": doc],
                  as: JobResult.self)
              else { return }
              acked.withLock { a in
                if a.jobs[r.job.id] != nil { a.duplicateJobIDs.append(r.job.id) }
                a.jobs[r.job.id] = copies
              }
            }
          }
        }
      }
      // Faults come and go meanwhile, so alerts flow too.
      let faults = try d.client()
      for _ in 0..<3 {
        _ = try? faults.call("printers.simulate", ["printer": "sim:zebra", "fault": "paused"])
        usleep(UInt32.random(in: 2_000...20_000))
        _ = try? faults.call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
      }
      while let n = try? watcher.nextNotification(timeout: 0.001),
        let seq = n.params["seq"]?.intValue
      {
        highestSeqSeen = max(highestSeqSeen, UInt64(seq))
      }
      // A random moment: chaos, not a timing assertion.
      usleep(UInt32.random(in: 10_000...80_000))
      d.kill9()
      workers.wait()
    }

    // The final lifetime: everything acknowledged is there and ends.
    let d = try DaemonProcess(args, directory: home)
    defer { d.stop() }
    let c = try d.client()
    let w = try d.client()
    let sub = try w.call("subscribe", ["topics": ["jobs"]], as: SubscribeResult.self)
    #expect(sub.seq >= highestSeqSeen)
    let a = acked.withLock { $0 }
    #expect(a.duplicateJobIDs.isEmpty)
    #expect(a.jobs.count > 30, "the clients got work acknowledged")
    // Wait for the backlog to finish: read job notifications until every open job ended.
    while true {
      let open = Set(
        try c.call("jobs.list", ["states": ["pending", "held", "processing"]], as: JobsResult.self)
          .jobs.map(\.id))
      if open.isEmpty { break }
      while true {
        let n = try w.nextNotification(timeout: 60)
        if n.method == "job", let id = n.params["id"]?.intValue, open.contains(id),
          let state = n.params["state"]?.stringValue.flatMap(JobState.init), state.isTerminal
        {
          break
        }
      }
    }
    let all = try c.call("jobs.list", [:], as: JobsResult.self).jobs
    let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    #expect(byID.count == all.count, "no duplicate ids")
    for (id, copies) in a.jobs {
      guard let job = byID[id] else {
        Issue.record("acknowledged job \(id) is gone")
        continue
      }
      #expect(job.copies == copies)
      #expect(job.state == .completed, "job \(id) ended \(job.state)")
      #expect(job.printed == copies)
    }
    for (sku, version) in a.versions {
      let stored = try c.call("products.get", ["sku": .string(sku)], as: ProductResult.self).product
      #expect(
        stored.version >= version,
        "\(sku): acknowledged version \(version), stored \(stored.version)")
      #expect(stored.version <= a.saveAttempts[sku] ?? 0)
    }
  }
}
