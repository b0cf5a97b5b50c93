import Foundation
import LabelCore
import LabelKit

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The built `labeld` binary running in a fresh temp dir with its own socket: each test
/// gets its own, so tests run in parallel without sharing anything.
package final class DaemonProcess: @unchecked Sendable {
  package let directory: URL
  /// Whether this process made `directory` (and removes it when done).
  private let ownsDirectory: Bool
  package let socketPath: String
  package let stateDirectory: URL
  package let process = Process()
  /// labeld's stderr goes to a file: a pipe nobody reads would fill up and block it.
  package let logURL: URL

  /// The directory holding the built products (`labeld`, `labelctl`).
  package static var productsDirectory: URL {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var dir = exe.deletingLastPathComponent()
    // The test binary may sit inside a bundle directory (`*.xctest`).
    while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("labeld").path),
      dir.path != "/"
    {
      dir = dir.deletingLastPathComponent()
    }
    return dir
  }

  /// Two simulated printers: `sim:zebra` (ZPL) and `sim:ql` (Brother QL).
  package static let defaultArguments = ["--simulate", "zebra=zpl", "--simulate", "ql=brother-ql"]

  package static var labeldPath: String { productsDirectory.appendingPathComponent("labeld").path }
  package static var labelctlPath: String {
    productsDirectory.appendingPathComponent("labelctl").path
  }

  /// A fresh, short temp dir (socket paths are limited to 107 bytes), in `$TMPDIR`
  /// (`make test` gives the tests one of their own, and removes it) unless that is so long
  /// that a socket in it could pass the limit, or cannot be used: then in /tmp.
  package static func makeTempDirectory() -> URL {
    let tmp = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
    let bases = (1...48).contains(tmp.utf8.count) ? [tmp, "/tmp"] : ["/tmp"]
    for base in bases {
      var template = Array("\(base)/labeld-test-XXXXXX".utf8CString)
      let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
      if let made { return URL(fileURLWithPath: String(cString: made), isDirectory: true) }
    }
    fatalError("cannot make a temporary directory in /tmp: errno \(errno)")
  }

  /// Starts labeld with `arguments` (socket and state dir are added) and waits until it
  /// accepts connections. CUPS is off (`--no-cups`) unless `arguments` has `--cups`, so a
  /// CUPS server on the machine never adds printers to tests that do not ask for them;
  /// `environment` is added to the test's own.
  package init(
    _ arguments: [String] = DaemonProcess.defaultArguments,
    directory: URL? = nil, wrapper: [String] = [], environment: [String: String] = [:]
  ) throws {
    self.directory = directory ?? Self.makeTempDirectory()
    ownsDirectory = directory == nil
    socketPath = self.directory.appendingPathComponent("labeld.sock").path
    stateDirectory = self.directory.appendingPathComponent("state", isDirectory: true)
    let command =
      [
        Self.labeldPath, "--socket", socketPath, "--state-dir", stateDirectory.path, "--log-level",
        "debug",
      ]
      + (arguments.contains("--cups") ? [] : ["--no-cups"]) + arguments
      // Never the machine's /etc/labeld/labeld.conf: a test names its file or reads none.
      + (arguments.contains(where: { $0.hasPrefix("--config") }) ? [] : ["--no-config"])
    // A wrapper (prlimit …) runs labeld as its child through exec, keeping the pid.
    let argv = wrapper + command
    process.executableURL = URL(fileURLWithPath: argv[0])
    process.arguments = Array(argv.dropFirst())
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    logURL = self.directory.appendingPathComponent("labeld.log")
    if !FileManager.default.fileExists(atPath: logURL.path) {
      _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
    }
    let logHandle = try FileHandle(forWritingTo: logURL)
    logHandle.seekToEndOfFile()
    process.standardError = logHandle
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // Readiness, not timing: try to connect until it works or the process has exited.
    var attempts = 0
    while true {
      if (try? BlockingConnection(socketPath: socketPath)) != nil { break }
      guard process.isRunning, attempts < 2000 else {
        throw DaemonError.didNotStart(log)
      }
      attempts += 1
      usleep(5_000)
    }
  }

  package enum DaemonError: Error { case didNotStart(String) }

  /// The port of labeld's IPP front, from its log ("IPP on ipp://127.0.0.1:PORT/...").
  package func ippPort(timeout: Double = 30) throws -> Int {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      for line in log.split(separator: "\n") where line.contains("IPP on ipp") {
        let address = line.split(separator: " ").first { $0.contains("://") } ?? ""
        let hostPort = address.split(separator: "/").dropFirst().first ?? ""
        if let port = Int(hostPort.split(separator: ":").last ?? "") { return port }
      }
      guard process.isRunning else { break }
      usleep(20_000)
    }
    throw HarnessError.failed("labeld's IPP front did not start: \(log)")
  }

  package func client() throws -> BlockingConnection {
    try BlockingConnection(socketPath: socketPath)
  }

  /// Everything labeld wrote to stderr so far.
  package var log: String {
    (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
  }

  /// Output of a simulated printer for a job.
  package func simOutput(_ printer: String, job: Int, ext: String) -> [UInt8]? {
    let url = stateDirectory.appendingPathComponent("sim/\(printer)/\(job).\(ext)")
    return (try? Data(contentsOf: url)).map { [UInt8]($0) }
  }

  package func stop() {
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
    }
  }

  /// Sends `signal` without waiting.
  package func signal(_ signal: Int32) {
    if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
  }

  /// Stops labeld with SIGTERM after a test: it must have survived the test and must exit
  /// cleanly, whatever the test asserted (the failure carries the end of its log).
  package func stopCleanly() throws {
    guard process.isRunning else {
      throw HarnessError.failed("labeld died during the test:\n\(log.suffix(4000))")
    }
    stop()
    guard process.terminationStatus == 0 else {
      throw HarnessError.failed("labeld exited uncleanly on SIGTERM:\n\(log.suffix(6000))")
    }
  }

  package func kill9() {
    if process.isRunning {
      Glibc.kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  deinit {
    stop()
    if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
  }
}

/// Runs `body` against a fresh daemon and stops it afterwards; the daemon must have
/// survived the test and must exit cleanly on SIGTERM, whatever the test asserted.
package func withDaemon<T>(
  _ arguments: [String] = DaemonProcess.defaultArguments,
  environment: [String: String] = [:],
  _ body: (DaemonProcess) throws -> T
) throws -> T {
  let daemon = try DaemonProcess(arguments, environment: environment)
  defer { daemon.stop() }
  let result = try body(daemon)
  try daemon.stopCleanly()
  return result
}

extension BlockingConnection {
  /// The RPC error a call fails with (nil when it succeeds).
  package func error(_ method: String, _ params: JSONValue = [:]) -> RPCError? {
    do {
      switch try request(method, params) {
      case .success: return nil
      case .failure(let e): return e
      }
    } catch {
      return RPCError(code: 0, message: "\(error)")
    }
  }

  /// Waits for the next notification of `method` matching `where`, skipping others.
  package func waitFor(
    _ method: String, timeout: Double = 30, where match: (JSONValue) -> Bool = { _ in true }
  ) throws -> JSONValue {
    while true {
      let n = try nextNotification(timeout: timeout)
      if n.method == method && match(n.params) { return n.params }
    }
  }
  /// Waits for the `job` notification of job `id` in `state`.
  @discardableResult
  package func waitForJob(_ id: Int, state: String = "completed", timeout: Double = 30) throws
    -> JSONValue
  {
    try waitFor("job", timeout: timeout) { $0["id"] == .int(id) && $0["state"] == .string(state) }
  }

  /// Waits for the printerError alert of `printer` in `state`, with `reason` when given.
  package func waitForPrinterError(
    _ printer: String, state: String = "active", reason: Reason? = nil, timeout: Double = 15
  ) throws -> JSONValue {
    try waitFor("alert", timeout: timeout) { a in
      a["kind"] == "printerError" && a["printer"] == .string(printer)
        && a["state"] == .string(state)
        && (reason == nil || a["reason"] == .string(reason?.rawValue ?? ""))
    }
  }

}

/// Base64 of some bytes, for `document.data`.
package func base64(_ s: String) -> JSONValue { .string(Data(s.utf8).base64EncodedString()) }
