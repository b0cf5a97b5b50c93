import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelTestKit
import Testing

/// TSPL over the real libusb path, against the emulated TSC TX200 (Tests/Emulators): what
/// it prints is the bitmap sent, its `<ESC>!?` byte reaches the one alert channel, and a
/// label held back by a fault prints once. In `USBPrinterTests`, which runs its emulator
/// tests one at a time.
extension USBPrinterTests {
  static let tspl = "usb:1203:0230:T1"

  @Test func pngOnTSPL_theEmulatedPrinterPrintsTheBitmapSent_oneLabelPerCopy() throws {
    try USBEmulator.run(printers: ["tspl:T1"]) { bus, d in
      let c = try d.client()
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      let printer = try #require(printers.first { $0.id == Self.tspl })
      #expect(printer.language == .tspl && printer.model == "TSC TX200" && printer.dpi == 203)
      let devices = try c.call("devices.list", as: DevicesResult.self)
      let device = try #require(devices.devices.first { $0.printer == Self.tspl })
      #expect(device.status == .ok && device.driver == "TSC TX200")
      #expect(device.message.contains("vendor and product id"))
      let table = try labelctl(["--socket", d.socketPath, "devices"])
      #expect(table.status == 0 && table.stdout.contains("1203:0230  ok"))
      #expect(table.stdout.contains(Self.tspl) && table.stdout.contains("TSC TX200"))

      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 601, height: 233)
      let id = try Self.submitPNG(c, printer: Self.tspl, card, copies: 2)
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 2)
      #expect(bus.files("T1", prefix: "label-").filter { $0.hasSuffix(".pbm") }.count == 2)
      // The media is not known over USB: the label is the image's size, and the printer's
      // own gap sensing is left alone (no GAP).
      #expect(bus.page("T1", 1, prefix: "label-") == card)
      #expect(bus.page("T1", 2, prefix: "label-") == card)
      let commands = String(decoding: bus.file("T1", "label-1.txt") ?? [], as: UTF8.self)
      #expect(commands.contains("BITMAP 0,0,76,233,0,") && !commands.contains("GAP"))
    }
  }

  /// A fault before the job (paper out, the head or the cover open): a printerError naming
  /// it, nothing printed while it lasts, then exactly one label once the printer says it is
  /// ready again.
  @Test(arguments: [("04", Reason.mediaEmpty), ("01", .coverOpen), ("40", .coverOpen)])
  func tsplFault_jobWaits_andPrintsOnce(status: String, reason: Reason) throws {
    try Self.faultHoldsTheJob_thenItPrintsOnce(
      "tspl:T1", serial: "T1", printer: Self.tspl, set: "status \(status)", clear: "status 00",
      reason: reason)
  }
}
