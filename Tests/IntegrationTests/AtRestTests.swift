import Foundation
import LabelCore
import LabelKit
import LabelPOSIX
import LabelTestKit
import Testing

/// labeld at rest hands back the code and read-only data it is not running
/// (`--rest-after`, `RestingMemory`), again after work, and goes on serving exactly as
/// before: the same bytes reach the printer.
@Suite struct AtRestTests {
  /// The "at rest: unmapped N KB" lines labeld has logged so far, as N.
  static func releases(_ d: DaemonProcess) -> [Int] {
    d.log.split(separator: "\n").compactMap { line in
      guard let r = line.range(of: "at rest: unmapped ") else { return nil }
      return Int(line[r.upperBound...].prefix { $0.isNumber })
    }
  }

  /// Waits (bounded: a minute) until labeld has logged `count` releases.
  static func waitForReleases(_ d: DaemonProcess, count: Int) -> [Int] {
    for _ in 0..<600 where releases(d).count < count { usleep(100_000) }
    return releases(d)
  }

  /// What the labeld process has resident in file mappings (KB, smaps_rollup).
  static func residentFileKB(_ d: DaemonProcess) -> Int {
    let text = String(
      decoding: (try? PlainFile.read("/proc/\(d.process.processIdentifier)/smaps_rollup")) ?? [],
      as: UTF8.self)
    var rss = 0
    var anon = 0
    for line in text.split(separator: "\n") {
      let f = line.split(separator: " ", omittingEmptySubsequences: true)
      guard f.count >= 2, let kb = Int(f[1]) else { continue }
      if f[0] == "Rss:" { rss = kb }
      if f[0] == "Anonymous:" { anon = kb }
    }
    return rss - anon
  }

  /// The labeld process's CPU time, user and system (ms; /proc/PID/stat, in clock ticks).
  static func cpuMS(_ d: DaemonProcess) -> Int {
    let text = String(
      decoding: (try? PlainFile.read("/proc/\(d.process.processIdentifier)/stat")) ?? [],
      as: UTF8.self)
    // The fields after the command's closing parenthesis: state is the first, utime and
    // stime the 12th and 13th.
    guard let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
      return 0
    }
    return (user + system) * 1000 / max(1, sysconf(Int32(_SC_CLK_TCK)))
  }

  @Test func atRest_labeldUnmapsItsIdleCode_andAfterWorkAgain_printingTheSameBytes() throws {
    try withDaemon(DaemonProcess.defaultArguments + ["--rest-after", "1"]) { d in
      let first = Self.waitForReleases(d, count: 1)
      try #require(first.count >= 1, "no release logged:\n\(d.log.suffix(2000))")
      // The debug labeld maps megabytes of its own code and the Swift libraries at start.
      #expect(first[0] > 1024, "unmapped only \(first[0]) KB")

      // Serving after the release: jobs print byte for byte, listings answer.
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let zpl = "^XA^FO20,20^A0N,30,30^FDat rest^FS^XZ"
      var last = 0
      // Work is what labeld spends (50 ms of CPU since the release), not a number of calls:
      // as labeld gets faster the same calls are less work, and cheap calls spread over
      // seconds look like rest. Jobs, at least 20, until it has spent 100 ms on them.
      let before = Self.cpuMS(d)
      var submitted = 0
      while submitted < 20 || (Self.cpuMS(d) - before < 100 && submitted < 5000) {
        let job = try c.call(
          "jobs.submit",
          ["printer": "sim:zebra", "document": ["format": "native", "data": base64(zpl)]],
          as: JobResult.self
        ).job
        try w.waitForJob(job.id)
        #expect(d.simOutput("zebra", job: job.id, ext: "zpl") == Array(zpl.utf8))
        last = job.id
        submitted += 1
      }
      try #require(Self.cpuMS(d) - before >= 100, "labeld spent under 100 ms on the work")
      for _ in 0..<200 {
        #expect(try c.call("printers.list", [:], as: PrintersResult.self).printers.count == 2)
      }
      let working = Self.residentFileKB(d)

      // The work counts as a busy spell: once at rest again, labeld lets go again.
      let again = Self.waitForReleases(d, count: first.count + 1)
      try #require(again.count > first.count, "no second release:\n\(d.log.suffix(2000))")
      #expect(again.last ?? 0 > 0)
      #expect(Self.residentFileKB(d) < working, "file pages did not go down after the release")
      let jobs = try c.call("jobs.list", [:], as: JobsResult.self).jobs
      #expect(jobs.count == submitted && jobs.allSatisfy { $0.state == .completed })
      #expect(jobs.last?.id == last)
    }
  }
}
