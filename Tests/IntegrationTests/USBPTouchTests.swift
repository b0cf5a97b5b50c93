import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Brother P-touch over the real libusb path, against the emulated PT-P700
/// (Tests/Emulators): it is found with the tape its status names, a label prints as the
/// bitmap sent, turned onto the head, and each fault the status reports (no tape, the
/// cover open, the tape at its end, a cassette for another job) holds the label with a
/// printerError naming the job until it is cleared, after which the label prints once. In
/// `USBPrinterTests`, which runs its emulator tests one at a time.
extension USBPrinterTests {
  static let ptouch = "usb:04f9:2061:P7"
  /// The print area of the 12 mm tape on the PT-P700's head: 70 pins.
  static let ptouch12 = 70

  /// What the emulated P-touch prints for `label` (a label as it reads, `pins` or fewer
  /// dots high) as its page-N.pbm shows it: the head's pins from the print area's first,
  /// one row per raster line. The page labeld's driver takes is the label turned a quarter
  /// counter-clockwise (its top edge along page column 0, its right-hand end in row 0), and
  /// the driver puts page column x on pin `left margin + pins - 1 - x`, as Debian's
  /// `rastertoptch` does with a CUPS landscape page (BrotherPTEncoder): the label's top
  /// edge is the print area's last pin, the pbm's last column.
  static func ptouchPrints(_ label: Bitmap, pins: Int = ptouch12) -> Bitmap {
    let page = label.turnedCounterClockwise()
    var head = Bitmap(width: pins, height: page.height)
    for y in 0..<page.height {
      for x in 0..<page.width where page[x, y] { head[pins - 1 - x, y] = true }
    }
    return head
  }

