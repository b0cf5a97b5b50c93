import Foundation
import LabelCore
import LabelKit
import LabelRender
import LabelTestKit
import Testing

/// Templates printed on ZPL printers: the bytes that reach the (simulated) printer.
@Suite struct TemplatePrintingTests {
  static let expectedMilk =
    "^XA^CI28^PW406^LL203^LH0,0"
    + "^FO16,16^A0N,28,28^FB368,1,0,L,0^FH_^FDSoap _5E2^FS"
    + "^FO32,72^BY3^BEN,80,Y,N^FD400638133393^FS"
    + "^FO4,4^GB398,195,2,B,0^FS"
    + "^PQ1^XZ"

  /// The shelf label of product S1 as `labels.render` gives it for sim:zebra (native).
  static func shelfLabel(_ d: DaemonProcess) throws -> RenderResult {
    let c = try d.client()
    try setUp(c)
    return try c.call(
      "labels.render",
      ["template": "shelf", "sku": "S1", "printer": "sim:zebra", "format": "native"],
      as: RenderResult.self)
  }

  static func setUp(_ c: BlockingConnection) throws {
    try c.call("templates.save", ["template": Fixtures.shelfTemplate])
    try c.call(
      "products.save", ["product": ["sku": "S1", "name": "Soap ^2", "barcode": "4006381333931"]])
  }

