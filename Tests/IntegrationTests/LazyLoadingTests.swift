import Foundation
import LabelCore
import LabelKit
import LabelPOSIX
import LabelTestKit
import Testing

/// labeld maps libcups and the drawing stack (cairo, pango, libzint) only when it first
/// needs them (docs/benchmarks.md, "Idle memory"): what is mapped is read from the running
/// daemon's /proc/PID/maps.
@Suite struct LazyLoadingTests {
  static func mapped(_ d: DaemonProcess) -> Set<String> {
    // Read to the end with plain reads: /proc files have no size to read up to.
    let maps = String(
      decoding: (try? PlainFile.read("/proc/\(d.process.processIdentifier)/maps")) ?? [],
      as: UTF8.self)
    var names: Set<String> = []
    for line in maps.split(separator: "\n") {
      guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last,
        path.hasPrefix("/")
      else { continue }
      let file = path.split(separator: "/").last.map(String.init) ?? ""
      for lib in ["libcups", "libcairo", "libpango", "libzint", "libgnutls"]
      where file.hasPrefix(lib + ".") || file.hasPrefix(lib + "-") {
        names.insert(lib)
      }
    }
    return names
  }

  @Test func aLabeldPrintingNativeZPL_mapsNeitherCUPSNorTheDrawingStack_untilItDraws() throws {
    try withDaemon { d in
      let c = try d.client()
      #expect(Self.mapped(d).isEmpty)
      // A ZPL template job is drawn by the printer: text and EAN-13 as ZPL commands.
      try TemplatePrintingTests.setUp(c)
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let job = try c.call(
        "jobs.submit", ["printer": "sim:zebra", "template": "shelf", "sku": "S1"],
        as: JobResult.self
      ).job
      try w.waitForJob(job.id)
      #expect(
        d.simOutput("zebra", job: job.id, ext: "zpl")
          == Array(TemplatePrintingTests.expectedMilk.utf8))
      #expect(Self.mapped(d).isEmpty, "mapped after a native ZPL job: \(Self.mapped(d))")
      // A preview is drawn by labeld: now cairo, pango and libzint (the EAN-13) are mapped,
      // and the preview is a PNG of the label.
      let r = try c.call(
        "labels.render",
        ["template": "shelf", "sku": "S1", "printer": "sim:zebra", "format": "png"],
        as: RenderResult.self)
      #expect(r.width == 406 && r.height == 203)
      #expect(Data(base64Encoded: r.data)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
      #expect(Self.mapped(d) == ["libcairo", "libpango", "libzint"])
    }
  }

  /// With CUPS on but no server anywhere (no CUPS_SERVER, no client.conf, no local
  /// scheduler), labeld says so and never loads libcups.
  @Test(
    .enabled(
      if: access("/etc/cups/client.conf", F_OK) != 0 && access("/run/cups/cups.sock", F_OK) != 0,
      "this machine has a CUPS configuration or scheduler: labeld rightly loads libcups"))
  func cupsOn_withNoServerAnywhere_libcupsStaysUnloaded() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    try withDaemon(
      DaemonProcess.defaultArguments + ["--cups"],
      environment: ["CUPS_SERVER": "", "HOME": home.path]
    ) { d in
      let c = try d.client()
      #expect(try c.call("printers.list", [:], as: PrintersResult.self).printers.count == 2)
      if d.log.contains("localhost:631") {
        #expect(d.log.contains("CUPS: no server to ask"))
        #expect(!Self.mapped(d).contains("libcups"))
        #expect(!Self.mapped(d).contains("libgnutls"))
      } else {
        // Something listens on localhost:631: a server may answer, so libcups was asked.
        #expect(Self.mapped(d).contains("libcups"))
      }
    }
  }
}
