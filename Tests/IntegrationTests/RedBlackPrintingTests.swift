import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Red and black on a simulated QL-820NWB with a DK-22251 roll (`media=62red`): template
/// elements with `"color": "red"` and red pixels of PNG documents print on the red plane,
/// the preview shows both inks, a label with no red is still sent in two-colour mode, and
/// red prints black on every other printer.
@Suite struct RedBlackPrintingTests {
  static let template: JSONValue = [
    "name": "sale", "media": ["widthMM": 62, "lengthMM": 40],
    "elements": [
      [
        "type": "text", "x": 3, "y": 2, "width": 56, "height": 9, "text": "${name}",
        "weight": "bold", "color": "red",
      ],
      ["type": "box", "x": 1, "y": 1, "width": 60, "height": 38, "thickness": 0.5, "color": "red"],
      ["type": "barcode", "x": 6, "y": 14, "height": 16, "symbology": "ean13", "data": "${gtin}"],
    ],
  ]
  static let data: JSONValue = ["name": "SALE -30%", "gtin": "4006381333931"]

  static func planes(_ job: [UInt8], model: String = "QL-820NWB") throws -> (
    black: Bitmap, red: Bitmap, twoColour: Bool
  ) {
    let ql = try #require(BrotherQLModel.named(model))
    let roll = try #require(BrotherQLMedia.named("62red"))
    let page = try #require(try BrotherQLRasterDecoder(model: ql).decode(job).pages.first)
    return (
      page.bitmap(media: roll, model: ql), page.bitmap(media: roll, model: ql, red: true),
      page.twoColour
    )
  }

  @Test func templateWithRed_printsBothPlanes_asThePreviewShowsThem() throws {
    try withDaemon(["--simulate", "ql=brother-ql,model=QL-820NWB,media=62red"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let printer = try #require(
        try c.call("printers.list", as: PrintersResult.self).printers.first { $0.id == "sim:ql" })
      #expect(printer.media?.redBlack == true && printer.media?.widthMM == 62)
      try c.call("templates.save", ["template": Self.template])
      let job = try c.call(
        "jobs.submit", ["printer": "sim:ql", "template": "sale", "data": Self.data],
        as: JobResult.self
      ).job
      try w.waitForJob(job.id)
      let output = try #require(d.simOutput("ql", job: job.id, ext: "ql"))
      let printed = try Self.planes(output)
      #expect(printed.twoColour && printed.red.blackCount > 0 && printed.black.blackCount > 0)
      #expect(printed.black.subtracting(printed.red) == printed.black)  // no dot in both
      // The preview is an RGB PNG in the two inks; its planes are what was printed, dot for
      // dot (the roll's 696 printable dots of the label's 732).
      let preview = try c.call(
        "labels.render",
        ["template": "sale", "data": Self.data, "printer": "sim:ql", "format": "png"],
        as: RenderResult.self)
      let png = [UInt8](try #require(Data(base64Encoded: preview.data)))
      let shown = try PNGCodec.decodeTwoColour(png)
      #expect(shown.black.width == 696 && preview.width == 696)
      #expect(shown.black == printed.black && shown.red == printed.red)
      #expect(try ZBar.decode(try PNGCodec.encode(printed.black)) == ["4006381333931"])
      // Sent back as a PNG document, the preview prints the same two planes.
      let again = try Fixtures.submitPNG(c, printer: "sim:ql", png: png)
      try w.waitForJob(again.id)
      let reprinted = try Self.planes(try #require(d.simOutput("ql", job: again.id, ext: "ql")))
      #expect(reprinted.black == printed.black && reprinted.red == printed.red)
    }
  }

  @Test func blackOnlyLabel_isTwoColourOnARedRoll_andPNGRedIsRed() throws {
    try withDaemon(["--simulate", "ql=brother-ql,media=62red"]) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      // A black card: still two-colour mode, an empty red plane.
      let card = RasterPrintingTests.testCard(width: 400, height: 200)
      let id1 = try RasterPrintingTests.submitPNG(c, w, printer: "sim:ql", card)
      let first = try Self.planes(try #require(d.simOutput("ql", job: id1, ext: "ql")))
      #expect(first.twoColour && first.red.blackCount == 0)
      // A PNG with red pixels: they print red.
      var black = Bitmap(width: 300, height: 160)
      black.fill(x: 0, y: 0, width: 100, height: 160)
      var red = Bitmap(width: 300, height: 160)
      red.fill(x: 150, y: 20, width: 120, height: 100)
      let png = try PNGCodec.encode(black: black, red: red)
      let job = try c.call(
        "jobs.submit",
        [
          "printer": "sim:ql",
          "document": ["format": "png", "data": .string(Data(png).base64EncodedString())],
        ], as: JobResult.self
      ).job
      try w.waitForJob(job.id)
      let second = try Self.planes(try #require(d.simOutput("ql", job: job.id, ext: "ql")))
      #expect(LPrintPeerTests.inked(second.black) == LPrintPeerTests.inked(black))
      #expect(LPrintPeerTests.inked(second.red) == LPrintPeerTests.inked(red))
      #expect(
        second.black.blackCount == black.blackCount && second.red.blackCount == red.blackCount)
    }
  }

  @Test func redPrintsBlack_onPrintersWithoutRed() throws {
    try withDaemon(["--simulate", "ql=brother-ql,media=62", "--simulate", "lw=dymo-lw"]) { d in
      let c = try d.client()
      try c.call("templates.save", ["template": Self.template])
      let native = try c.call(
        "labels.render",
        ["template": "sale", "data": Self.data, "printer": "sim:ql", "format": "native"],
        as: RenderResult.self)
      let job = [UInt8](try #require(Data(base64Encoded: native.data)))
      let ql = try #require(BrotherQLModel.named("QL-820NWB"))
      let page = try #require(try BrotherQLRasterDecoder(model: ql).decode(job).pages.first)
      #expect(!page.twoColour && page.redLines.isEmpty)
      // The one-colour preview is the printed page in black, the red text included.
      let preview = try c.call(
        "labels.render",
        ["template": "sale", "data": Self.data, "printer": "sim:ql", "format": "png"],
        as: RenderResult.self)
      let mono = try PNGCodec.decodeBitmap([UInt8](try #require(Data(base64Encoded: preview.data))))
      #expect(mono.width == 696)
      #expect(page.bitmap(media: try #require(BrotherQLMedia.named("62")), model: ql) == mono)
    }
  }

  @Test func redBlackRoll_needsATwoColourModel() throws {
    let (status, _, err) = try LabeldCommandLineTests.run([
      "--simulate", "ql=brother-ql,model=QL-700,media=62red", "--check-config", "--no-config",
    ])
    #expect(status != 0 && err.contains("QL-700 cannot print red/black rolls"))
    let (status2, _, err2) = try LabeldCommandLineTests.run([
      "--simulate", "z=zpl,media=62red", "--check-config", "--no-config",
    ])
    #expect(status2 != 0 && err2.contains("media=62red is not a ZPL II roll"))
  }
}
