import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Labels on a simulated DYMO LabelManager PnP (12 mm D1 tape at 180 dpi by default): the
/// job decodes, with labeld's own decoder, to the preview a client sees, turned into the
/// head's orientation (the label's top edge on head dot 0, its right-hand end printed
/// first), after DYMO's leader.
@Suite struct DymoLMPrintingTests {
  @Test func tapeTemplateJob_printsThePreview_turnedOntoTheHead() throws {
    try withDaemon(["--simulate", "lm=dymo-lm"]) { d in
      let template: JSONValue = [
        "name": "bin", "media": ["widthMM": 30, "lengthMM": 9, "grow": true, "marginMM": 2],
        "elements": [
          ["type": "box", "x": 0, "y": 0, "width": 4, "height": 9, "thickness": 0.5],
          ["type": "text", "x": 5, "y": 1, "width": 24, "height": 7, "text": "${name}"],
        ],
      ]
      let data: JSONValue = ["name": "M4 screws"]
      let printed = try d.printTemplate(template, data: data, on: "lm", ext: "lm")
      let decoded = try DymoLMDecoder(headDots: 64).decode(printed.output)
      #expect(decoded.pages.count == 1 && decoded.tapeColour == 0)
      let image = try #require(decoded.pages.first?.image)
      let preview = printed.preview
      #expect(preview.height == 64 && preview.blackCount > 100)
      // The PnP's leader (75 lines less the 58 to the cutter), the label, the trailer and
      // the feed to the cutter.
      let leader = 75 - 58
      #expect(image.height == leader + preview.width + 75 + 58)
      var turned = Bitmap(width: 64, height: preview.width)
      for y in 0..<preview.height {
        for x in 0..<preview.width where preview[x, y] { turned[y, preview.width - 1 - x] = true }
      }
      var page = Bitmap(width: 64, height: preview.width)
      for y in 0..<preview.width {
        for x in 0..<64 where image[x, y + leader] { page[x, y] = true }
      }
      #expect(page == turned)
      #expect(page.blackCount == image.blackCount)
      let native = try printed.client.call(
        "labels.render",
        ["template": "bin", "data": data, "printer": "sim:lm", "format": "native"],
        as: RenderResult.self)
      #expect(native.mediaType == "application/vnd.dymo-lm")
      #expect(Data(base64Encoded: native.data).map { [UInt8]($0) } == printed.output)
    }
  }
}
