import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Labels on a simulated EPL2 printer (4 x 6 in labels at 203 dpi by default): what it
/// received decodes, with labeld's own EPL2 decoder, to the preview a client sees, and its
/// barcodes scan.
@Suite struct EPL2PrintingTests {
  @Test func templateJob_printsThePreview_dotForDot_andItsBarcodesScan() throws {
    try withDaemon(["--simulate", "lp=epl2,darkness=7"]) { d in
      let data: JSONValue = [
        "name": "Bin A-17", "sku": "BIN-A17", "url": "https://shop.example/bin/A17",
      ]
      let printed = try d.printTemplate(Fixtures.fourBySix("bin"), data: data, on: "lp", ext: "epl")
      let (c, output, previewBitmap) = (printed.client, printed.output, printed.preview)
      let text = String(decoding: output.prefix(40), as: UTF8.self)
      #expect(text.hasPrefix("\nN\nq812\nQ1218,24\nD7\n"))
      let pages = try EPL2Decoder().decode(output).pages
      #expect(pages.count == 1 && pages[0].copies == 1)
      let image = try #require(pages.first?.image)
      #expect(image.width == 812 && image.height == 1218 && image == previewBitmap)
      #expect(
        Set(try ZBar.decode(try PNGCodec.encode(image))) == [
          "BIN-A17", "https://shop.example/bin/A17",
        ])
      let native = try c.call(
        "labels.render",
        ["template": "bin", "data": data, "printer": "sim:lp", "format": "native"],
        as: RenderResult.self)
      #expect(native.mediaType == "application/vnd.zebra-epl2")
      #expect(Data(base64Encoded: native.data).map { [UInt8]($0) } == output)
    }
  }
}
