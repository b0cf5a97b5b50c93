import Foundation
import LabelCUPS
import LabelCore
import LabelKit
import LabelLanguages
import LabelTestKit
import Testing

/// DYMO LabelWriter 550 over the real libusb path, against the emulated printer
/// (Tests/Emulators): each label prints as sent, confirmed by the answer to the job's own
/// `ESC A`; the labels left on the roll show on the printer; a bay fault holds the label,
/// is an alert naming the job, and the label prints once when it clears.
extension USBPrinterTests {
  static let dymo550 = "usb:0922:0028:F1"

  @Test func pngOnDymo550_printsTheBitmapSent_andShowsTheLabelsLeft() throws {
    try USBEmulator.run(printers: ["dymo550:F1"]) { bus, d in
      let c = try d.client()
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      let printer = try #require(printers.first { $0.id == Self.dymo550 })
      #expect(
        printer.language == .dymoLW5 && printer.model == "DYMO LabelWriter 550"
          && printer.dpi == 300)
      let table = try labelctl(["--socket", d.socketPath, "devices"])
      #expect(table.status == 0 && table.stdout.contains("0922:0028  ok"))
      #expect(table.stdout.contains("DYMO LabelWriter 550"))

      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 333, height: 120)
      let id = try Self.submitPNG(c, printer: Self.dymo550, card, copies: 2)
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 2)
      #expect(Self.cardOnHead(bus.page("F1", 1, prefix: "label-"), card))
      #expect(Self.cardOnHead(bus.page("F1", 2, prefix: "label-"), card))
      let commands = String(decoding: bus.file("F1", "label-1.txt") ?? [], as: UTF8.self)
      #expect(commands.contains("ESC D 01 02 120 336") && commands.contains("ESC n 0100"))
      // The roll started with 200 labels; the answer after the second says 198.
      let left = try w.waitFor("printer") {
        $0["id"] == .string(Self.dymo550) && $0["labelsRemaining"] == 198
      }
      #expect(left["labelsRemaining"] == 198)
      let again = try c.call("printers.list", as: PrintersResult.self).printers
      #expect(again.first { $0.id == Self.dymo550 }?.labelsRemaining == 198)
    }
  }

  /// The labels left, as the printer says them, are the IPP printer's supply level (PWG
  /// 5100.13 printer-supply, and marker-levels "some left" as a percent it cannot know);
  /// out of labels, level 0 and media-empty-error.
  @Test func theLabelsLeft_areTheIPPSupplyLevel() throws {
    try USBEmulator.run(
      printers: ["dymo550:F1"], arguments: ["--listen-ipp", "127.0.0.1:0", "--ipp-print", "anyone"]
    ) { bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      let id = try Self.submitPNG(
        c, printer: Self.dymo550, RasterPrintingTests.testCard(width: 333, height: 120))
      _ = try w.waitForJob(id)
      _ = try w.waitFor("printer") {
        $0["id"] == .string(Self.dymo550) && $0["labelsRemaining"] == 199
      }
      let ipp = IPPTestClient(port: try d.ippPort())
      func supply() throws -> IPPTestClient.Answer {
        try ipp.send(
          IPPTestClient.request(
            0x000B, printer: Self.dymo550, port: ipp.port,
            operationAttributes: [
              IPPAttribute(
                "requested-attributes",
                [
                  .keyword("printer-supply"), .keyword("marker-levels"),
                  .keyword("printer-state-reasons"),
                ])
            ]))
      }
      let left = try supply()
      guard case .octetString(let bytes)? = left.attribute("printer-supply")?.values.first else {
        Issue.record("no printer-supply: \(left)")
        return
      }
      #expect(String(decoding: bytes, as: UTF8.self).contains("level=199;"))
      #expect(left.attribute("marker-levels")?.integer == -3)
      // Out of labels (bay status 2), found by the next job's status request.
      try bus.apply("F1", "bay 2")
      _ = try Self.submitPNG(
        c, printer: Self.dymo550, RasterPrintingTests.testCard(width: 333, height: 120))
      _ = try w.waitFor("printer") {
        $0["id"] == .string(Self.dymo550) && $0["reasons"] == ["mediaEmpty"]
      }
      let empty = try supply()
      guard case .octetString(let none)? = empty.attribute("printer-supply")?.values.first else {
        Issue.record("no printer-supply: \(empty)")
        return
      }
      #expect(String(decoding: none, as: UTF8.self).contains("level=0;"))
      #expect(empty.attribute("marker-levels")?.integer == 0)
      #expect(empty.attribute("printer-state-reasons")?.string == "media-empty-error")
    }
  }

  @Test(arguments: [("2", Reason.mediaEmpty), ("1", .coverOpen), ("10", .mediaMismatch)])
  func dymo550Bay_jobWaits_andPrintsOnce(bay: String, reason: Reason) throws {
    try Self.faultHoldsTheJob_thenItPrintsOnce(
      "dymo550:F1", serial: "F1", printer: Self.dymo550, set: "bay \(bay)", clear: "bay 8",
      reason: reason, shows: Self.cardOnHead)
  }
}
