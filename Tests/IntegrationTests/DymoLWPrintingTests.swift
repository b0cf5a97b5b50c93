import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Labels on a simulated DYMO LabelWriter 450 (1.125 x 3.5 in address labels at 300 dpi by
/// default): what it received decodes, with labeld's own decoder, to the preview a client
/// sees, and its barcodes scan.
@Suite struct DymoLWPrintingTests {
  @Test func templateJob_printsThePreview_dotForDot_andItsBarcodesScan() throws {
    try withDaemon(["--simulate", "lw=dymo-lw,darkness=3"]) { d in
      let template: JSONValue = [
        "name": "shelf", "media": ["widthMM": 28.6, "lengthMM": 88.9],
        "elements": [
          [
            "type": "text", "x": 2, "y": 3, "width": 24, "height": 6, "text": "${name}",
            "weight": "bold",
          ],
          [
            "type": "barcode", "x": 2, "y": 12, "height": 14, "symbology": "ean13",
            "moduleWidth": 0.254,
            "data": "${gtin}",
          ],
          ["type": "barcode", "x": 3, "y": 40, "height": 22, "symbology": "qr", "data": "${url}"],
        ],
      ]
      let data: JSONValue = [
        "name": "Tea 250 g", "gtin": "4006381333931", "url": "https://shop.example/p/tea",
      ]
      let printed = try d.printTemplate(template, data: data, on: "lw", ext: "lw")
      let (c, output, previewBitmap) = (printed.client, printed.output, printed.preview)
      let decoded = try DymoLWDecoder().decode(output)
      #expect(decoded.pages.count == 1 && decoded.density == .dark)
      #expect(decoded.pages[0].labelLength == 1050 && decoded.pages[0].fullFeed)
      #expect(previewBitmap.width == 338 && previewBitmap.height == 1050)
      // The printed page is whole bytes wide (344 dots); its last six columns are white.
      let image = try #require(decoded.pages.first?.image)
      #expect(image.width == 344 && image.height == 1050)
      var cropped = Bitmap(width: 338, height: 1050)
      for y in 0..<1050 { for x in 0..<344 where image[x, y] { cropped[x, y] = true } }
      #expect(cropped.blackCount == image.blackCount && cropped == previewBitmap)
      #expect(
        Set(try ZBar.decode(try PNGCodec.encode(cropped))) == [
          "4006381333931", "https://shop.example/p/tea",
        ])
      let native = try c.call(
        "labels.render",
        ["template": "shelf", "data": data, "printer": "sim:lw", "format": "native"],
        as: RenderResult.self)
      #expect(native.mediaType == "application/vnd.dymo-lw")
      #expect(Data(base64Encoded: native.data).map { [UInt8]($0) } == output)
    }
  }

  /// The same on a simulated LabelWriter 550: one `ESC D` block, the preview's dots.
  @Test func lw550_templateJob_printsThePreview() throws {
    try withDaemon(["--simulate", "lw5=dymo-lw5"]) { d in
      let template: JSONValue = [
        "name": "bin", "media": ["widthMM": 28.6, "lengthMM": 88.9],
        "elements": [
          ["type": "text", "x": 2, "y": 3, "width": 24, "height": 6, "text": "${name}"],
          ["type": "barcode", "x": 3, "y": 20, "height": 22, "symbology": "qr", "data": "${url}"],
        ],
      ]
      let data: JSONValue = ["name": "Bin 7", "url": "https://shop.example/bin/7"]
      let printed = try d.printTemplate(template, data: data, on: "lw5", ext: "lw5")
      let (output, previewBitmap) = (printed.output, printed.preview)
      let decoded = try DymoLW5Decoder().decode(output)
      #expect(decoded.pages.count == 1 && decoded.ended && decoded.statusRequests == 1)
      let image = try #require(decoded.pages.first?.image)
      #expect(image.width == 344 && image.height == 1050)
      var cropped = Bitmap(width: 338, height: 1050)
      for y in 0..<1050 { for x in 0..<344 where image[x, y] { cropped[x, y] = true } }
      #expect(cropped.blackCount == image.blackCount && cropped == previewBitmap)
      #expect(try ZBar.decode(try PNGCodec.encode(cropped)) == ["https://shop.example/bin/7"])
    }
  }
}
