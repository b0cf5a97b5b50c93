import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// labeld as a systemd service: the notify protocol, the watchdog, socket activation and
/// stopping without losing a label.
@Suite struct ServiceLifecycleTests {
  /// Waits until each of `ids` has completed (some may have before we subscribed);
  /// returns a client for further checks.
  @discardableResult
  static func waitUntilCompleted(_ daemon: DaemonProcess, _ ids: [Int]) throws -> BlockingConnection
  {
    let c = try daemon.client()
    let w = try daemon.client()
    try w.call("subscribe", ["topics": ["jobs"]])
    for id in ids
    where try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job.state != .completed {
      try w.waitForJob(id)
    }
    return c
  }

  /// Starts a labeld in `dir` whose sim:zebra prints one label a minute, submits `label`
  /// (`copies` of it), and returns once the job is being printed.
  static func slowJobPrinting(in dir: URL, _ label: String, copies: Int = 1) throws -> (
    daemon: DaemonProcess, job: Int
  ) {
    let daemon = try DaemonProcess(["--simulate", "zebra=zpl,speed=1"], directory: dir)
    let w = try daemon.client()
    try w.call("subscribe", ["topics": ["jobs"]])
    let id = try daemon.client().call(
      "jobs.submit",
      [
        "printer": "sim:zebra", "copies": .int(copies),
        "document": ["format": "native", "data": base64(label)],
      ],
      as: JobResult.self
    ).job.id
    _ = try w.waitFor("job") { $0["id"] == .int(id) && $0["state"] == "processing" }
    return (daemon, id)
  }

  @Test func notifiesReady_feedsTheWatchdog_andSaysStopping() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let listener = try NotifyListener(directory: dir)
    let daemon = try DaemonProcess(
      ["--simulate", "zebra=zpl"], directory: dir,
      environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"])
    let ready = listener.waitFor("READY=1")
    let readyMessage = try #require(ready.last)
    #expect(readyMessage.contains("STATUS=serving 1 printer(s) on \(daemon.socketPath)"))
    #expect(readyMessage.contains("MAINPID=\(daemon.process.processIdentifier)"))
    // READY comes once the socket answers: a request now succeeds.
    #expect(try daemon.client().call("hello")["protocol"] != nil)
    // Watchdog pings keep coming, every 100 ms for a 200 ms WatchdogSec.
    var pings = 0
    while pings < 3, let message = listener.next(), message == "WATCHDOG=1" { pings += 1 }
    #expect(pings == 3)
    daemon.signal(SIGTERM)
    let stopping = listener.waitFor("STOPPING=1")
    #expect(stopping.last?.contains("STOPPING=1") == true)
    daemon.process.waitUntilExit()
    #expect(daemon.process.terminationStatus == 0)
  }

