import Dispatch
import Foundation
import LabelCore
import LabelKit
import LabelTestKit

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// The CUPS transport (issue #6): submit → completed for one label through labeld and
// through `lp` on the same queue of a private cupsd with an ippeveprinter, and 200 small
// jobs end to end. Skipped (with a line saying why) when cupsd or ippeveprinter is missing.

/// A private cupsd, D-Bus and ippeveprinter in `dir`, stopped by `stop()`.
struct PrivateCUPS {
  let dir: String
  var processes: [Process] = []
  var socket: String { PrivateCUPSConfig.socket(in: dir) }

  init?() {
    for tool in [
      "/usr/sbin/cupsd", "/usr/sbin/ippeveprinter", "/usr/bin/lp", "/usr/bin/dbus-daemon",
    ]
    where !FileManager.default.isExecutableFile(atPath: tool) {
      return nil
    }
    dir = config.work.appendingPathComponent("cups").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    // Backends run as lp: every directory on the way must be open to it.
    var path = ""
    for part in dir.split(separator: "/") {
      path += "/" + part
      if path.hasPrefix(config.work.path) || path == config.work.path { chmod(path, 0o755) }
    }
    chmod(config.work.deletingLastPathComponent().path, 0o755)
    try? PrivateCUPSConfig.write(into: dir, logLevel: "warn")
    try? FileManager.default.createDirectory(
      atPath: dir + "/printer", withIntermediateDirectories: true)
  }

  /// Why the scheduler is not running, or nil while it runs ("cupsd died: killed by
  /// signal 11").
  var schedulerFailure: String? {
    guard let cupsd = processes.first, !cupsd.isRunning else { return nil }
    let how =
      cupsd.terminationReason == .uncaughtSignal
      ? "killed by signal \(cupsd.terminationStatus)"
      : "exited with status \(cupsd.terminationStatus)"
    return "cupsd died: \(how) (see dmesg)"
  }

  /// Throws when cupsd is no longer running.
  func checkScheduler() throws {
    if let schedulerFailure { throw BenchError.failed(schedulerFailure) }
  }

  mutating func run(_ path: String, _ args: [String], env: [String: String] = [:]) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try? p.run()
    processes.append(p)
  }

  func tool(_ path: String, _ args: [String]) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    p.environment = ProcessInfo.processInfo.environment.merging(["CUPS_SERVER": socket]) { $1 }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try? p.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return text
  }

  mutating func start(port: Int) throws {
    run("/usr/sbin/cupsd", PrivateCUPSConfig.arguments(in: dir))
    run(
      "/usr/bin/dbus-daemon",
      ["--session", "--address=unix:path=\(dir)/dbus.sock", "--nofork", "--nopidfile"])
    let deadline = now() + 10_000_000_000
    while !FileManager.default.fileExists(atPath: socket)
      || !FileManager.default.fileExists(atPath: dir + "/dbus.sock")
    {
      try checkScheduler()
      guard now() < deadline else { throw BenchError.failed("cupsd did not listen within 10 s") }
      usleep(10_000)
    }
    run(
      "/usr/sbin/ippeveprinter",
      [
        "-p", String(port), "-n", "localhost", "-r", "off", "-c", "/bin/true", "-d",
        dir + "/printer", "-M", "Zebra", "-m", "ZPL Label", "-f",
        "application/vnd.zebra-zpl,application/vnd.cups-raw,application/octet-stream", "bench",
      ], env: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir)/dbus.sock"])
    usleep(500_000)
    for (queue, options) in [("label", ""), ("fast", "&waitjob=false")] {
      _ = tool(
        "/usr/sbin/lpadmin",
        [
          "-p", queue, "-E", "-v", "ipp://127.0.0.1:\(port)/ipp/print?contimeout=5\(options)",
          "-D", "Zebra ZPL Label", "-o", "printer-is-shared=false",
        ])
    }
  }

  func stop() {
    for p in processes.reversed() where p.isRunning {
      kill(p.processIdentifier, SIGKILL)  // throwaway servers: nothing to save
      p.waitUntilExit()
    }
    try? FileManager.default.removeItem(atPath: dir)
  }
}

/// Submits with `lp`; returns the CUPS job id ("request id is label-12 (1 file(s))").
func lpJob(_ cups: PrivateCUPS, queue: String, file: String) -> String {
  let out = cups.tool("/usr/bin/lp", ["-d", queue, "-o", "raw", file])
  return out.split(separator: " ").first { $0.hasPrefix(queue + "-") }.map(String.init) ?? ""
}

/// Polls `lpstat -W completed` (what a shell user of `lp` would do) until `id` is listed;
/// throws when cupsd dies or `timeout` seconds pass.
func waitCUPSCompleted(_ cups: PrivateCUPS, queue: String, _ id: String, timeout: Double = 60)
  throws
{
  let deadline = now() + UInt64(timeout * 1e9)
  while !cups.tool("/usr/bin/lpstat", ["-W", "completed", "-o", queue]).split(separator: "\n")
    .contains(where: { $0.hasPrefix(id + " ") })
  {
    try cups.checkScheduler()
    guard now() < deadline else {
      throw BenchError.failed("CUPS job \(id) not completed within \(Int(timeout)) s")
    }
    usleep(5_000)
  }
}

