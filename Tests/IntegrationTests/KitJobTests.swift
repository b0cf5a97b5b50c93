import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// LabelKit's job progress against a real labeld: a wait that outlives a kill -9.
@Suite struct KitJobTests {
  /// A job prints on a slow printer; labeld is killed mid-job and started again. The wait
  /// reconnects, catches up with `jobs.get`, and reports the job completed, every copy
  /// confirmed.
  @Test func aJobThatCompletesDuringARestart_isReportedCompleted() async throws {
    try await onKitExecutor {
      let home = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: home) }
      // 60 labels a minute: a second a copy, long enough to be killed mid-job.
      let args = ["--simulate", "zebra=zpl,speed=60"]
      var d = try DaemonProcess(args, directory: home)
      let client = LabeldClient(socketPath: d.socketPath)
      let job = try await client.submit(
        printer: "sim:zebra", .native(Array("^XA^XZ".utf8)), copies: 3)
      var updates = client.jobUpdates(job: job.id).makeAsyncIterator()
      var seen: [Job] = []
      while let update = try await updates.next() {
        seen.append(update)
        if update.state == .processing { break }
      }
      d.kill9()
      d = try DaemonProcess(args, directory: home)
      defer { d.stop() }
      while let update = try await updates.next() { seen.append(update) }
      let last = seen.last
      #expect(
        last?.state == .completed && last?.printed == 3, "\(seen.map { ($0.state, $0.printed) })")
      #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.printed <= $1.printed })
      let waited = try await client.wait(job: job.id)
      #expect(waited.state == .completed)
    }
  }

  @Test func waitingForAJobThatDoesNotExist_throwsJobNotFound() async throws {
    try await onKitExecutor {
      let d = try DaemonProcess()
      defer { d.stop() }
      await #expect(throws: LabelError.jobNotFound(job: 4242)) {
        _ = try await LabeldClient(socketPath: d.socketPath).wait(job: 4242)
      }
    }
  }
}