  @Test func outsideSystemd_nothingIsSent_andWatchdogPIDForAnotherProcessIsIgnored() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let listener = try NotifyListener(directory: dir)
    // WATCHDOG_PID names some other process: labeld must not feed that watchdog.
    let daemon = try DaemonProcess(
      ["--simulate", "zebra=zpl"], directory: dir,
      environment: [
        "NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "100000", "WATCHDOG_PID": "1",
      ])
    _ = listener.waitFor("READY=1")
    #expect(try daemon.client().call("hello")["protocol"] != nil)
    // Several watchdog intervals pass without a ping (the next message is STOPPING).
    let after = listener.next(timeout: 0.5)
    #expect(after == nil)
    daemon.stop()
  }

  /// systemd's own socket-activation helper binds the socket and execs labeld with
  /// LISTEN_FDS=1: labeld serves on that descriptor.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"),
      "needs systemd-socket-activate (Debian package systemd)"))
  func socketActivation_servesOnThePassedSocket() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("labeld.sock").path
    let daemon = try DaemonProcess(
      ["--simulate", "zebra=zpl"], directory: dir,
      wrapper: ["/usr/bin/systemd-socket-activate", "--listen=\(path)"])
    let c = try daemon.client()
    #expect(try c.call("hello")["protocol"] != nil)
    let job = try c.call(
      "jobs.submit",
      ["printer": "sim:zebra", "document": ["format": "native", "data": base64("^XA^XZ")]],
      as: JobResult.self
    ).job
    #expect(job.printer == "sim:zebra")
    #expect(daemon.log.contains("using the socket passed by the service manager"))
    daemon.stop()
    #expect(daemon.process.terminationStatus == 0)
  }

  /// SIGTERM while a label prints: that label is finished, the job goes back to pending
  /// with its copies counted, the next job waits; after a restart both complete, and the
  /// printer received every copy exactly once.
  @Test func sigterm_finishesTheLabelInProgress_andLosesNothing() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let label = "^XA^FDlabel^FS^XZ"
    var first: Int = 0
    var second: Int = 0
    do {
      // One label per second: the first copy is still printing when SIGTERM arrives.
      let daemon = try DaemonProcess(["--simulate", "zebra=zpl,speed=60"], directory: dir)
      let c = try daemon.client()
      let w = try daemon.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let doc: JSONValue = ["format": "native", "data": base64(label)]
      first = try c.call(
        "jobs.submit", ["printer": "sim:zebra", "copies": 3, "document": doc], as: JobResult.self
      ).job.id
      second = try c.call(
        "jobs.submit", ["printer": "sim:zebra", "document": doc], as: JobResult.self
      ).job.id
      _ = try w.waitFor("job") { $0["id"] == .int(first) && $0["state"] == "processing" }
      daemon.signal(SIGTERM)
      // The label in progress is finished and counted, then the job is requeued (the
      // connections are closed at once, so the log says so rather than a notification).
      daemon.process.waitUntilExit()
      #expect(daemon.process.terminationStatus == 0)
      #expect(daemon.log.contains("job \(first): requeued at copy 2 of 3 for shutdown"))
      #expect(daemon.simOutput("zebra", job: first, ext: "zpl") == Array(label.utf8))
    }
    let daemon = try DaemonProcess(["--simulate", "zebra=zpl"], directory: dir)
    let c = try Self.waitUntilCompleted(daemon, [first, second])
    let done = try c.call("jobs.get", ["job": .int(first)], as: JobResult.self).job
    #expect(done.state == .completed && done.printed == 3)
    #expect(
      daemon.simOutput("zebra", job: first, ext: "zpl") == Array((label + label + label).utf8))
    #expect(daemon.simOutput("zebra", job: second, ext: "zpl") == Array(label.utf8))
    #expect(!daemon.log.contains("was printing when labeld stopped"))
    daemon.stop()
    #expect(daemon.process.terminationStatus == 0)
  }

  /// A second SIGTERM does not wait for a slow label: labeld exits at once, the job stays
  /// accepted, and the next start sends the interrupted copy again (resend policy).
  @Test func secondSigterm_exitsAtOnce_andTheJobIsResentOnRestart() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let label = "^XA^FDslow^FS^XZ"
    var id = 0
    do {
      // One label per minute: far longer than this test waits.
      let (daemon, job) = try Self.slowJobPrinting(in: dir, label, copies: 2)
      id = job
      daemon.signal(SIGTERM)
      // The first signal is being handled (the label is still printing): send another.
      while !daemon.log.contains("stopping (finishing labels in progress)") { usleep(5_000) }
      daemon.signal(SIGTERM)
      daemon.process.waitUntilExit()
      #expect(daemon.process.terminationStatus == 0)
      #expect(daemon.log.contains("again, exiting now"))
    }
    let daemon = try DaemonProcess(["--simulate", "zebra=zpl"], directory: dir)
    try Self.waitUntilCompleted(daemon, [id])
    #expect(daemon.log.contains("was printing when labeld stopped"))
    #expect(daemon.simOutput("zebra", job: id, ext: "zpl") == Array((label + label).utf8))
    daemon.stop()
  }

  /// One SIGTERM and a label that would take a minute: labeld waits for it only until its
  /// stop deadline (8 s), then cuts it off and exits cleanly; the job is kept and the
  /// interrupted copy is sent again by the next start.
  @Test func sigterm_withASlowLabel_exitsAtTheDeadline_andTheJobSurvives() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let label = "^XA^FDdeadline^FS^XZ"
    var id = 0
    do {
      let (daemon, job) = try Self.slowJobPrinting(in: dir, label)
      id = job
      daemon.signal(SIGTERM)
      daemon.process.waitUntilExit()
      #expect(daemon.process.terminationStatus == 0)
      #expect(daemon.log.contains("<5>stopped"))
      #expect(daemon.simOutput("zebra", job: id, ext: "zpl") == nil)  // cut off, not printed
    }
    let daemon = try DaemonProcess(["--simulate", "zebra=zpl"], directory: dir)
    try Self.waitUntilCompleted(daemon, [id])
    #expect(daemon.simOutput("zebra", job: id, ext: "zpl") == Array(label.utf8))
    daemon.stop()
  }
}
