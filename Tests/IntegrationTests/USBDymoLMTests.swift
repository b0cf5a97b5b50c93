import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// DYMO LabelManager PnP over the real libusb path, against the emulated printer
/// (Tests/Emulators): a label prints as the bitmap sent, turned onto the head, and its
/// `ESC A` answer reaches the one alert channel: no cassette or an overheated head holds
/// the label with a printerError naming the job, and it prints once when that clears. In
/// `USBPrinterTests`, which runs its emulator tests one at a time.
extension USBPrinterTests {
  static let labelManager = "usb:0922:1002:M1"

  /// Whether `printed` (the emulator's label-N.pbm: the 12 mm tape's 64 head dots, one row
  /// per line fed) is `label` (as it reads, 64 dots high) turned onto the head: the page
  /// the driver takes is the label turned a quarter counter-clockwise (its top edge on head
  /// dot 0, its right-hand end fed first), after the PnP's leader (its 75 lines less the
  /// 58 that lie between the head and the tape's exit, DYMO's NormalLeader and MinLeader),
  /// and nothing else is inked.
  static func labelManagerPrinted(_ printed: Bitmap?, _ label: Bitmap) -> Bool {
    let page = label.turnedCounterClockwise()
    let leader = 75 - 58
    guard let printed, printed.width == 64, printed.height >= leader + page.height else {
      return false
    }
    var lines = Bitmap(width: 64, height: page.height)
    for y in 0..<page.height {
      for x in 0..<64 where printed[x, leader + y] { lines[x, y] = true }
    }
    return lines == page && printed.blackCount == page.blackCount
  }

  @Test func labelManager_isListed_andAPNGAndATemplatePrintAsSent() throws {
    try USBEmulator.run(printers: ["dymolm:M1"]) { bus, d in
      let c = try d.client()
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      let printer = try #require(printers.first { $0.id == Self.labelManager })
      #expect(printer.transport == .usb && printer.language == .dymoLM && printer.dpi == 180)
      #expect(printer.model == "DYMO LabelManager PnP", "\(printer.model)")
      let devices = try c.call("devices.list", as: DevicesResult.self)
      let device = try #require(devices.devices.first { $0.printer == Self.labelManager })
      #expect(device.status == .ok && device.driver == "DYMO LabelManager PnP", "\(device)")
      let table = try labelctl(["--socket", d.socketPath, "devices"])
      #expect(table.status == 0 && table.stdout.contains("0922:1002  ok"), "\(table.stdout)")
      #expect(table.stdout.contains(Self.labelManager))

      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 150, height: 64)
      let id = try Self.submitPNG(c, printer: Self.labelManager, card)
      #expect(try w.waitForJob(id)["printed"] == 1)
      // The PnP has no cutter: a label ends when the host pauses (the emulator's gap).
      #expect(bus.waitForEvent("M1 printed label 1"), "\(bus.events)")
      #expect(Self.labelManagerPrinted(bus.page("M1", 1, prefix: "label-"), card))

      let template: JSONValue = [
        "name": "bin", "media": ["widthMM": 30, "lengthMM": 9, "grow": true, "marginMM": 2],
        "elements": [
          ["type": "box", "x": 0, "y": 0, "width": 4, "height": 9, "thickness": 0.5],
          ["type": "text", "x": 5, "y": 1, "width": 24, "height": 7, "text": "${name}"],
        ],
      ]
      let data: JSONValue = ["name": "M4 screws"]
      try c.call("templates.save", ["template": template])
      let render = try c.call(
        "labels.render",
        [
          "template": "bin", "data": data, "printer": .string(Self.labelManager),
          "format": "png",
        ], as: RenderResult.self)
      let preview = try PNGCodec.decodeBitmap(
        [UInt8](try #require(Data(base64Encoded: render.data))))
      #expect(preview.height == 64 && preview.blackCount > 100)
      let job = try c.call(
        "jobs.submit",
        ["printer": .string(Self.labelManager), "template": "bin", "data": data],
        as: JobResult.self
      ).job.id
      #expect(try w.waitForJob(job)["printed"] == 1)
      #expect(bus.waitForEvent("M1 printed label 2"), "\(bus.events)")
      #expect(Self.labelManagerPrinted(bus.page("M1", 2, prefix: "label-"), preview))
    }
  }

  /// A LabelManager that names its tape in its `ESC A` answer (byte 1, as DYMO's driver
  /// reads it on the PnP, 420P and 450; the emulated PnP's `size-code on`): labeld shows
  /// that tape, from the status it reads when the printer is plugged in and from the one
  /// after each label.
  @Test func labelManager_namingItsTape_showsThatTape() throws {
    try USBEmulator.run(printers: ["dymolm:M1"]) { bus, d in
      let c = try d.client()
      func shown(_ mm: Double) throws -> Bool {
        let tape = Media(widthMM: mm, lengthMM: 0, kind: "tape")
        for _ in 0..<200 {
          let printers = try c.call("printers.list", as: PrintersResult.self).printers
          if printers.first(where: { $0.id == Self.labelManager })?.media == tape { return true }
          usleep(50_000)
        }
        return false
      }
      // Plugged in again with a 9 mm cassette and the size code on: found as it is now.
      try bus.control("M1 unplug")
      #expect(bus.waitForEvent("M1 unplugged"))
      try bus.apply("M1", "size-code on")
      try bus.apply("M1", "tape 9")
      try bus.control("M1 plug")
      #expect(try shown(9))
      // The cassette changed for a 6 mm one: the answer after the next label says so.
      try bus.apply("M1", "tape 6")
      let w = try Self.subscriber(d)
      let id = try Self.submitPNG(
        c, printer: Self.labelManager, RasterPrintingTests.testCard(width: 80, height: 30))
      #expect(try w.waitForJob(id)["printed"] == 1)
      #expect(try shown(6))
    }
  }

  /// No cassette, or the head too hot: a printerError naming the job while nothing
  /// prints, then exactly one label once the printer says it is ready again.
  @Test(arguments: [
    ("tape none", "tape 12", Reason.mediaEmpty),
    ("overheat on", "overheat off", .headError),
  ])
  func labelManagerFault_jobWaits_andPrintsOnce(set: String, clear: String, reason: Reason)
    throws
  {
    try Self.faultHoldsTheJob_thenItPrintsOnce(
      "dymolm:M1", serial: "M1", printer: Self.labelManager, set: set, clear: clear,
      reason: reason, card: RasterPrintingTests.testCard(width: 120, height: 64),
      shows: Self.labelManagerPrinted)
  }
}
