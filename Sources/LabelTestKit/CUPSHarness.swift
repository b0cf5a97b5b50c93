import Foundation
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A private CUPS server for one test: cupsd, a private D-Bus (ippeveprinter needs one)
/// and ippeveprinter virtual printers, on a fresh 0755 temp dir and free ports. `stop()`
/// (and deinit) ends only the processes it started, by pid.
///
/// Recipe and gotchas: docs/architecture.md, "Testing the CUPS transport".
package final class CUPSHarness: @unchecked Sendable {
  package let directory: URL
  /// cupsd's socket: `CUPS_SERVER` for labeld and the CUPS tools.
  package let socketPath: String
  private var processes: [Child] = []
  package private(set) var printers: [VirtualPrinter] = []
  /// The cupsd that should be running; nil while it is stopped on purpose (`stopCUPSD`).
  package private(set) var cupsd: Child?

  package static let tools = [
    "/usr/sbin/cupsd", "/usr/sbin/ippeveprinter", "/usr/sbin/lpadmin", "/usr/bin/dbus-daemon",
    "/usr/sbin/cupsenable", "/usr/sbin/cupsdisable", "/usr/sbin/cupsaccept",
    "/usr/sbin/cupsreject", "/usr/bin/lp",
  ]

  /// Why the CUPS tests cannot run here, or nil when they can.
  package static let unavailableReason: String? = {
    if getuid() != 0 {
      return "the CUPS tests start a private cupsd, which must run as root: run `make test` as root"
    }
    let missing = tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
    if !missing.isEmpty {
      return
        "missing \(missing.joined(separator: ", ")): run `make deps` (cups-daemon cups-client cups-ipp-utils dbus)"
    }
    return nil
  }()

  /// The environment that points libcups at this server.
  package var environment: [String: String] { ["CUPS_SERVER": socketPath] }

  package init() throws {
    var template = Array("/tmp/labeld-cups-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer {
      String(cString: mkdtemp($0.baseAddress!)!)
    }
    // Backends run as `lp`: a 0700 dir makes them fail with "Unable to open print file".
    chmod(path, 0o755)
    directory = URL(fileURLWithPath: path, isDirectory: true)
    socketPath = PrivateCUPSConfig.socket(in: path)
    try PrivateCUPSConfig.write(into: path, errorPolicy: "abort-job")
    try startCUPSD()
    try spawn(
      "/usr/bin/dbus-daemon",
      ["--session", "--address=unix:path=\(path)/dbus.sock", "--nofork", "--nopidfile"],
      log: "dbus")
    try poll("dbus-daemon listens") {
      FileManager.default.fileExists(atPath: path + "/dbus.sock")
    }
  }

  /// Starts cupsd (again, after `stopCUPSD`) and waits until it accepts connections.
  package func startCUPSD() throws {
    let path = directory.path
    let child = try spawn(
      "/usr/sbin/cupsd", PrivateCUPSConfig.arguments(in: path),
      log: "cupsd")
    cupsd = child
    try poll("cupsd answers on \(socketPath)", process: child) {
      (try? UnixSocket.connect(path: socketPath)).map { close($0) } != nil
    }
  }

  /// Stops cupsd (SIGTERM to its pid), leaving the printers and queues configured.
  package func stopCUPSD() {
    cupsd = nil
    for p in processes where p.path == "/usr/sbin/cupsd" { p.end() }
    unlink(socketPath)
  }

  /// Why the scheduler is gone although nobody stopped it ("cupsd (pid 42) died: killed by
  /// signal 11 (SIGSEGV)", with the end of its error log); nil while it runs or while it
  /// is stopped on purpose. A crash is reported as such, never as a later timeout.
  package var schedulerFailure: String? {
    guard let cupsd, !cupsd.isRunning else { return nil }
    let errorLog =
      (try? String(contentsOfFile: directory.path + "/log/error_log", encoding: .utf8)) ?? ""
    return "cupsd (pid \(cupsd.pid)) died: \(cupsd.exitDescription)\n== error_log (end)\n"
      + errorLog.suffix(2000)
  }

  /// Throws the scheduler's crash, if it crashed.
  package func checkScheduler() throws {
    if let schedulerFailure { throw HarnessError.failed(schedulerFailure) }
  }

  /// `waitUntil` that gives up at once, naming the crash, when cupsd dies meanwhile.
  package func waitUntil(_ what: String, timeout: Double = 10, _ condition: () -> Bool) throws {
    try poll(what, timeout: timeout, process: cupsd, condition)
  }

  /// Adds a virtual printer and a raw queue `name` for it (`lpadmin -D description`).
  @discardableResult
  package func addPrinter(_ name: String, description: String? = nil) throws -> VirtualPrinter {
    let printer = try VirtualPrinter(harness: self, name: name)
    printers.append(printer)
    var args = [
      "-p", name, "-E", "-v", "ipp://127.0.0.1:\(printer.port)/ipp/print?contimeout=3",
      "-o", "printer-error-policy=abort-job", "-o", "printer-is-shared=false",
    ]
    if let description { args += ["-D", description] }
    try tool("/usr/sbin/lpadmin", args)
    return printer
  }

  /// Runs a CUPS command-line tool against this server; throws with its output on failure.
  @discardableResult
  package func tool(_ path: String, _ args: [String]) throws -> String {
    let out = directory.path + "/tmp/tool-\(UUID().uuidString).out"
    defer { unlink(out) }
    let child = try Child(
      path, args, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
      output: out)
    let status = child.wait()
    let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    guard status == 0 else {
      throw HarnessError.failed("\(path) \(args.joined(separator: " ")): \(output)")
    }
    return output
  }

  /// Starts a process of ours, its output in log/NAME.log.
  @discardableResult
  package func spawn(
    _ path: String, _ args: [String], log: String, environment: [String: String] = [:]
  )
    throws -> Child
  {
    let child = try Child(
      path, args, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
      output: directory.path + "/log/\(log).log")
    processes.append(child)
    return child
  }

  /// Everything the server and printers logged (for failure messages).
  package var logs: String {
    let dir = directory.path + "/log"
    let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
    return files.sorted().map { f in
      "== \(f)\n"
        + ((try? String(contentsOfFile: dir + "/" + f, encoding: .utf8)) ?? "")
        .suffix(3000)
    }.joined(separator: "\n")
  }

  /// Runs `body` against a fresh private CUPS server and ends every process of it
  /// afterwards; a scheduler that crashed during the test fails it here, whatever else
  /// the test saw.
  package static func run<T>(_ body: (CUPSHarness) throws -> T) throws -> T {
    let harness = try CUPSHarness()
    defer { harness.stop() }
    let crashed = { harness.schedulerFailure.map { "the CUPS scheduler crashed: \($0)\n" } }
    let result: T
    do {
      result = try body(harness)
    } catch {
      // A crashed scheduler is named first: whatever the test waited for then never came.
      throw HarnessError.failed("\(crashed() ?? "")\(error)")
    }
    if let crash = crashed() { throw HarnessError.failed(crash) }
    return result
  }

  /// Ends every process of ours.
  package func stop() {
    cupsd = nil
    for p in processes.reversed() { p.end() }
    processes.removeAll()
  }

  deinit {
    stop()
    try? FileManager.default.removeItem(at: directory)
  }

  /// An unused TCP port on 127.0.0.1 (bound to port 0, read back, released).
  package static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length)
        return getsockname(fd, $0, &length)
      }
    }
    return Int(UInt16(bigEndian: addr.sin_port))
  }
}

