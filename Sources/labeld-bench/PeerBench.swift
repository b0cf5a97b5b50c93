import Foundation
import LabelCore
import LabelKit

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The same labels through LPrint's path and labeld's, side by side (issue #15): a PNG
/// submitted COUNT times from a shell loop, one client process per label (`lprint
/// submit`, `labelctl print`), timed from the first submit to the last label written
/// (LPrint's `file://` device; labeld's simulated printer, the last `labelctl` waiting
/// until it is printed). Both decode the PNG, encode it and write it out;
/// LPrint also dithers. Where LPrint has the driver: EPL2 and DYMO LabelWriter 4xx.
@MainActor func peerSection() throws {
  let labelctl = URL(fileURLWithPath: config.labeld).deletingLastPathComponent()
    .appendingPathComponent("labelctl").path
  guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/lprint"),
    FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
  else {
    emit("LPrint not run: it needs root, /usr/bin/lprint (make deps) and unshare.")
    return
  }
  guard FileManager.default.isExecutableFile(atPath: labelctl) else {
    emit("labelctl not found next to \(config.labeld)")
    return
  }
  let home = config.work.appendingPathComponent("peers")
  try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  let count = 20
  // A 4 x 6 in label at 203 dpi and a 2.25 x 1.25 in label at 300 dpi (the head's 672
  // dots), 8-bit grey with the printer's dpi in pHYs: LPrint draws it one pixel a dot.
  let cases = [
    (
      name: "EPL2 4 x 6 in, 203 dpi", driver: "epl2_4inch-203dpi-dt", sim: "ep=epl2",
      printer: "sim:ep", width: 812, height: 1218, dpi: 203
    ),
    (
      name: "DYMO LW 450 2.25 x 1.25 in, 300 dpi", driver: "dymo_lw-450",
      sim: "lw=dymo-lw,width=57.15,length=31.75", printer: "sim:lw", width: 672, height: 375,
      dpi: 300
    ),
  ]
  let (daemon, sock) = try startDaemon(
    home, ["--no-usb", "--no-cups"] + cases.flatMap { ["--simulate", $0.sim] })
  defer { stopDaemon(daemon) }
  var rows = ""
  for c in cases {
    let png = home.appendingPathComponent("\(c.printer.dropFirst(4)).png").path
    try greyPNG(width: c.width, height: c.height, dpi: c.dpi, to: png)
    progress("\(c.name): LPrint, \(count) labels")
    let theirs = run(
      "/bin/sh",
      [URL(fileURLWithPath: "scripts/lprint-bench.sh").path, c.driver, png, String(count)])
    progress("\(c.name): labeld, \(count) labels")
    // The same loop in the same shell: COUNT - 1 submits, then one that waits until it is
    // printed (one printer prints in order, so all are).
    let print = "\(labelctl) --socket \(sock) print \(c.printer) --file \(png) --format png"
    let loop = """
      start=$(date +%s%N)
      for i in $(seq 2 \(count)); do \(print) >/dev/null || exit 1; done
      \(print) --wait >/dev/null || exit 1
      end=$(date +%s%N)
      echo $(( (end - start) / \(count) / 1000 ))
      """
    let ours = run("/bin/sh", ["-c", loop])
    // Without client processes: the same submits from one connection, until the last ends.
    let inProcess = try submitAndWait(png: png, printer: c.printer, socket: sock, count: count)
    let ms = { (text: String?) in
      text.flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.map { $0 / 1000 }
    }
    rows +=
      ms(ours).map {
        String(
          format: "| %@: labeld per label, PNG submitted to printed (ms) | %.1f |\n", c.name, $0)
      } ?? "| \(c.name): labeld | failed |\n"
    rows += String(
      format: "| %@: labeld per label, one client connection (ms) | %.1f |\n", c.name, inProcess)
    rows +=
      ms(theirs).map {
        String(format: "| %@: LPrint per label, the same loop (ms) | %.1f |\n", c.name, $0)
      } ?? "| \(c.name): LPrint | failed |\n"
  }
  emitTable(rows)
}

/// `count` jobs.submit of the PNG at `png` from one client, then waits (at most 60 s) for
/// the last to complete: milliseconds per label.
private func submitAndWait(png: String, printer: String, socket: String, count: Int) throws
  -> Double
{
  let c = try BlockingConnection(socketPath: socket)
  let w = try BlockingConnection(socketPath: socket)
  try w.call("subscribe", ["topics": ["jobs"]])
  let data = try Data(contentsOf: URL(fileURLWithPath: png)).base64EncodedString()
  let doc: JSONValue = ["format": "png", "data": .string(data)]
  let t0 = now()
  var last = 0
  for _ in 0..<count {
    last = try c.call(
      "jobs.submit", ["printer": .string(printer), "document": doc], as: JobResult.self
    ).job.id
  }
  let deadline = now() + 60_000_000_000
  while now() < deadline {
    guard let n = try? w.nextNotification(timeout: 0.5) else { continue }
    if n.params["id"]?.intValue == last, n.params["state"] == "completed" {
      return Double(now() - t0) / 1e6 / Double(count)
    }
  }
  throw BenchError.failed("job \(last) on \(printer) did not complete within 60 s")
}