@MainActor func cupsBenchmarks() throws {
  guard var cups = PrivateCUPS() else {
    emitTable("| CUPS transport | skipped: cupsd, ippeveprinter, lp or dbus-daemon missing |")
    return
  }
  defer { cups.stop() }
  try cups.start(port: 20000 + Int(getpid() % 20000))
  setenv("CUPS_SERVER", cups.socket, 1)
  let home = URL(fileURLWithPath: cups.dir + "/labeld")
  let (daemon, sock) = try startDaemon(home, ["--cups"])
  defer { stopDaemon(daemon) }
  let c = try BlockingConnection(socketPath: sock)
  let w = try BlockingConnection(socketPath: sock)
  try w.call("subscribe", ["topics": ["jobs"]])
  emit("| measurement | value |\n|---|---:|")
  let label = "^XA^FO20,20^A0N,30,30^FDbench^FS^XZ\n"
  let file = cups.dir + "/label.zpl"
  try? label.write(toFile: file, atomically: true, encoding: .utf8)
  let doc: JSONValue = [
    "format": "native", "data": .string(Data(label.utf8).base64EncodedString()),
  ]

  func labeldJob(_ printer: String) -> Int? {
    (try? c.call(
      "jobs.submit", ["printer": .string(printer), "document": doc], as: JobResult.self))?.job.id
  }
  /// Waits for labeld's jobs `ids` to end; throws, naming the cause, when cupsd dies or
  /// nothing ends for a minute.
  func waitLabeld(_ ids: Set<Int>) throws {
    var left = ids
    var quiet = 0.0
    while !left.isEmpty {
      try cups.checkScheduler()
      guard let n = try? w.nextNotification(timeout: 0.5) else {
        quiet += 0.5
        if quiet > 60 { throw BenchError.failed("labeld's jobs \(left.sorted()) did not end") }
        continue
      }
      quiet = 0
      if n.params["state"] == "completed" || n.params["state"] == "aborted",
        let id = n.params["id"]?.intValue
      {
        left.remove(id)
      }
    }
  }

  // One label, submit → completed, alternating labeld and lp on the same queue.
  var ours: [Double] = []
  var theirs: [Double] = []
  // Each label goes to an idle queue: right after a job CUPS still winds its backend
  // down, and a job sent then waits about a second whoever sends it.
  for round in 0..<10 {
    progress("one label through labeld and through lp, round \(round + 1) of 10")
    usleep(1_500_000)
    var t = now()
    guard let job = labeldJob("cups:label") else {
      try cups.checkScheduler()
      throw BenchError.failed("labeld refused the job")
    }
    try waitLabeld([job])
    ours.append(Double(now() - t) / 1e6)
    usleep(1_500_000)
    t = now()
    let id = lpJob(cups, queue: "label", file: file)
    try waitCUPSCompleted(cups, queue: "label", id)
    theirs.append(Double(now() - t) / 1e6)
  }
  ours.sort()
  theirs.sort()
  let (o, l) = (ours[ours.count / 2], theirs[theirs.count / 2])
  emit(
    String(format: "| CUPS: one label submit → completed, labeld, median of 10 (ms) | %.0f |", o))
  emit(String(format: "| CUPS: one label submit → completed, lp, median of 10 (ms) | %.0f |", l))
  emit(String(format: "| CUPS: labeld / lp | %.3f |", o / l))

  // 200 small jobs end to end, on a queue whose backend does not wait for the printer's
  // own job to end (waitjob=false), so the CUPS pipeline rather than the ipp backend's
  // one-second status poll sets the pace.
  progress("200 jobs through labeld")
  var t = now()
  var ids = Set<Int>()
  for _ in 0..<200 { if let id = labeldJob("cups:fast") { ids.insert(id) } }
  try waitLabeld(ids)
  let ours200 = Double(now() - t) / 1e9
  emit(
    String(
      format:
        "| CUPS: 200 jobs end to end (waitjob=false queue), labeld (s) | %.1f (%.0f jobs/s) |",
      ours200, 200 / ours200))
  progress("200 jobs through lp")
  t = now()
  var last = ""
  for _ in 0..<200 { last = lpJob(cups, queue: "fast", file: file) }
  try waitCUPSCompleted(cups, queue: "fast", last, timeout: 120)
  let lp200 = Double(now() - t) / 1e9
  emit(
    String(
      format: "| CUPS: 200 jobs end to end (waitjob=false queue), lp (s) | %.1f (%.0f jobs/s) |",
      lp200, 200 / lp200))
  try cups.checkScheduler()
  emit("| CUPS: the scheduler still runs after the section | yes |")
}
