import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelTestKit
import Testing

/// DYMO LabelWriter 450 over the real libusb path, against the emulated printer
/// (Tests/Emulators): what it prints is the bitmap sent, its `ESC A` byte reaches the one
/// alert channel, and a label held back by a fault prints once. In `USBPrinterTests`, one
/// emulator at a time.
extension USBPrinterTests {
  static let dymo = "usb:0922:0020:D1"

  /// The label's image at the head's left edge: as many dots as the card, the rest white.
  static func cardOnHead(_ page: Bitmap?, _ card: Bitmap) -> Bool {
    guard let page, page.width == 672, page.height == card.height else { return false }
    return LPrintPeerTests.inked(page) == card && page[0, 0] == card[0, 0]
  }

  @Test func pngOnDymoLW_theEmulatedPrinterPrintsTheBitmapSent() throws {
    try USBEmulator.run(printers: ["dymo450:D1"]) { bus, d in
      let c = try d.client()
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      let printer = try #require(printers.first { $0.id == Self.dymo })
      #expect(
        printer.language == .dymoLW && printer.model == "DYMO LabelWriter 450"
          && printer.dpi == 300)
      let devices = try c.call("devices.list", as: DevicesResult.self)
      let device = try #require(devices.devices.first { $0.printer == Self.dymo })
      #expect(device.status == .ok && device.driver == "DYMO LabelWriter 450")
      let table = try labelctl(["--socket", d.socketPath, "devices"])
      #expect(table.status == 0 && table.stdout.contains("0922:0020  ok"))
      #expect(table.stdout.contains(Self.dymo) && table.stdout.contains("DYMO LabelWriter 450"))

      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 301, height: 150)
      let id = try Self.submitPNG(c, printer: Self.dymo, card, copies: 2)
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 2)
      #expect(bus.files("D1", prefix: "label-").filter { $0.hasSuffix(".pbm") }.count == 2)
      #expect(Self.cardOnHead(bus.page("D1", 1, prefix: "label-"), card))
      #expect(Self.cardOnHead(bus.page("D1", 2, prefix: "label-"), card))
      // The media is not known over USB: the label length is the image's (150 lines).
      let commands = String(decoding: bus.file("D1", "label-1.txt") ?? [], as: UTF8.self)
      #expect(commands.contains("ESC D 26") && commands.contains("ESC L 0096"))
    }
  }

  @Test(arguments: [("21", Reason.mediaEmpty), ("C1", .mediaJam)])
  func dymoLWStatus_jobWaits_andPrintsOnce(byte: String, reason: Reason) throws {
    try Self.faultHoldsTheJob_thenItPrintsOnce(
      "dymo450:D1", serial: "D1", printer: Self.dymo, set: "status \(byte)", clear: "status 03",
      reason: reason, shows: Self.cardOnHead)
  }
}
