import Foundation
import LabelCore
import LabelKit
import LabelPOSIX

/// labeld at rest: resident and proportional set size (`/proc/PID/smaps_rollup`) a few
/// seconds after it is ready, and again once it has been at rest long enough to hand back
/// what it does not use (`--rest-after`, 10 s by default: read at 25 s, after its idle
/// loops, CUPS's look for a server among them, have run again), with CUPS and USB on and
/// off, after it first draws a label (which maps the drawing stack), and after a spell of
/// requests; and which lazily loaded libraries are mapped.
@MainActor func idleSection() throws {
  emit(
    "| labeld | RSS 3 s after start (MB) | PSS (MB) | RSS at rest (MB) | PSS at rest (MB) "
      + "| lazily loaded libraries mapped |")
  emit("|---|---:|---:|---:|---:|---|")
  let printers = ["--no-config", "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql"]
  for (name, extra, draws, busy) in [
    ("CUPS and USB on (defaults)", [] as [String], false, false),
    ("CUPS and USB off", ["--no-cups", "--no-usb"], false, false),
    ("CUPS and USB on, after one preview", [], true, false),
    ("CUPS and USB on, after 5,000 printers.list and 500 jobs", [], false, true),
  ] {
    progress(name)
    let home = config.work.appendingPathComponent("idle-\(extra.count)-\(draws)-\(busy)")
    let (daemon, socket) = try startDaemon(home, printers + extra)
    defer { stopDaemon(daemon) }
    let started = now()
    let c = try BlockingConnection(socketPath: socket)
    if draws { try drawOnePreview(c) }
    // Settled: start-up's transient pages are not what it holds for months.
    usleep(3_000_000)
    let pid = daemon.processIdentifier
    let early = (rollupKB("Rss:", pid), rollupKB("Pss:", pid))
    var restFrom = started
    if busy {
      try serveASpell(c)
      restFrom = now()
    }
    let wait = Int64(restFrom + 25_000_000_000) - Int64(now())
    if wait > 0 { usleep(UInt32(wait / 1000)) }
    let rest = (rollupKB("Rss:", pid), rollupKB("Pss:", pid))
    emit(
      "| \(name) | \(mb(early.0)) | \(mb(early.1)) | \(mb(rest.0)) | \(mb(rest.1)) "
        + "| \(lazyLibraries(pid)) |")
  }
}

private func mb(_ kb: Int) -> String { String(format: "%.1f", Double(kb) / 1024) }

/// A template and one PNG preview of it: the drawing stack is loaded and used.
private func drawOnePreview(_ c: BlockingConnection) throws {
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

/// Work enough to map what requests run (and to count as a busy spell): listings and
/// native jobs to the instant simulated Zebra.
private func serveASpell(_ c: BlockingConnection) throws {
  for i in 0..<5_000 {
    try c.call("printers.list", [:])
    if i % 10 == 0 {
      try c.call(
        "jobs.submit",
        [
          "printer": "sim:zebra",
          "document": [
            "format": "native",
            "data": .string(
              Data("^XA^FO20,20^A0N,30,30^FDidle \(i)^FS^XZ".utf8).base64EncodedString()),
          ],
        ])
    }
  }
}

/// A field of `/proc/PID/smaps_rollup`, in KiB.
func rollupKB(_ field: String, _ pid: Int32) -> Int {
  let text = String(
    decoding: (try? PlainFile.read("/proc/\(pid)/smaps_rollup")) ?? [], as: UTF8.self)
  for line in text.split(separator: "\n") where line.hasPrefix(field) {
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
  }
  return 0
}

/// Which of libcups, cairo, pango and libzint the process has mapped ("none").
func lazyLibraries(_ pid: Int32) -> String {
  let maps = String(decoding: (try? PlainFile.read("/proc/\(pid)/maps")) ?? [], as: UTF8.self)
  let found = ["libcups", "libcairo", "libpango-", "libzint", "libmicrohttpd", "libgnutls"].filter {
    lib in
    maps.split(separator: "\n").contains { $0.split(separator: "/").last?.hasPrefix(lib) == true }
  }
  return found.isEmpty
    ? "none" : found.map { $0.trimmingCharacters(in: ["-"]) }.joined(separator: ", ")
}
