import Foundation
import LabelClient
import LabelCore
import LabelPOSIX

/// labeld at rest: resident and proportional set size (`/proc/PID/smaps_rollup`) a few
/// seconds after it is ready, with CUPS and USB on and off, and after it first draws a
/// label (which maps the drawing stack); and which lazily loaded libraries are mapped.
@MainActor func idleSection() throws {
  emit("| labeld | RSS (MB) | PSS (MB) | lazily loaded libraries mapped |")
  emit("|---|---:|---:|---|")
  let printers = ["--no-config", "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql"]
  for (name, extra, draws) in [
    ("CUPS and USB on (defaults)", [] as [String], false),
    ("CUPS and USB off", ["--no-cups", "--no-usb"], false),
    ("CUPS and USB on, after one preview", [], true),
  ] {
    progress(name)
    let home = config.work.appendingPathComponent("idle-\(extra.count)-\(draws)")
    let (daemon, socket) = try startDaemon(home, printers + extra)
    defer { stopDaemon(daemon) }
    if draws {
      let c = try LabelClient(socketPath: socket)
      try c.call(
        "templates.save",
        [
          "template": [
            "name": "t", "media": ["widthMM": 50.8, "lengthMM": 25.4],
            "elements": [
              ["type": "text", "x": 2, "y": 2, "width": 40, "height": 8, "text": "${name}"],
              [
                "type": "barcode", "x": 2, "y": 11, "height": 10, "symbology": "code128",
                "data": "${name}",
              ],
            ],
          ]
        ])
      try c.call(
        "labels.render",
        ["template": "t", "data": ["name": "ABC-123"], "printer": "sim:zebra", "format": "png"])
    }
    // Settled: start-up's transient pages are not what it holds for months.
    usleep(3_000_000)
    let pid = daemon.processIdentifier
    let (rss, pss) = (rollupKB("Rss:", pid), rollupKB("Pss:", pid))
    emit(
      "| \(name) | \(String(format: "%.1f", Double(rss) / 1024)) | "
        + "\(String(format: "%.1f", Double(pss) / 1024)) | \(lazyLibraries(pid)) |")
  }
}

/// A field of `/proc/PID/smaps_rollup`, in KiB.
private func rollupKB(_ field: String, _ pid: Int32) -> Int {
  let text = String(
    decoding: (try? PlainFile.read("/proc/\(pid)/smaps_rollup")) ?? [], as: UTF8.self)
  for line in text.split(separator: "\n") where line.hasPrefix(field) {
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
  }
  return 0
}

/// Which of libcups, cairo, pango and libzint the process has mapped ("none").
private func lazyLibraries(_ pid: Int32) -> String {
  let maps = String(decoding: (try? PlainFile.read("/proc/\(pid)/maps")) ?? [], as: UTF8.self)
  let found = ["libcups", "libcairo", "libpango-", "libzint"].filter { lib in
    maps.split(separator: "\n").contains { $0.split(separator: "/").last?.hasPrefix(lib) == true }
  }
  return found.isEmpty
    ? "none" : found.map { $0.trimmingCharacters(in: ["-"]) }.joined(separator: ", ")
}
