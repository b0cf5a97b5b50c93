import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// A QL-820NWB with a red/black roll over the real libusb path (Tests/Emulators): with
/// `--red-black-roll` its 62 mm roll shows as red/black and labels go in two colours, the
/// emulated printer printing each plane; without it a two-colour roll refuses the black
/// job, a `mediaMismatch` alert naming the job, held until the roll is declared.
extension USBPrinterTests {
  @Test func redBlackRoll_printsBothPlanes_whenDeclared() throws {
    try USBEmulator.run(printers: ["ql820:A1B2"], arguments: ["--red-black-roll", Self.ql]) {
      bus, d in
      try bus.apply("A1B2", "media 62red")
      let c = try d.client()
      let w = try Self.subscriber(d)
      let printer = try #require(
        try c.call("printers.refresh", as: PrintersResult.self).printers.first { $0.id == Self.ql })
      #expect(printer.media?.redBlack == true)
      var black = Bitmap(width: 300, height: 160)
      black.fill(x: 0, y: 0, width: 100, height: 160)
      var red = Bitmap(width: 300, height: 160)
      red.fill(x: 150, y: 20, width: 120, height: 100)
      let png = try PNGCodec.encode(black: black, red: red)
      let id = try Fixtures.submitPNG(c, printer: Self.ql, png: png).id
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      Self.expectPage(bus.page("A1B2", 1), equals: black)
      Self.expectPage(bus.page("A1B2", 1, suffix: "-red"), equals: red)
    }
  }

  @Test func redBlackRoll_undeclared_refusesTheBlackJob_asMediaMismatch() throws {
    try USBEmulator.run(printers: ["ql820:A1B2"]) { bus, d in
      try bus.apply("A1B2", "media 62red")
      let c = try d.client()
      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 200, height: 160)
      let id = try Self.submitPNG(c, printer: Self.ql, card)
      let alert = try w.waitForPrinterError(Self.ql, reason: .mediaMismatch)
      #expect(alert["job"] == .int(id))
      #expect(bus.files("A1B2", prefix: "page-").isEmpty)
      // The black roll goes back in: the job prints, once.
      try bus.control("A1B2 media 62")
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      Self.expectPage(bus.page("A1B2", 1), equals: card)
    }
  }
}