  @Test func ptouch_isListedWithItsTape_andAPNGPrintsAsSent_onePagePerCopy() throws {
    try USBEmulator.run(printers: ["ptouch:P7"]) { bus, d in
      let c = try d.client()
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      let printer = try #require(printers.first { $0.id == Self.ptouch })
      #expect(printer.transport == .usb && printer.language == .brotherPT && printer.dpi == 180)
      #expect(printer.model == "Brother PT-P700", "\(printer.model)")
      #expect(printer.media == Media(widthMM: 12, lengthMM: 0, kind: "tape"))
      let devices = try c.call("devices.list", as: DevicesResult.self)
      let device = try #require(devices.devices.first { $0.printer == Self.ptouch })
      #expect(device.status == .ok && device.driver == "PT-P700", "\(device)")
      #expect(device.deviceID?.contains("MDL:PT-P700") == true)
      let table = try labelctl(["--socket", d.socketPath, "devices"])
      #expect(table.status == 0 && table.stdout.contains("04f9:2061  ok"), "\(table.stdout)")
      #expect(table.stdout.contains(Self.ptouch) && table.stdout.contains("PT-P700"))

      // A label as it reads: 160 dots along the tape, the 12 mm tape's 70 across.
      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 160, height: Self.ptouch12)
      let id = try Self.submitPNG(c, printer: Self.ptouch, card, copies: 2)
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 2)
      #expect(bus.files("P7", prefix: "page-") == ["page-1.pbm", "page-2.pbm"])
      #expect(bus.page("P7", 1) == Self.ptouchPrints(card))
      #expect(bus.page("P7", 2) == Self.ptouchPrints(card))
      // Its top-left corner is on the print area's last pin, on the last line printed.
      #expect(bus.page("P7", 1)?[Self.ptouch12 - 1, card.width - 1] == true)
      #expect(!bus.events.contains("P7 page"), "the emulator noted something:\n\(bus.events)")
      // Each copy is a job of its own (confirmed page by page): its bytes decode, with
      // labeld's own decoder, to the page the driver took, for the 12 mm tape.
      #expect(bus.files("P7", prefix: "job-") == ["job-1.pt", "job-2.pt"])
      let p700 = try #require(BrotherPTModel.named("PT-P700"))
      let tape = try #require(p700.head.tape(widthMM: 12))
      let pages = try BrotherPTRasterDecoder(model: p700).decode(
        try #require(bus.file("P7", "job-1.pt"))
      ).pages
      #expect(pages.count == 1)
      #expect(pages.first?.bitmap(tape: tape) == card.turnedCounterClockwise())
      #expect(pages.first?.printInformation?.tapeWidthMM == 12)
    }
  }

  /// A label lower than the tape lies along the tape's top edge (page column 0): its dots
  /// on the print area's last pins, the rest of the tape white. One taller than the tape's
  /// print area is refused, naming the tape.
  @Test func ptouch_aLowLabelLiesAlongTheTopEdge_andATallOneIsRefused() throws {
    try USBEmulator.run(printers: ["ptouch:P7"]) { bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      let low = RasterPrintingTests.testCard(width: 90, height: 40)
      let id = try Self.submitPNG(c, printer: Self.ptouch, low)
      _ = try w.waitForJob(id)
      let page = try #require(bus.page("P7", 1))
      #expect(page == Self.ptouchPrints(low))
      var outside = 0
      for y in 0..<page.height {
        for x in 0..<(Self.ptouch12 - 40) where page[x, y] { outside += 1 }
      }
      #expect(outside == 0 && page.blackCount == low.blackCount)

      let tall = RasterPrintingTests.testCard(width: 90, height: Self.ptouch12 + 1)
      let refused = c.error(
        "jobs.submit",
        [
          "printer": .string(Self.ptouch),
          "document": [
            "format": "png", "data": .string(Data(try PNGCodec.encode(tall)).base64EncodedString()),
          ],
        ])
      #expect(refused?.code == 1007, "\(String(describing: refused))")
      #expect(refused?.message.contains("12 mm") == true, "\(String(describing: refused))")
      #expect(bus.files("P7", prefix: "page-") == ["page-1.pbm"])
    }
  }

  /// A template on the tape prints exactly the preview `labels.render` gives for this
  /// printer, turned onto the head: the seed `bin-tape` with a seed product.
  @Test func ptouch_aTemplatePrintsItsPreview() throws {
    try USBEmulator.run(printers: ["ptouch:P7"], arguments: ["--seed", Repository.path("seeds")]) {
      bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      let product = try #require(
        try c.call("products.list", [:], as: ProductsResult.self).products.first)
      let render = try c.call(
        "labels.render",
        [
          "template": "bin-tape", "sku": .string(product.sku), "printer": .string(Self.ptouch),
          "format": "png",
        ], as: RenderResult.self)
      let preview = try PNGCodec.decodeBitmap(
        [UInt8](try #require(Data(base64Encoded: render.data))))
      #expect(preview.height == Self.ptouch12 && preview.blackCount > 100)
      let id = try c.call(
        "jobs.submit",
        ["printer": .string(Self.ptouch), "template": "bin-tape", "sku": .string(product.sku)],
        as: JobResult.self
      ).job.id
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      #expect(bus.page("P7", 1) == Self.ptouchPrints(preview))
    }
  }

  /// Waits (up to 10 s) until labeld shows the tape the emulated P-touch reports: a label
  /// is drawn for the tape known when it is submitted, and these tests mean the 12 mm one.
  static func waitForTape(_ c: BlockingConnection, mm: Double = 12) throws {
    let tape = Media(widthMM: mm, lengthMM: 0, kind: "tape")
    for _ in 0..<200 {
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      if printers.first(where: { $0.id == ptouch })?.media == tape { return }
      usleep(50_000)
    }
    Issue.record("labeld never showed \(mm) mm tape on \(ptouch)")
  }

  /// A fault the P-touch reports before the job: a printerError naming the job, nothing
  /// printed while it lasts, then, once cleared, exactly one label.
  @Test(arguments: [
    ("tape none", "tape 12", Reason.mediaEmpty),
    ("cover open", "cover closed", .coverOpen),
    ("tape-end", "tape-end off", .mediaEmpty),
    ("incompatible", "incompatible off", .mediaMismatch),
    ("cutter jam", "cutter ok", .cutterError),
    ("overheat on", "overheat off", .headError),
  ])
  func ptouchFault_jobWaits_andPrintsOnce(set: String, clear: String, reason: Reason) throws {
    try USBEmulator.run(printers: ["ptouch:P7"]) { bus, d in
      try Self.waitForTape(try d.client())
      let label = RasterPrintingTests.testCard(width: 120, height: 60)
      let held = try Self.jobHeldByFault(
        bus, d, serial: "P7", printer: Self.ptouch, command: set, reason: reason, card: label)
      let (c, w, id) = (held.client, held.events, held.id)
      #expect(try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job.printed == 0)
      #expect(bus.files("P7", prefix: "page-").isEmpty && bus.files("P7", prefix: "job-").isEmpty)
      try bus.control("P7 \(clear)")
      _ = try w.waitForPrinterError(Self.ptouch, state: "cleared")
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      #expect(bus.files("P7", prefix: "page-") == ["page-1.pbm"])
      #expect(bus.page("P7", 1) == Self.ptouchPrints(label))
    }
  }

  /// Out of tape with labels waiting: each is drawn for the tape that ran out (the last
  /// one the printer named), so when that cassette is back every one prints, once, even
  /// one submitted after the printer had said it has no tape.
  @Test func ptouch_labelsSentWhileOutOfTape_allPrintOnTheTapeThatComesBack() throws {
    try USBEmulator.run(printers: ["ptouch:P7"]) { bus, d in
      let c = try d.client()
      try Self.waitForTape(c)
      let first = RasterPrintingTests.testCard(width: 100, height: 60)
      let second = RasterPrintingTests.testCard(width: 140, height: 50)
      let held = try Self.jobHeldByFault(
        bus, d, serial: "P7", printer: Self.ptouch, command: "tape none", reason: .mediaEmpty,
        card: first)
      let w = held.events
      // Polls come and go while the fault lasts (every 500 ms, growing), each reading a
      // status with no tape in it: the printer keeps showing the tape that ran out. (A
      // window to look in, not a speed: a slow run sees fewer polls.)
      let until = Date().addingTimeInterval(2)
      while until.timeIntervalSinceNow > 0,
        let n = try? w.nextNotification(timeout: until.timeIntervalSinceNow)
      {
        #expect(
          !(n.method == "printer" && n.params["media"] == nil),
          "the printer forgot its tape: \(n.params)")
      }
      let shown = try c.call("printers.list", as: PrintersResult.self).printers
        .first { $0.id == Self.ptouch }
      #expect(shown?.reasons == [.mediaEmpty])
      #expect(shown?.media == Media(widthMM: 12, lengthMM: 0, kind: "tape"))
      let later = try Self.submitPNG(c, printer: Self.ptouch, second)
      try bus.control("P7 tape 12")
      #expect(try w.waitForJob(held.id)["printed"] == 1)
      #expect(try w.waitForJob(later)["printed"] == 1)
      #expect(bus.files("P7", prefix: "page-") == ["page-1.pbm", "page-2.pbm"])
      #expect(bus.page("P7", 1) == Self.ptouchPrints(first))
      #expect(bus.page("P7", 2) == Self.ptouchPrints(second))
    }
  }

  /// The printer's own bytes for 12 mm tape while a 24 mm cassette is in: `mediaMismatch`
  /// naming the job, not a byte of it sent (the printer would refuse it, "replace media"),
  /// and it prints once the 12 mm tape is back.
  @Test func ptouch_aJobFor12mm_with24mmLoaded_waitsForTheTape_withoutSendingIt() throws {
    try USBEmulator.run(printers: ["ptouch:P7"]) { bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      try bus.apply("P7", "tape 24")
      let label = RasterPrintingTests.testCard(width: 120, height: Self.ptouch12)
      let model = try #require(DriverTable.model(named: "PT-P700", language: .brotherPT))
      let driver = try DriverTable.driver(for: model)
      let bytes = try driver.encode(
        pages: [label.turnedCounterClockwise()],
        media: Media(widthMM: 12, lengthMM: 0, kind: "tape"), dpi: 180)
      let id = try c.call(
        "jobs.submit",
        [
          "printer": .string(Self.ptouch),
          "document": ["format": "native", "data": .string(Data(bytes).base64EncodedString())],
        ], as: JobResult.self
      ).job.id
      // The alert says which tape the job is for and which is in (a poll may have raised
      // the bare fault a moment before the job's own check said why).
      let alert = try w.waitFor("alert", timeout: 30) {
        $0["kind"] == "printerError" && $0["printer"] == .string(Self.ptouch)
          && $0["state"] == "active" && $0["reason"] == "mediaMismatch"
          && $0["message"]?.stringValue?.contains(
            "(the job is for 12 mm tape but 24 mm tape is loaded)") == true
      }
      #expect(alert["job"] == .int(id), "\(alert)")
      #expect(alert["message"]?.stringValue?.contains("does not fit the job") == true)
      #expect(bus.files("P7", prefix: "job-").isEmpty && bus.files("P7", prefix: "page-").isEmpty)
      #expect(!bus.events.contains("replace media"), "the job reached the printer")
      try bus.control("P7 tape 12")
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      #expect(bus.files("P7", prefix: "page-") == ["page-1.pbm"])
      #expect(bus.page("P7", 1) == Self.ptouchPrints(label))
      #expect(bus.file("P7", "job-1.pt") == bytes)
    }
  }

  /// A PNG job held by a fault while 12 mm tape is in, the cassette changed for 24 mm
  /// meanwhile: the label is the 12 mm tape's, so it waits for that tape (`mediaMismatch`
  /// naming it, nothing printed) and prints once when the 12 mm tape is back.
  @Test func ptouch_theCassetteChangedUnderAHeldJob_isAMismatch_untilItIsBack() throws {
    try USBEmulator.run(printers: ["ptouch:P7"]) { bus, d in
      try Self.waitForTape(try d.client())
      let label = RasterPrintingTests.testCard(width: 120, height: Self.ptouch12)
      let (w, id) = try Self.jobHeldByFault(
        bus, d, serial: "P7", printer: Self.ptouch, command: "cover open", reason: .coverOpen,
        card: label
      ).pair
      try bus.apply("P7", "tape 24")
      try bus.control("P7 cover closed")
      let alert = try w.waitForPrinterError(Self.ptouch, reason: .mediaMismatch)
      #expect(alert["job"] == .int(id), "\(alert)")
      #expect(bus.files("P7", prefix: "page-").isEmpty)
      try bus.control("P7 tape 12")
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      #expect(bus.files("P7", prefix: "page-") == ["page-1.pbm"])
      #expect(bus.page("P7", 1) == Self.ptouchPrints(label))
    }
  }

  /// The cover opens while the page prints: the printer answers an error status instead
  /// of "printing completed", the copy is not counted, and it prints once after the cover
  /// closes.
  @Test func ptouch_coverOpensMidJob_theCopyIsNotCounted_andPrintsOnceAfterwards() throws {
    try USBEmulator.run(printers: ["ptouch:P7"]) { bus, d in
      let label = RasterPrintingTests.testCard(width: 200, height: Self.ptouch12)
      let (w, id) = try Self.jobHeldByFault(
        bus, d, serial: "P7", printer: Self.ptouch, command: "fail-next-page cover",
        reason: .coverOpen, card: label
      ).pair
      #expect(bus.events.contains("P7 error page not printed"))
      try bus.control("P7 cover closed")
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      #expect(bus.files("P7", prefix: "page-") == ["page-1.pbm"])
      #expect(bus.page("P7", 1) == Self.ptouchPrints(label))
    }
  }
}