  @Test func templateJob_sendsNativeZPL_withProductData() throws {
    try withDaemon { d in
      let c = try d.client()
      try Self.setUp(c)
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let job = try c.call(
        "jobs.submit", ["printer": "sim:zebra", "template": "shelf", "sku": "S1", "copies": 2],
        as: JobResult.self
      ).job
      try w.waitForJob(job.id)
      #expect(
        d.simOutput("zebra", job: job.id, ext: "zpl")
          == Array((Self.expectedMilk + Self.expectedMilk).utf8))
    }
  }

  @Test func labelsRenderNative_isTheSameZPL() throws {
    try withDaemon { d in
      let r = try Self.shelfLabel(d)
      let c = try d.client()
      #expect(r.mediaType == "application/vnd.zebra-zpl")
      #expect(r.width == 406 && r.height == 203)
      #expect(Data(base64Encoded: r.data) == Data(Self.expectedMilk.utf8))
      // By language and dpi, without a printer, with literal data.
      let by300 = try c.call(
        "labels.render",
        [
          "template": "shelf", "data": ["name": "X", "barcode": "4006381333931"], "language": "zpl",
          "dpi": 300, "format": "native",
        ],
        as: RenderResult.self)
      #expect(by300.width == 600)
      // Without a printer the media is not known: no ^PW (it would persist on whatever
      // printer the bytes reach), the template's own length.
      #expect(
        String(decoding: Data(base64Encoded: by300.data)!, as: UTF8.self).hasPrefix(
          "^XA^CI28^LL300^LH0,0^FO"))
    }
  }

  @Test func saveAndPrint_savesThenPrints_andAFailedSaveSubmitsNothing() throws {
    try withDaemon { d in
      let c = try d.client()
      try Self.setUp(c)
      let print: JSONValue = ["printer": "sim:zebra", "template": "shelf"]
      let r = try c.call(
        "products.save",
        [
          "product": ["sku": "S1", "name": "Soap ^2", "barcode": "4006381333931"],
          "expectedVersion": 1, "print": print,
        ],
        as: ProductSaveResult.self)
      #expect(r.product.version == 2)
      let job = try #require(r.job)
      #expect(job.printer == "sim:zebra")
      // A save that fails (stale version) submits nothing.
      let e = try #require(
        c.error(
          "products.save",
          [
            "product": ["sku": "S1", "name": "Soap", "barcode": "4006381333931"],
            "expectedVersion": 1, "print": print,
          ]))
      #expect(e.code == 1004)
      #expect(try c.call("jobs.list", [:], as: JobsResult.self).jobs.map(\.id) == [job.id])
    }
  }

  @Test func missingDataAndTooWideTemplates_areRefusedClearly() throws {
    try withDaemon { d in
      let c = try d.client()
      try Self.setUp(c)
      let missing = try #require(
        c.error(
          "jobs.submit",
          ["printer": "sim:zebra", "template": "shelf", "data": ["name": "No barcode"]]))
      #expect(missing.code == -32602)
      #expect(missing.data?["field"] == "data.barcode")
      let badCode = try #require(
        c.error(
          "jobs.submit",
          ["printer": "sim:zebra", "template": "shelf", "data": ["name": "N", "barcode": "12345"]]))
      #expect(badCode.code == -32602)
      #expect(badCode.data?["field"] == "elements[1].data")
      var wide = Fixtures.shelfTemplate.objectValue!
      wide["name"] = "wide"
      wide["media"] = ["widthMM": 101.6, "lengthMM": 152.4]
      try c.call("templates.save", ["template": .object(wide)])
      let tooWide = try #require(
        c.error("jobs.submit", ["printer": "sim:zebra", "template": "wide", "sku": "S1"]))
      #expect(tooWide.code == 1007)
      #expect(tooWide.message.contains("50.8 mm media"))
      #expect(try c.call("jobs.list", [:], as: JobsResult.self).jobs.isEmpty)
    }
  }

  /// GS1: a check digit is verified, never computed. A GTIN-12 in the shelf label's EAN-13
  /// reaches the printer as 0 + its first 11 digits (the printer appends the 12th digit's
  /// value as the 13th); a wrong check digit is refused with -32602 naming the element's
  /// data, at templates.save for literal data and at render/submit for `${barcode}`.
  @Test func gtinCheckDigits_areVerified_neverReplaced() throws {
    try withDaemon { d in
      let c = try d.client()
      try Self.setUp(c)
      let good: JSONValue = [
        "printer": "sim:zebra", "template": "shelf", "format": "native",
        "data": ["name": "Sourdough", "barcode": "036000002126"],
      ]
      let r = try c.call("labels.render", good, as: RenderResult.self)
      let zpl = String(decoding: Data(base64Encoded: r.data) ?? Data(), as: UTF8.self)
      #expect(zpl.contains("^BEN,80,Y,N^FD003600000212^FS"))
      for (method, extra): (String, JSONValue) in [
        ("labels.render", ["format": "native"]), ("labels.render", ["format": "png"]),
        ("jobs.submit", [:]),
      ] {
        var params: [String: JSONValue] = [
          "printer": "sim:zebra", "template": "shelf",
          "data": ["name": "Sourdough", "barcode": "036000002120"],
        ]
        params.merge(extra.objectValue ?? [:]) { $1 }
        let e = try #require(c.error(method, .object(params)))
        #expect(e.code == -32602)
        #expect(e.data?["field"] == "elements[1].data")
        #expect(e.message.contains("check digit is 0, expected 6"), "\(e.message)")
      }
      var literal = Fixtures.shelfTemplate.objectValue!
      var elements = literal["elements"]!.arrayValue!
      var barcode = elements[1].objectValue!
      barcode["data"] = "036000002120"
      elements[1] = .object(barcode)
      literal["elements"] = .array(elements)
      let saved = try #require(c.error("templates.save", ["template": .object(literal)]))
      #expect(saved.code == -32602)
      #expect(saved.data?["field"] == "template.elements[1].data")
      #expect(try c.call("jobs.list", [:], as: JobsResult.self).jobs.isEmpty)
    }
  }

  /// A template narrower and shorter than the loaded labels: the job's ^PW and ^LL are
  /// the media's (2 x 1 in, 406 x 203 dots), as for PNG jobs, so nothing narrower is left
  /// on the printer for the next job.
  @Test func templateJob_setsTheMediasWidthAndLength() throws {
    try withDaemon(["--simulate", "zebra=zpl,dpi=203,width=50.8,length=25.4"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let small: JSONValue = [
        "name": "small", "media": ["widthMM": 30, "lengthMM": 15],
        "elements": [
          ["type": "text", "x": 1, "y": 1, "width": 28, "height": 6, "text": "${name}"]
        ],
      ]
      try c.call("templates.save", ["template": small])
      let job = try c.call(
        "jobs.submit", ["printer": "sim:zebra", "template": "small", "data": ["name": "Hi"]],
        as: JobResult.self
      ).job
      try w.waitForJob(job.id)
      let zpl = String(
        decoding: try #require(d.simOutput("zebra", job: job.id, ext: "zpl")), as: UTF8.self)
      #expect(zpl.hasPrefix("^XA^CI28^PW406^LL203^LH0,0^FO"), "\(zpl)")
    }
  }

  @Test func printerDarknessAndFinishing_goIntoTheLabel() throws {
    try withDaemon(["--simulate", "zebra=zpl,darkness=22,finish=peel"]) { d in
      let r = try Self.shelfLabel(d)
      let zpl = String(decoding: Data(base64Encoded: r.data) ?? Data(), as: UTF8.self)
      #expect(zpl.hasPrefix("~SD22^XA^CI28"))
      #expect(zpl.contains("^MMP"))
    }
  }

  /// A QR code without moduleWidth is fitted to its height on ZPL printers too: 25
  /// modules (version 2) in 20 mm at 203 dpi is 6 dots a module, as the preview draws it.
  @Test func qrWithoutModuleWidth_isFittedToItsHeight_inZPL() throws {
    try withDaemon { d in
      let c = try d.client()
      let template: JSONValue = [
        "name": "qr", "media": ["widthMM": 50.8, "lengthMM": 25.4],
        "elements": [
          ["type": "barcode", "x": 2, "y": 2, "height": 20, "symbology": "qr", "data": "${url}"]
        ],
      ]
      try c.call("templates.save", ["template": template])
      let params: JSONValue = [
        "template": "qr", "data": ["url": "https://example.com/p/1"], "printer": "sim:zebra",
        "format": "native",
      ]
      let r = try c.call("labels.render", params, as: RenderResult.self)
      let zpl = String(decoding: try #require(Data(base64Encoded: r.data)), as: UTF8.self)
      #expect(zpl.contains("^FO16,16^BQN,2,6^FH_^FDMA,https://example.com/p/1^FS"))
      let png: JSONValue = [
        "template": "qr", "data": ["url": "https://example.com/p/1"], "printer": "sim:zebra",
        "format": "png",
      ]
      let preview = try c.call("labels.render", png, as: RenderResult.self)
      let bitmap = try PNGCodec.decodeBitmap(
        [UInt8](try #require(Data(base64Encoded: preview.data))))
      // The preview's symbol: 25 modules of 6 dots from (16, 16); its finder patterns'
      // corners are dark, and the dot past them is white.
      #expect(bitmap[16, 16] && bitmap[16 + 25 * 6 - 1, 16] && !bitmap[16 + 25 * 6, 16])
      #expect(bitmap[16, 16 + 25 * 6 - 1] && !bitmap[16, 16 + 25 * 6])
    }
  }
}
