import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelTestKit
import Testing

/// EPL2 over the real libusb path, against the emulated Zebra LP 2844 (Tests/Emulators):
/// what it prints is the bitmap sent, its `^ee` error codes reach the one alert channel, and
/// a label held back by an error prints once. In `USBPrinterTests`, one emulator at a time.
extension USBPrinterTests {
  static let epl2 = "usb:0a5f:0009:E1"

  @Test func pngOnEPL2_theEmulatedPrinterPrintsTheBitmapSent() throws {
    try USBEmulator.run(printers: ["epl2:E1"]) { bus, d in
      let c = try d.client()
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      let printer = try #require(printers.first { $0.id == Self.epl2 })
      #expect(printer.language == .epl2 && printer.model == "Zebra LP 2844" && printer.dpi == 203)
      let devices = try c.call("devices.list", as: DevicesResult.self)
      let device = try #require(devices.devices.first { $0.printer == Self.epl2 })
      #expect(device.status == .ok && device.driver == "Zebra LP 2844")
      let table = try labelctl(["--socket", d.socketPath, "devices"])
      #expect(table.status == 0 && table.stdout.contains("0a5f:0009  ok"))
      #expect(table.stdout.contains(Self.epl2) && table.stdout.contains("Zebra LP 2844"))
      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 333, height: 150)
      let id = try Self.submitPNG(c, printer: Self.epl2, card, copies: 2)
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 2)
      #expect(bus.page("E1", 1, prefix: "label-") == card)
      #expect(bus.page("E1", 2, prefix: "label-") == card)
      // The media is not known over USB: q is the image's width, and no Q is sent, so the
      // label length the printer's calibration found stands.
      let commands = String(decoding: bus.file("E1", "label-1.txt") ?? [], as: UTF8.self)
      #expect(commands.hasPrefix("N\nq333\nGW0,0,42,150\nP1\n"))
    }
  }

  @Test(arguments: [(7, Reason.mediaEmpty), (11, .coverOpen)])
  func epl2Error_jobWaits_andPrintsOnce(code: Int, reason: Reason) throws {
    try Self.faultHoldsTheJob_thenItPrintsOnce(
      "epl2:E1", serial: "E1", printer: Self.epl2, set: "error \(code)", clear: "error 0",
      reason: reason)
  }
}
