import Dispatch
import Foundation
import LabelKit

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What every section shares: the labeld binary, the section's own work directory (removed
/// by the runner when the section ends, however it ends) and the request count.
struct BenchConfig: Sendable {
  var labeld = ".build/release/labeld"
  var requests = 2000
  var work = FileManager.default.temporaryDirectory.appendingPathComponent(
    "labeld-bench-\(getpid())")
  /// `--soak`: run the soak (SoakBench.swift) instead of the sections.
  var soakMode = false
  var soak = SoakOptions()
  /// The soak's flags as given, passed on to the child that runs it.
  var passThrough: [String] = []
}

/// Prints one finished row (or any report line) at once: the runner passes it on while
/// the section goes on, so a section that hangs later has still shown what it measured.
func emit(_ text: String) {
  var text = text
  if !text.hasSuffix("\n") { text += "\n" }
  FileHandle.standardOutput.write(Data(text.utf8))
}

/// Rows of a two-column table, with its header.
func emitTable(_ rows: String) {
  emit("| measurement | value |\n|---|---:|")
  emit(rows)
}

/// Progress for the human watching (stderr; the report stays clean).
func progress(_ text: String) {
  FileHandle.standardError.write(Data("  … \(text)\n".utf8))
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// A process's resident set (VmRSS) in KiB.
func rssKB(_ pid: Int32) -> Int {
  statusField("VmRSS:", pid: String(pid))
}

/// This process's peak resident set (VmHWM) in KiB.
func peakRSSKB() -> Int { statusField("VmHWM:", pid: "self") }

/// A process's peak resident set (VmHWM) in KiB.
func peakRSSKB(_ pid: Int32) -> Int { statusField("VmHWM:", pid: String(pid)) }

private func statusField(_ name: String, pid: String) -> Int {
  let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
  for line in status.split(separator: "\n") where line.hasPrefix(name) {
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
  }
  return 0
}

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
  guard !sorted.isEmpty else { return 0 }
  let i = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
  return Double(sorted[max(0, i)]) / 1e6
}

enum BenchError: Error, CustomStringConvertible {
  case failed(String)
  var description: String {
    switch self {
    case .failed(let why): why
    }
  }
}

/// Starts labeld in `home` and returns once it answers `hello`; throws when it exits or
/// does not answer within `timeout` seconds.
func startDaemon(_ home: URL, _ args: [String], timeout: Double = 30) throws -> (Process, String) {
  try? FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  let sock = home.appendingPathComponent("s.sock").path
  let p = Process()
  p.executableURL = URL(fileURLWithPath: config.labeld)
  p.arguments =
    [
      "--socket", sock, "--state-dir", home.appendingPathComponent("state").path, "--log-level",
      "error",
    ] + args
  try p.run()
  let deadline = now() + UInt64(timeout * 1e9)
  while true {
    if let c = try? BlockingConnection(socketPath: sock), (try? c.call("hello")) != nil { break }
    guard p.isRunning else {
      throw BenchError.failed("labeld exited with status \(p.terminationStatus) at start-up")
    }
    guard now() < deadline else {
      stopDaemon(p)
      throw BenchError.failed("labeld did not answer within \(Int(timeout)) s of starting")
    }
    usleep(500)
  }
  return (p, sock)
}

func stopDaemon(_ p: Process) {
  guard p.isRunning else { return }
  p.terminate()
  p.waitUntilExit()
}
