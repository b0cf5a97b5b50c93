import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Labels on a simulated TSPL printer (4 x 6 in labels at 203 dpi by default): what it
/// received decodes, with labeld's own TSPL decoder, to the preview a client sees and to the
/// PNG sent, and its barcodes scan.
@Suite struct TSPLPrintingTests {
  static let arguments = ["--simulate", "ship=tspl"]

  static func pages(_ bytes: [UInt8]) throws -> [TSPLPage] {
    try TSPLDecoder(dpi: 203).decode(bytes).pages
  }

  @Test func templateJob_printsThePreview_dotForDot_andItsBarcodesScan() throws {
    try withDaemon(Self.arguments) { d in
      let template = Fixtures.fourBySix(
        "parcel",
        more: [
          [
            "type": "barcode", "x": 10, "y": 120, "height": 20, "symbology": "ean13",
            "data": "${gtin}",
          ]
        ])
      let data: JSONValue = [
        "name": "Parcel 7 of 9", "sku": "SHIP-0042", "url": "https://shop.example/t/0042",
        "gtin": "4006381333931",
      ]
      let printed = try d.printTemplate(template, data: data, on: "ship", ext: "tspl")
      let (c, output, previewBitmap) = (printed.client, printed.output, printed.preview)
      let pages = try Self.pages(output)
      let page = try #require(pages.first)
      #expect(pages.count == 1 && page.copies == 1 && !page.continuous && page.sensingSet)
      #expect(page.widthMM == 101.6 && page.lengthMM == 152.4)
      let image = try #require(page.image)
      // TSPL prints the whole label: the page is the preview.
      #expect(image.width == 812 && image.height == 1218)
      #expect(image == previewBitmap)
      let read = Set(try ZBar.decode(try PNGCodec.encode(image)))
      #expect(read == ["SHIP-0042", "https://shop.example/t/0042", "4006381333931"])
      // labels.render native is the same bytes the printer received.
      let native = try c.call(
        "labels.render",
        ["template": "parcel", "data": data, "printer": "sim:ship", "format": "native"],
        as: RenderResult.self)
      #expect(native.mediaType == "application/vnd.tsc-tspl")
      #expect(Data(base64Encoded: native.data).map { [UInt8]($0) } == output)
    }
  }

  /// A PNG document: one pixel per dot at the label's top-left, the rest white; `SIZE` and
  /// `GAP` are the loaded labels', `DENSITY` the printer's darkness.
  @Test func pngDocument_isTheSourceImage_onTheLoadedLabel() throws {
    try withDaemon(["--simulate", "ship=tspl,darkness=11"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let card = RasterPrintingTests.testCard(width: 301, height: 177)
      let id = try RasterPrintingTests.submitPNG(c, w, printer: "sim:ship", card)
      let output = try #require(d.simOutput("ship", job: id, ext: "tspl"))
      let text = String(decoding: output.prefix(120), as: UTF8.self)
      #expect(text.hasPrefix("SIZE 101.6 mm,152.4 mm\r\nGAP 3 mm,0 mm\r\n"))
      #expect(text.contains("DENSITY 11\r\n"))
      let image = try #require(try Self.pages(output).first?.image)
      #expect(image.width == 812 && image.height == 1218)
      for y in 0..<image.height {
        for x in 0..<image.width where image[x, y] != (x < 301 && y < 177 && card[x, y]) {
          Issue.record("dot (\(x), \(y)) differs")
          return
        }
      }
    }
  }
}
