import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// A CUPS server elsewhere adds labeld's printer as an IPP Everywhere queue
/// (`lpadmin -m everywhere`: cupsd asks labeld's attributes and builds the PPD from them),
/// and `lp` prints a PDF, a PNG and a JPEG through it, each landing on the simulated
/// printer (the PDF's barcode read back from the kept label by zbarimg). A fault on the
/// printer shows in the CUPS queue's printer-state-reasons and in `lpstat`, and comes to
/// labeld's one alert channel once, naming the IPP job.
@Suite(.serialized) struct IPPCUPSTests {
  static let arguments = [
    "--simulate", "zebra=zpl,dpi=203,width=50.8,length=25.4", "--listen-ipp", "127.0.0.1:0",
  ]

  @Test func anEverywhereQueue_printsDocuments_andShowsFaults() throws {
    if let reason = CUPSHarness.unavailableReason {
      print("IPPCUPSTests skipped: \(reason)")
      return
    }
    try withDaemon(Self.arguments) { d in
      let port = try d.ippPort()
      let token = try d.token("cups-server", role: "operator")
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs", "alerts"]])
      // A label with a barcode, as labeld draws it for this printer, in a PDF of its size.
      let c = try d.client()
      try c.call("templates.save", ["template": Fixtures.shelfTemplate])
      try c.call(
        "products.save", ["product": ["sku": "S1", "name": "Soap", "barcode": "4006381333931"]])
      let preview = try c.call(
        "labels.render",
        ["template": "shelf", "sku": "S1", "printer": "sim:zebra", "format": "png"],
        as: RenderResult.self)
      let label = try PNGCodec.decodeBitmap(
        [UInt8](try #require(Data(base64Encoded: preview.data))))
      let dir = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: dir) }
      let pdf = dir.appendingPathComponent("shelf.pdf")
      try Data(try PDFWriter.document(pages: [label], dpi: 203)).write(to: pdf)
      let png = dir.appendingPathComponent("card.png")
      try Data(try PNGCodec.encode(IPPSamples.pattern(406, 203))).write(to: png)
      try IPPSamples.jpeg(dir, "photo.jpg", width: 406, height: 203, colour: true)

      try CUPSHarness.run { cups in
        // The queue: cupsd builds its PPD from labeld's attributes in the background.
        let uri = "ipp://cups:\(token)@127.0.0.1:\(port)/ipp/print/sim:zebra"
        try cups.tool("/usr/sbin/lpadmin", ["-p", "labels", "-E", "-v", uri, "-m", "everywhere"])
        let ppd = cups.directory.appendingPathComponent("ppd/labels.ppd").path
        let errorLog = cups.directory.appendingPathComponent("log/error_log").path
        try cups.waitUntil("cupsd made the PPD for labels", timeout: 60) {
          let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
          return FileManager.default.fileExists(atPath: ppd) || log.contains("PPD creation failed")
        }
        let ppdText = (try? String(contentsOfFile: ppd, encoding: .utf8)) ?? ""
        #expect(ppdText.contains("*cupsFilter2:"), "no PPD: \(cups.logs)")
        // The label's size is the PPD's default page size (see PWGMedia.database).
        #expect(ppdText.contains("*DefaultPageSize: 2x1\n") && ppdText.contains("*PageSize 2x1:"))

        var ids: [Int] = []
        for file in [pdf, png, dir.appendingPathComponent("photo.jpg")] {
          try cups.tool("/usr/bin/lp", ["-d", "labels", file.path])
          let job = try w.waitFor("job", timeout: 60) {
            $0["state"] == "completed" && !ids.contains($0["id"]?.intValue ?? 0)
          }
          ids.append(try #require(job["id"]?.intValue))
        }
        for id in ids {
          let job = try c.call("jobs.get", ["job": .int(id)])["job"]
          #expect(job?["origin"]?["kind"] == "ipp" && job?["origin"]?["user"] == "cups")
        }
        // The PDF's barcode, read back from the dots the printer got.
        let zpl = String(
          decoding: try #require(d.simOutput("zebra", job: ids[0], ext: "zpl")), as: UTF8.self)
        let printed = try RasterPrintingTests.zplGraphic(zpl, width: 406)
        if ZBar.available {
          let read = try ZBar.decode(try PNGCodec.encode(printed))
          #expect(
            read.contains("4006381333931"),
            "\(read)\n\(d.log.split(separator: "\n").filter { $0.contains("ipp:") }.joined(separator: "\n"))"
          )
        }
        // The PNG's dots are the card's.
        let card = String(
          decoding: try #require(d.simOutput("zebra", job: ids[1], ext: "zpl")), as: UTF8.self)
        #expect(
          try RasterPrintingTests.zplGraphic(card, width: 406) == IPPSamples.pattern(406, 203))

        // A fault: the queue shows it, the alert names the IPP job; cleared, it prints.
        try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])
        try cups.tool("/usr/bin/lp", ["-d", "labels", pdf.path])
        let alert = try w.waitFor("alert", timeout: 60) {
          $0["state"] == "active" && $0["reason"] == "coverOpen" && $0["job"]?.intValue != nil
        }
        let held = try #require(alert["job"]?.intValue)
        #expect(try c.call("jobs.get", ["job": .int(held)])["job"]?["origin"]?["kind"] == "ipp")
        try cups.waitUntil("lpstat shows the printer's fault", timeout: 60) {
          ((try? cups.tool("/usr/bin/lpstat", ["-l", "-p", "labels"])) ?? "").contains("cover-open")
        }
        try c.call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
        try w.waitForJob(held, timeout: 60)
        // One printerError for the fault, naming the job: no second one.
        let raised = try c.call("alerts.active", [:], as: AlertsResult.self).alerts
        #expect(raised.isEmpty, "\(raised)")
      }
    }
  }
}
