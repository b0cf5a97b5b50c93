import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Labels to the emulated QL-820NWB over the real libusb path (umockdev; the emulator is
/// Tests/Emulators/usbprinter.py): bytes/s, labeld's CPU per label, and the gaps between
/// labels. Rows say "skipped" where umockdev is not installed.
func usbThroughput(labeld: String, labels: Int = 20) -> String {
  let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Emulators/usbprinter.py").path
  guard FileManager.default.isExecutableFile(atPath: "/usr/bin/umockdev-wrapper") else {
    return "| USB (emulated QL-820NWB) | skipped: umockdev is not installed (make deps) |\n"
  }
  let home = FileManager.default.temporaryDirectory.appendingPathComponent(
    "labeld-bench-usb-\(getpid())")
  try? FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: home) }
  let sock = home.appendingPathComponent("s").path
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-wrapper")
  p.arguments = [
    "/usr/bin/python3", script, "--dir", home.appendingPathComponent("bus").path, "--printer",
    "ql820:BENCH", "--", labeld, "--socket", sock, "--state-dir",
    home.appendingPathComponent("state").path, "--log-level", "error",
  ]
  p.standardError = FileHandle.nullDevice
  guard (try? p.run()) != nil else { return "| USB (emulated) | cannot start the emulator |\n" }
  defer {
    p.terminate()
    p.waitUntilExit()
  }
  var tries = 0
  while (try? BlockingConnection(socketPath: sock)) == nil, tries < 2000, p.isRunning {
    usleep(5000)
    tries += 1
  }
  // labeld is the emulator's child.
  let children =
    (try? String(
      contentsOfFile: "/proc/\(p.processIdentifier)/task/\(p.processIdentifier)/children",
      encoding: .utf8)) ?? ""
  guard let pid = Int32(children.split(separator: " ").first ?? ""),
    let c = try? BlockingConnection(socketPath: sock),
    let w = try? BlockingConnection(socketPath: sock)
  else { return "| USB (emulated) | labeld did not start on the emulated bus |\n" }
  func cpuSeconds() -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return 0 }
    let f = stat[stat.index(after: close)...].split(separator: " ")
    let ticks = (Double(f[11]) ?? 0) + (Double(f[12]) ?? 0)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
  }
  // A full 62 x 100 mm label (696 x 1181 dots) of noise: PackBits cannot shrink it, so
  // each label is the ~106 KB of raw raster the estimate is about.
  var page = Bitmap(width: 696, height: 1181)
  var seed: UInt64 = 42
  for y in 0..<page.height {
    for x in 0..<page.width {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      if seed >> 62 == 0 { page[x, y] = true }
    }
  }
  guard let png = try? PNGCodec.encode(page) else { return "| USB | cannot encode |\n" }
  let printer = "usb:04f9:209d:BENCH"
  do {
    try w.call("subscribe", ["topics": ["jobs"]])
    let cpu0 = cpuSeconds()
    let t0 = DispatchTime.now().uptimeNanoseconds
    let job = try c.call(
      "jobs.submit",
      [
        "printer": .string(printer), "copies": .int(labels),
        "document": ["format": "png", "data": .string(Data(png).base64EncodedString())],
      ], as: JobResult.self
    ).job
    while true {
      let n = try w.nextNotification(timeout: 120)
      if n.params["id"] == .int(job.id), n.params["state"] == "completed" { break }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    let cpu = cpuSeconds() - cpu0
    let jobBytes =
      (try? Data(contentsOf: home.appendingPathComponent("bus/BENCH/job-1.ql")))?.count ?? 0
    // Gaps between consecutive "printed page" events of the emulator.
    let events =
      (try? String(contentsOf: home.appendingPathComponent("bus/events.log"), encoding: .utf8))
      ?? ""
    let times = events.split(separator: "\n").filter { $0.contains("printed page") }
      .compactMap { Double($0.split(separator: " ")[0]) }
    let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
    var out = String(
      format: "| USB, emulated QL-820NWB: %d labels of %d bytes (62 x 100 mm, raw) | %.2f s |\n",
      labels, jobBytes, seconds)
    out += String(
      format: "| USB: bytes/s to the printer (labels/s) | %.0f (%.1f) |\n",
      Double(jobBytes * labels) / seconds, Double(labels) / seconds)
    out += String(
      format: "| USB: labeld CPU per label (ms) | %.1f |\n", cpu * 1000 / Double(labels))
    if let median = gaps.dropFirst(gaps.count / 2).first, let worst = gaps.last {
      out += String(
        format: "| USB: label-to-label interval, median / worst (ms) | %.1f / %.1f |\n",
        median * 1000, worst * 1000)
    }
    return out
  } catch {
    return "| USB (emulated) | failed: \(error) |\n"
  }
}
