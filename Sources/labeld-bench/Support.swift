import Dispatch
import Foundation
import LabelKit
import LabelPOSIX

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

/// A port free now on 127.0.0.1.
func freePort() -> Int {
  let fd = try? TCPListener.listen(host: "127.0.0.1", port: 0)
  defer { if let fd { close(fd) } }
  return fd.flatMap { TCPListener.port(of: $0) } ?? 18_000
}

/// An 8-bit grey PNG with boxes, `dpi` in its pHYs chunk.
func greyPNG(width: Int, height: Int, dpi: Int, to path: String) throws {
  let script = """
    import struct, sys, zlib
    w, h, dpi = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rows = []
    for y in range(h):
        r = bytearray([255]) * w
        for i in range(30):
            x0, y0 = (i * 37) % (w - 80), (i * 53) % (h - 40)
            if y0 <= y < y0 + 40:
                r[x0:x0 + 70] = bytes(70)
        rows.append(b"\\0" + bytes(r))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    ppm = round(dpi / 0.0254)
    png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
    png += chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
    open(sys.argv[4], "wb").write(png + chunk(b"IEND", b""))
    """
  guard
    run("/usr/bin/python3", ["-c", script, String(width), String(height), String(dpi), path]) != nil
  else { throw BenchError.failed("cannot write \(path)") }
}

/// Runs `path` with `arguments` (at most 120 s); its stdout, or nil when it failed.
func run(_ path: String, _ arguments: [String]) -> String? {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: path)
  p.arguments = arguments
  let out = Pipe()
  p.standardOutput = out
  p.standardError = FileHandle.nullDevice
  do { try p.run() } catch { return nil }
  let killer = DispatchWorkItem { if p.isRunning { p.terminate() } }
  DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: killer)
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  killer.cancel()
  return p.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
}
