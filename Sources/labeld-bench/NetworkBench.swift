import Foundation
import LabelCore
import LabelKit
import LabelLoad

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Labels per second and labeld's CPU per label to an emulated Zebra on a raw TCP port of
/// 127.0.0.1 (Tests/Emulators/netprinter.py), next to the same bytes sent with `nc`, one
/// connection per label, in the same run (issue #16; aim: within 10% of the raw send).
/// labeld asks `~HQES` before and after each copy, on the same connection.
@MainActor func networkSection() throws {
  let emulator = URL(fileURLWithPath: "Tests/Emulators/netprinter.py").path
  guard FileManager.default.fileExists(atPath: emulator),
    FileManager.default.isExecutableFile(atPath: "/usr/bin/nc")
  else {
    emit(
      "Not run: needs Tests/Emulators/netprinter.py (run from the repository) and nc (make deps).")
    return
  }
  let home = config.work.appendingPathComponent("net")
  try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  // The printer: started with its stdin held open, ended by closing it.
  let printer = Process()
  printer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
  printer.arguments = [emulator, "--dir", home.appendingPathComponent("zebra").path]
  let hold = Pipe()
  let out = Pipe()
  printer.standardInput = hold
  printer.standardOutput = out
  try printer.run()
  defer {
    try? hold.fileHandleForWriting.close()
    printer.waitUntilExit()
  }
  var line: [UInt8] = []
  while line.count < 64, line.last != 0x0A {
    let one = out.fileHandleForReading.readData(ofLength: 1)
    if one.isEmpty { break }
    line += one
  }
  let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
  guard words.count >= 2, let port = Int(words[1]) else {
    throw BenchError.failed("the emulated printer did not start")
  }
  // A 4 x 6 in label with a 100 KB graphic: what a shipping label with a logo sends.
  let label =
    "^XA^FO20,20^GFA,51200,51200,64," + String(repeating: "F0", count: 51_200)
    + "^FS^FO40,40^A0N,40,40^FDShip to^FS^XZ\n"
  let count = 200
  let (daemon, sock) = try startDaemon(
    home.appendingPathComponent("labeld"),
    ["--no-usb", "--no-cups", "--printer", "z=socket://127.0.0.1:\(port),language=zpl"])
  defer { stopDaemon(daemon) }
  let c = try BlockingConnection(socketPath: sock)
  let w = try BlockingConnection(socketPath: sock)
  try w.call("subscribe", ["topics": ["jobs"]])
  let doc: JSONValue = [
    "format": "native", "data": .string(Data(label.utf8).base64EncodedString()),
  ]
  progress("\(count) labels through labeld")
  let cpu0 = ProcessMetrics.read(daemon.processIdentifier)?.cpuTicks ?? 0
  let t0 = now()
  var last = 0
  for _ in 0..<count {
    last = try c.call("jobs.submit", ["printer": "net:z", "document": doc], as: JobResult.self)
      .job.id
  }
  let deadline = now() + 120_000_000_000
  var completed = false
  while now() < deadline, !completed {
    guard let n = try? w.nextNotification(timeout: 1) else { continue }
    completed = n.params["id"]?.intValue == last && n.params["state"] == "completed"
  }
  guard completed else { throw BenchError.failed("job \(last) did not complete in 120 s") }
  let oursS = Double(now() - t0) / 1e9
  let cpu =
    Double((ProcessMetrics.read(daemon.processIdentifier)?.cpuTicks ?? 0) - cpu0)
    / Double(ProcessMetrics.ticksPerSecond)
  // One job of `count` copies: the transport alone (one submit, one stored document).
  progress("one job of \(count) copies through labeld")
  let cpu1 = ProcessMetrics.read(daemon.processIdentifier)?.cpuTicks ?? 0
  let t2 = now()
  let copiesJob = try c.call(
    "jobs.submit", ["printer": "net:z", "document": doc, "copies": .int(count)],
    as: JobResult.self
  ).job.id
  var copiesDone = false
  let deadline2 = now() + 120_000_000_000
  while now() < deadline2, !copiesDone {
    guard let n = try? w.nextNotification(timeout: 1) else { continue }
    copiesDone = n.params["id"]?.intValue == copiesJob && n.params["state"] == "completed"
  }
  guard copiesDone else { throw BenchError.failed("job \(copiesJob) did not complete in 120 s") }
  let copiesS = Double(now() - t2) / 1e9
  let copiesCPU =
    Double((ProcessMetrics.read(daemon.processIdentifier)?.cpuTicks ?? 0) - cpu1)
    / Double(ProcessMetrics.ticksPerSecond)
  // The same bytes with nc, one connection each, from one shell loop.
  let file = home.appendingPathComponent("label.zpl").path
  try Data(label.utf8).write(to: URL(fileURLWithPath: file))
  progress("\(count) labels with nc")
  let t1 = now()
  let shell = Process()
  shell.executableURL = URL(fileURLWithPath: "/bin/sh")
  shell.arguments = [
    "-c",
    "for i in $(seq 1 \(count)); do timeout 10 nc -N 127.0.0.1 \(port) < \(file) || exit 1; done",
  ]
  try shell.run()
  shell.waitUntilExit()
  let ncS = Double(now() - t1) / 1e9
  emitTable(
    String(
      format: "| labeld: %d labels of %d bytes (labels/s) | %.0f |\n", count, label.utf8.count,
      Double(count) / oursS)
      + String(format: "| labeld CPU per label (ms) | %.2f |\n", cpu * 1000 / Double(count))
      + String(
        format: "| labeld: one job of %d copies (labels/s) | %.0f |\n", count,
        Double(count) / copiesS)
      + String(
        format: "| labeld CPU per copy of that job (ms) | %.2f |\n",
        copiesCPU * 1000 / Double(count))
      + (shell.terminationStatus == 0
        ? String(
          format: "| nc, the same bytes, a connection each (labels/s) | %.0f |\n",
          Double(count) / ncS)
          + String(
            format: "| labels/s against nc: separate jobs, copies of one job | %.0f%%, %.0f%% |\n",
            ncS / oursS * 100, ncS / copiesS * 100)
        : "| nc | failed |\n"))
}
