import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Labels that reach printers as images: templates on a Brother QL, PNG documents on a
/// Brother QL and a ZPL printer. Every check decodes the bytes the simulated printer
/// received, with our own decoders, back to the 1-bit image.
@Suite struct RasterPrintingTests {
  static let ql = BrotherQLModel.named("QL-820NWB")!
  static let roll62 = BrotherQLMedia.named("62")!

  /// The printed area of a QL job the simulator received, un-mirrored, page by page.
  static func qlPages(_ bytes: [UInt8]) throws -> [Bitmap] {
    let job = try BrotherQLRasterDecoder(model: ql).decode(bytes)
    return job.pages.map { $0.bitmap(media: roll62, model: ql) }
  }

  /// The one `^GFA` graphic of a ZPL label, `width` dots wide (a graphic's rows are whole
  /// bytes; `^PW` is the media's width, not the graphic's).
  static func zplGraphic(_ zpl: String, width: Int) throws -> Bitmap {
    let start = try #require(zpl.range(of: "^GFA,")).upperBound
    let fields = zpl[start...].split(separator: ",", maxSplits: 3)
    let total = try #require(Int(fields[0]))
    let perRow = try #require(Int(fields[2]))
    let data = String(fields[3].prefix { $0 != "^" })
    let rows = total / perRow
    let bytes = try #require(ZebraHex.decode(data, bytesPerRow: perRow, rows: rows))
    #expect(perRow == (width + 7) / 8)
    var bitmap = Bitmap(width: width, height: rows)
    let padded = Bitmap(width: perRow * 8, height: rows, bytes: bytes)
    for y in 0..<rows {
      for x in 0..<perRow * 8 where padded[x, y] {
        if x < width {
          bitmap[x, y] = true
        } else {
          Issue.record("dot (\(x), \(y)) in the padding")
        }
      }
    }
    return bitmap
  }

  /// A test card: a frame, a diagonal, a checkerboard corner, an odd width.
  static func testCard(width: Int, height: Int) -> Bitmap {
    var b = Bitmap(width: width, height: height)
    for x in 0..<width {
      b[x, 0] = true
      b[x, height - 1] = true
    }
    for y in 0..<height {
      b[0, y] = true
      b[width - 1, y] = true
      b[y * width / height, y] = true
    }
    for y in 3..<20 { for x in 3..<20 where (x + y) % 2 == 0 { b[x, y] = true } }
    return b
  }

  static func submitPNG(
    _ c: BlockingConnection, _ w: BlockingConnection, printer: String, _ bitmap: Bitmap
  )
    throws -> Int
  {
    let job = try Fixtures.submitPNG(c, printer: printer, bitmap)
    try w.waitForJob(job.id)
    return job.id
  }

  @Test func pngDocument_onBrotherQL_decodesToTheSourceImage() throws {
    try withDaemon { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let card = Self.testCard(width: 601, height: 233)
      let id = try Self.submitPNG(c, w, printer: "sim:ql", card)
      let output = try #require(d.simOutput("ql", job: id, ext: "ql"))
      let pages = try Self.qlPages(output)
      let page = try #require(pages.first)
      #expect(pages.count == 1)
      // One pixel per dot from the printable area's top-left; the rest stays white.
      #expect(page.height == 233)
      for y in 0..<page.height {
        for x in 0..<page.width where page[x, y] != (x < 601 && card[x, y]) {
          Issue.record("dot (\(x), \(y)) differs")
          return
        }
      }
    }
  }