/// A test harness's failure, said in a sentence (with logs where they help): test support
/// throws it and the test framework records it at the test that called.
package enum HarnessError: Error, CustomStringConvertible {
  case failed(String)

  package var description: String {
    switch self {
    case .failed(let message): message
    }
  }
}

/// Polls `condition` every 20 ms for up to `timeout` seconds (readiness, not timing).
package func poll(
  _ what: String, timeout: Double = 10, process: Child? = nil, _ condition: () -> Bool
) throws {
  let deadline = Date().addingTimeInterval(timeout)
  while !condition() {
    if let process, !process.isRunning {
      throw HarnessError.failed("\(what): \(process.path) \(process.exitDescription)")
    }
    guard Date() < deadline else { throw HarnessError.failed("timed out waiting until \(what)") }
    usleep(20_000)
  }
}

/// An ippeveprinter that accepts raw documents and keeps them (`-k`) in its spool dir.
/// Its command script holds a job while `<dir>/hold` exists, and while `<dir>/media-empty`
/// exists it reports `media-empty` to the printer's state (STATE: lines).
package final class VirtualPrinter: @unchecked Sendable {
  package let name: String
  package let port: Int
  package let directory: URL
  private unowned let harness: CUPSHarness
  private var process: Child?
  private var run = 0

  package init(harness: CUPSHarness, name: String) throws {
    self.harness = harness
    self.name = name
    port = CUPSHarness.freePort()
    directory = harness.directory.appendingPathComponent("printer-\(name)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let script = """
      #!/bin/sh
      dir=\(directory.path)
      if [ -f $dir/media-empty ]; then
        echo "STATE: +media-empty-error" >&2
        while [ -f $dir/media-empty ]; do sleep 0.05; done
        echo "STATE: -media-empty-error" >&2
      fi
      while [ -f $dir/hold ]; do sleep 0.05; done
      exit 0

      """
    try script.write(
      to: directory.appendingPathComponent("command"), atomically: true, encoding: .utf8)
    chmod(directory.appendingPathComponent("command").path, 0o755)
    try start()
  }

  /// The spool dir of the current run (ippeveprinter numbers documents from 1 each run).
  package var spool: URL { directory.appendingPathComponent("spool-\(run)", isDirectory: true) }

  /// Starts the printer (again) on its port, with a fresh spool dir.
  package func start() throws {
    run += 1
    try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
    let p = try harness.spawn(
      "/usr/sbin/ippeveprinter",
      [
        "-p", String(port), "-n", "localhost", "-r", "off", "-k", "-c",
        directory.appendingPathComponent("command").path, "-d", spool.path, "-M", "Zebra", "-m",
        "ZPL Label", "-f",
        "application/vnd.zebra-zpl,application/vnd.cups-raw,application/octet-stream", name,
      ], log: "printer-\(name)",
      environment: [
        "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(harness.directory.path)/dbus.sock"
      ])
    process = p
    try poll("ippeveprinter \(name) listens on \(port)", process: p) {
      TCPProbe.canConnect(host: "127.0.0.1", port: port, timeoutMS: 200)
    }
  }

  /// Kills the printer process (SIGKILL, its pid only).
  package func kill() {
    process?.end(grace: 0)
  }

  /// The documents received in this run, in order.
  package var documents: [[UInt8]] {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []
    return
      files
      .filter { $0.hasSuffix(".dat") }
      .sorted { (Int($0.prefix { $0.isNumber }) ?? 0) < (Int($1.prefix { $0.isNumber }) ?? 0) }
      .compactMap { try? Data(contentsOf: spool.appendingPathComponent($0)) }
      .map { [UInt8]($0) }
  }

  package func set(_ flag: String, _ on: Bool) {
    let url = directory.appendingPathComponent(flag)
    if on {
      _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    } else {
      try? FileManager.default.removeItem(at: url)
    }
  }
}

/// A child process started with posix_spawn and reaped here (Foundation's `Process` can
/// miss the exit of a killed child and wait forever). No signal is blocked in it: test
/// threads block SIGTERM and a child would inherit that mask across exec.
package final class Child: @unchecked Sendable {
  package let path: String
  package let pid: pid_t
  private var status: Int32?

  package init(_ path: String, _ args: [String], environment: [String: String], output: String)
    throws
  {
    self.path = path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    ChildProcess.startWithUsualSignals(&attr)
    let argv = ([path] + args).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, &attr, argv, envp)
    guard rc == 0 else {
      throw HarnessError.failed("cannot start \(path): \(String(cString: strerror(rc)))")
    }
    self.pid = pid
  }

  package var isRunning: Bool {
    guard status == nil else { return false }
    var s: Int32 = 0
    let r = waitpid(pid, &s, WNOHANG)
    if r == pid || (r < 0 && errno == ECHILD) {
      status = r == pid ? s : -1
      return false
    }
    return true
  }

  /// Waits for the exit; the exit status (-1 if it was killed or already reaped).
  @discardableResult
  package func wait() -> Int32 {
    if let status { return Self.exitCode(status) }
    var s: Int32 = 0
    var r: pid_t
    repeat { r = waitpid(pid, &s, 0) } while r < 0 && errno == EINTR
    status = r == pid ? s : -1
    return Self.exitCode(status!)
  }

  /// How the process ended ("exited with status 1", "killed by signal 11 (SIGSEGV)"), or
  /// "is running".
  package var exitDescription: String {
    guard !isRunning, let status else { return "is running" }
    if status < 0 { return "ended (reaped elsewhere)" }
    let signal = status & 0x7f
    if signal == 0 { return "exited with status \((status >> 8) & 0xff)" }
    let name =
      signal == SIGSEGV
      ? " (SIGSEGV)"
      : signal == SIGABRT
        ? " (SIGABRT)" : signal == SIGKILL ? " (SIGKILL)" : signal == SIGTERM ? " (SIGTERM)" : ""
    return "killed by signal \(signal)\(name)"
  }

  private static func exitCode(_ s: Int32) -> Int32 {
    s >= 0 && (s & 0x7f) == 0 ? (s >> 8) & 0xff : -1
  }

  /// SIGTERM, then SIGKILL if it has not exited within `grace` seconds; then reaps it.
  package func end(grace: Double = 3) {
    guard isRunning else { return }
    if grace > 0 {
      kill(pid, SIGTERM)
      let deadline = Date().addingTimeInterval(grace)
      while isRunning && Date() < deadline { usleep(10_000) }
    }
    if isRunning { kill(pid, SIGKILL) }
    wait()
  }
}
