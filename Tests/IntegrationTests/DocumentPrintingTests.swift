import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Documents through the one print service, from the socket (the IPP front's path too):
/// a PDF drawn by labeld's PDF process at the printer's dots, a JPEG dithered, and a PDF
/// that cannot be read refused with a reason; labeld goes on.
@Suite struct DocumentPrintingTests {
  static func submit(_ c: BlockingConnection, _ printer: String, _ format: String, _ bytes: [UInt8])
    throws -> Job
  {
    try c.call(
      "jobs.submit",
      [
        "printer": .string(printer),
        "document": [
          "format": .string(format), "data": .string(Data(bytes).base64EncodedString()),
        ],
      ], as: JobResult.self
    ).job
  }

  /// A 2 x 1 in PDF page on the 2 x 1 in Zebra at 203 dpi: the graphic the printer gets is
  /// the page's own dots.
  @Test func aPDFLabel_onZPL_isItsOwnDots() throws {
    try withDaemon { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let card = RasterPrintingTests.testCard(width: 406, height: 203)
      let pdf = try PDFWriter.document(pages: [card], dpi: 203)
      let job = try Self.submit(c, "sim:zebra", "pdf", pdf)
      try w.waitForJob(job.id)
      let zpl = String(
        decoding: try #require(d.simOutput("zebra", job: job.id, ext: "zpl")), as: UTF8.self)
      #expect(try RasterPrintingTests.zplGraphic(zpl, width: 406) == card)
    }
  }

  @Test func documentsThatCannotPrint_areRefused_andLabeldGoesOn() throws {
    try withDaemon { d in
      let c = try d.client()
      for (format, bytes, field) in [
        ("pdf", Array("%PDF-1.7\nnot really".utf8), "document.data"),
        ("jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 0] as [UInt8], "document.data"),
        ("pwg-raster", Array("RaS2 and nothing".utf8), "document.data"),
      ] {
        let e = try #require(
          c.error(
            "jobs.submit",
            [
              "printer": "sim:zebra",
              "document": [
                "format": .string(format), "data": .string(Data(bytes).base64EncodedString()),
              ],
            ]), "\(format)")
        #expect(e.code == -32602 && e.data?["field"] == .string(field), "\(format): \(e)")
      }
      #expect(try c.call("jobs.list")["jobs"] == [])
      #expect(try c.call("hello")["server"] == "labeld")
    }
  }
}