  /// A PNG smaller than the label, on a Zebra with 2 x 1 in labels at 203 dpi: the bytes
  /// the printer received set `^PW` and `^LL` to the media (406 x 203 dots), not to the
  /// image (397 x 150), because both persist on the printer (Zebra's ZPL II Programming
  /// Guide) and a narrower `^PW` would clip the next job that relies on the configured
  /// width; the image is placed at the top-left as before, dot for dot.
  @Test func pngDocument_onZPL_isAGraphicOfTheSourceImage_onTheMediasWidth() throws {
    try withDaemon(["--simulate", "zebra=zpl,dpi=203,width=50.8,length=25.4"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let card = Self.testCard(width: 397, height: 150)
      let id = try Self.submitPNG(c, w, printer: "sim:zebra", card)
      let output = try #require(d.simOutput("zebra", job: id, ext: "zpl"))
      let zpl = String(decoding: output, as: UTF8.self)
      #expect(zpl.hasPrefix("^XA^PW406^LL203^LH0,0^FO0,0^GFA,"))
      #expect(zpl.components(separatedBy: "^PW").count == 2)
      #expect(zpl.components(separatedBy: "^LL").count == 2)
      #expect(try Self.zplGraphic(zpl, width: 397) == card)
    }
  }

  /// On continuous media the job gives the label's length (the image's height); the
  /// width is still the media's.
  @Test func pngDocument_onZPLContinuous_setsTheMediaWidth_andTheImagesLength() throws {
    try withDaemon(["--simulate", "roll=zpl,dpi=300,width=101.6,length=0"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let card = Self.testCard(width: 601, height: 333)
      let id = try Self.submitPNG(c, w, printer: "sim:roll", card)
      let zpl = String(
        decoding: try #require(d.simOutput("roll", job: id, ext: "zpl")), as: UTF8.self)
      #expect(zpl.hasPrefix("^XA^PW1200^LL333^LH0,0^FO0,0^GFA,"))
      #expect(try Self.zplGraphic(zpl, width: 601) == card)
    }
  }

  /// A template job on a Brother QL is the rasterised label: the very bitmap the PNG
  /// preview for that printer shows (the roll's printable area), and every barcode in it
  /// reads back with zbarimg from the bytes the printer received.
  @Test func templateJob_onBrotherQL_printsThePreview_andItsBarcodesScan() throws {
    try withDaemon { d in
      let template: JSONValue = [
        "name": "codes", "media": ["widthMM": 62, "lengthMM": 100],
        "elements": [
          [
            "type": "text", "x": 4, "y": 3, "width": 54, "height": 8, "text": "${name}",
            "weight": "bold",
          ],
          [
            "type": "barcode", "x": 8, "y": 14, "height": 12, "symbology": "ean13",
            "data": "${gtin}",
          ],
          [
            "type": "barcode", "x": 8, "y": 36, "height": 10, "symbology": "code128",
            "data": "${sku}", "moduleWidth": 0.25,
          ],
          ["type": "barcode", "x": 8, "y": 56, "height": 30, "symbology": "qr", "data": "${url}"],
          [
            "type": "barcode", "x": 12, "y": 82, "height": 10, "symbology": "upca",
            "data": "${upc}",
          ],
        ],
      ]
      let data: JSONValue = [
        "name": "Wholemeal flour 1 kg", "gtin": "4006381333931", "sku": "SKU-77/Q",
        "url": "https://shop.example/p/SKU-77", "upc": "036000291452",
      ]
      let printed = try d.printTemplate(template, data: data, on: "ql", ext: "ql")
      let page = try #require(try Self.qlPages(printed.output).first)
      // The preview for sim:ql is the page: the 62 mm roll's 696 printable dots (of the
      // label's 732), 100 mm long.
      #expect(printed.preview.width == 696 && printed.preview.height == 1181)
      #expect(page == printed.preview, "the printed page is not the preview")
      let read = Set(try ZBar.decode(try PNGCodec.encode(page)))
      // zbar reads UPC-A as EAN-13 with a leading zero.
      #expect(
        read == ["4006381333931", "SKU-77/Q", "https://shop.example/p/SKU-77", "0036000291452"])
    }
  }

  /// The README's promise: a Brother QL preview is the very bitmap that prints, so sent back
  /// as a PNG document it prints as it shows, dot for dot (it was 732 dots wide, the label,
  /// where the printer takes 696, and was refused as larger than the roll).
  @Test func qlPreview_is696Wide_andPrintedBackAsPNG_printsTheSameBitmap() throws {
    try withDaemon(["--simulate", "ql=brother-ql", "--seed", Repository.path("seeds")]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let preview = try c.call(
        "labels.render",
        ["template": "price-tag-62", "sku": "SKU-1001", "printer": "sim:ql", "format": "png"],
        as: RenderResult.self)
      #expect(preview.width == Self.roll62.printableWidth && preview.width == 696)
      let png = [UInt8](try #require(Data(base64Encoded: preview.data)))
      let shown = try PNGCodec.decodeBitmap(png)
      #expect(shown.width == 696 && shown.height == preview.height && shown.blackCount > 0)
      // The preview's own bytes, submitted as they came.
      let job = try Fixtures.submitPNG(c, printer: "sim:ql", png: png)
      try w.waitForJob(job.id)
      let pages = try Self.qlPages(try #require(d.simOutput("ql", job: job.id, ext: "ql")))
      #expect(pages.count == 1)
      #expect(pages.first == shown, "the printed bitmap is not the preview")
    }
  }

  /// At 203 dpi a ZPL printer takes images as graphics: the preview, sent back as a PNG
  /// document, reaches the printer as the same dots, and its barcodes still scan.
  @Test func preview203_printedAsPNG_onZPL_scans() throws {
    try withDaemon(["--simulate", "big=zpl,dpi=203,width=101.6,length=152.4"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let template: JSONValue = [
        "name": "codes", "media": ["widthMM": 100, "lengthMM": 150],
        "elements": [
          [
            "type": "barcode", "x": 10, "y": 10, "height": 15, "symbology": "ean13",
            "data": "4006381333931",
          ],
          [
            "type": "barcode", "x": 10, "y": 40, "height": 15, "symbology": "upca",
            "data": "036000291452",
          ],
          [
            "type": "barcode", "x": 10, "y": 70, "height": 12, "symbology": "code128",
            "data": "1Z999AA10123456784",
          ],
          [
            "type": "barcode", "x": 10, "y": 100, "height": 35, "symbology": "qr",
            "data": "Größe 42",
          ],
        ],
      ]
      try c.call("templates.save", ["template": template])
      let preview = try c.call(
        "labels.render", ["template": "codes", "data": [:], "printer": "sim:big", "format": "png"],
        as: RenderResult.self)
      #expect(preview.width == 799 && preview.height == 1199)  // 100 x 150 mm at 203 dpi
      let png = [UInt8](try #require(Data(base64Encoded: preview.data)))
      let bitmap = try PNGCodec.decodeBitmap(png)
      let id = try Self.submitPNG(c, w, printer: "sim:big", bitmap)
      let output = try #require(d.simOutput("big", job: id, ext: "zpl"))
      let zpl = String(decoding: output, as: UTF8.self)
      #expect(zpl.hasPrefix("^XA^PW812^LL1218^LH0,0"))  // the media: 101.6 x 152.4 mm
      let printed = try Self.zplGraphic(zpl, width: bitmap.width)
      #expect(printed == bitmap)
      let read = Set(try ZBar.decode(try PNGCodec.encode(printed)))
      #expect(read == ["4006381333931", "0036000291452", "1Z999AA10123456784", "Größe 42"])
    }
  }
}
