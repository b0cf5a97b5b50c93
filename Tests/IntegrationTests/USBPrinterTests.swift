import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// The USB transport against emulated printers (umockdev): the real libusb calls, a
/// Brother QL-820NWB that decodes the raster it receives and answers status like the real
/// one, and a Zebra answering ~HQES. Serialized: every emulated transfer busy-polls a core.
@Suite(
  .serialized,
  .enabled(
    if: USBEmulator.available,
    "needs umockdev, gir1.2-umockdev-1.0 and python3-gi for /usr/bin/python3 (make deps installs them)"
  ))
struct USBPrinterTests {
  static let ql = "usb:04f9:209d:A1B2"
  static let zebra = "usb:0a5f:0120:Z9"
  static let both = ["ql820:A1B2", "zebra:Z9"]

  static func submitPNG(_ c: BlockingConnection, printer: String, _ bitmap: Bitmap, copies: Int = 1)
    throws -> Int
  {
    try Fixtures.submitPNG(c, printer: printer, bitmap, copies: copies).id
  }

  static func subscriber(_ d: DaemonProcess) throws -> BlockingConnection {
    let w = try d.client()
    try w.call("subscribe", ["topics": ["alerts", "jobs", "printers"]])
    return w
  }

  /// A fault set on an emulated printer before a job, as each family's tests run it: a
  /// printerError naming the job while nothing prints, then, once `clear` is sent, exactly
  /// one label, which `shows` checks against the card sent (by default a test card).
  static func faultHoldsTheJob_thenItPrintsOnce(
    _ emulator: String, serial: String, printer: String, set: String, clear: String,
    reason: Reason,
    card: Bitmap = RasterPrintingTests.testCard(width: 120, height: 60),
    shows: (Bitmap?, Bitmap) -> Bool = { $0 == $1 },
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    try USBEmulator.run(printers: [emulator]) { bus, d in
      let (w, id) = try jobHeldByFault(
        bus, d, serial: serial, printer: printer, command: set, reason: reason, card: card,
        sourceLocation: sourceLocation
      ).pair
      #expect(bus.files(serial, prefix: "label-").isEmpty, sourceLocation: sourceLocation)
      try bus.control("\(serial) \(clear)")
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1, sourceLocation: sourceLocation)
      // A printer without a cutter (the LabelManager) ends a label when the host pauses:
      // what it printed is there once its emulator says so.
      #expect(bus.waitForEvent("\(serial) printed"), sourceLocation: sourceLocation)
      let labels = bus.files(serial, prefix: "label-").filter { $0.hasSuffix(".pbm") }
      #expect(labels == ["label-1.pbm"], sourceLocation: sourceLocation)
      #expect(shows(bus.page(serial, 1, prefix: "label-"), card), sourceLocation: sourceLocation)
    }
  }

  /// A job the printer's fault holds: the emulator of `serial` is told `command` (when
  /// given), `card` is sent to `printer`, and the printerError with `reason` that follows
  /// must name the job.
  struct HeldJob {
    let client: BlockingConnection
    let events: BlockingConnection
    let id: Int
    var pair: (BlockingConnection, Int) { (events, id) }
  }

  static func jobHeldByFault(
    _ bus: USBEmulator, _ d: DaemonProcess, serial: String = "A1B2", printer: String = ql,
    command: String?, reason: Reason, card: Bitmap,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> HeldJob {
    let c = try d.client()
    let w = try subscriber(d)
    if let command { try bus.apply(serial, command) }
    let id = try submitPNG(c, printer: printer, card)
    let alert = try w.waitForPrinterError(printer, reason: reason)
    #expect(alert["job"] == .int(id), "\(alert)", sourceLocation: sourceLocation)
    return HeldJob(client: c, events: w, id: id)
  }

  /// The test card's dots inside the printed page (the rest must be white).
  static func expectPage(_ page: Bitmap?, equals card: Bitmap) {
    guard let page else {
      Issue.record("no page printed")
      return
    }
    #expect(page.height == max(card.height, 150))
    for y in 0..<page.height {
      for x in 0..<page.width where page[x, y] != (x < card.width && y < card.height && card[x, y])
      {
        Issue.record("printed dot (\(x), \(y)) differs from the bitmap sent")
        return
      }
    }
  }

  @Test func discovery_findsBothPrinters_withTheirIDsDriversAndMedia() throws {
    try USBEmulator.run(printers: Self.both) { _, d in
      let c = try d.client()
      let printers = try c.call("printers.list", as: PrintersResult.self).printers
      let ql = try #require(printers.first { $0.id == Self.ql })
      #expect(ql.transport == .usb && ql.language == .brotherQL && ql.dpi == 300)
      #expect(ql.model == "Brother QL-820NWB" && ql.name == "QL-820NWB")
      #expect(ql.media == Media(widthMM: 62, lengthMM: 0, kind: "continuous"))
      #expect(ql.uri == "usb://Brother/QL-820NWB?serial=A1B2")
      let zebra = try #require(printers.first { $0.id == Self.zebra })
      #expect(zebra.transport == .usb && zebra.language == .zpl && zebra.model == "Zebra ZD420")

      let devices = try c.call("devices.list", as: DevicesResult.self)
      #expect(devices.enabled)
      let qlDevice = try #require(devices.devices.first { $0.printer == Self.ql })
      #expect(qlDevice.status == .ok && qlDevice.driver == "QL-820NWB" && qlDevice.printerClass)
      #expect(qlDevice.deviceID?.contains("MDL:QL-820NWB") == true)
      #expect(qlDevice.message.contains("vendor and product id"))
      let zebraDevice = try #require(devices.devices.first { $0.printer == Self.zebra })
      #expect(zebraDevice.driver == "Zebra ZD420" && zebraDevice.message.contains("device id"))

      let table = try labelctl(["--socket", d.socketPath, "devices"])
      #expect(table.status == 0)
      #expect(table.stdout.contains("1-1") && table.stdout.contains("04f9:209d  ok"))
      #expect(table.stdout.contains(Self.ql) && table.stdout.contains("QL-820NWB"))
    }
  }

  @Test func pngOnBrotherQL_theEmulatedPrinterPrintsTheBitmapSent_onePagePerCopy() throws {
    try USBEmulator.run(printers: ["ql820:A1B2"]) { bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      let card = RasterPrintingTests.testCard(width: 601, height: 233)
      let id = try Self.submitPNG(c, printer: Self.ql, card, copies: 2)
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 2)
      #expect(bus.files("A1B2", prefix: "page-").count == 2)
      Self.expectPage(bus.page("A1B2", 1), equals: card)
      Self.expectPage(bus.page("A1B2", 2), equals: card)
      // The bytes the printer received decode, with labeld's own decoder, to the same page.
      let job = try #require(bus.file("A1B2", "job-1.ql"))
      let pages = try RasterPrintingTests.qlPages(job)
      #expect(pages.count == 1 && pages.first == bus.page("A1B2", 1))
    }
  }

  @Test func zplOnZebra_isPrintedAsSent() throws {
    try USBEmulator.run(printers: ["zebra:Z9"]) { bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      let zpl = "^XA^FO20,20^A0N,40,40^FDHello USB^FS^XZ"
      let id = try c.call(
        "jobs.submit",
        ["printer": .string(Self.zebra), "document": ["format": "native", "data": base64(zpl)]],
        as: JobResult.self
      ).job.id
      _ = try w.waitForJob(id)
      #expect(bus.file("Z9", "label-1.zpl") == Array(zpl.utf8))
    }
  }

  /// A fault the printer reports before the job: printerError naming the job, nothing
  /// printed while it lasts, cleared by the status poll, then exactly one label.
  @Test(arguments: [
    ("cover open", "cover closed", Reason.coverOpen),
    ("media none", "media 62", Reason.mediaEmpty),
    ("media 29x90", "media 62", Reason.mediaMismatch),
    ("claimed on", "claimed off", Reason.busy),
  ])
  func brotherFault_raisesPrinterErrorNamingTheJob_thenClears_andTheJobPrintsOnce(
    set: String, clear: String, reason: Reason
  ) throws {
    try USBEmulator.run(printers: ["ql820:A1B2"]) { bus, d in
      let card = RasterPrintingTests.testCard(width: 300, height: 160)
      let held = try Self.jobHeldByFault(bus, d, command: set, reason: reason, card: card)
      let (c, w, id) = (held.client, held.events, held.id)
      #expect(try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job.printed == 0)
      #expect(bus.files("A1B2", prefix: "page-").isEmpty)
      try bus.control("A1B2 \(clear)")
      _ = try w.waitForPrinterError(Self.ql, state: "cleared")
      let done = try w.waitForJob(id)
      #expect(done["printed"] == 1)
      #expect(bus.files("A1B2", prefix: "page-") == ["page-1.pbm"])
      Self.expectPage(bus.page("A1B2", 1), equals: card)
    }
  }

  /// The cover opens while the page prints: the printer reports an error instead of
  /// "printing completed", so the copy is not counted; it prints once after the cover closes.
  @Test func coverOpensMidJob_theCopyIsNotCounted_andPrintsOnceAfterwards() throws {
    try USBEmulator.run(printers: ["ql820:A1B2"]) { bus, d in
      let card = RasterPrintingTests.testCard(width: 400, height: 200)
      let (w, id) = try Self.jobHeldByFault(
        bus, d, command: "fail-next-page cover", reason: .coverOpen, card: card
      ).pair
      #expect(bus.events.contains("A1B2 error page not printed"))
      try bus.control("A1B2 cover closed")
      _ = try w.waitForJob(id)
      #expect(bus.files("A1B2", prefix: "page-") == ["page-1.pbm"])
      Self.expectPage(bus.page("A1B2", 1), equals: card)
    }
  }

  /// Unplugged mid-transfer: `disconnected` naming the job, the printer stays listed with
  /// the same id, and the job prints once after the replug.
  @Test func unplugMidTransfer_jobWaits_andCompletesAfterReplug() throws {
    try USBEmulator.run(printers: ["ql820:A1B2"]) { bus, d in
      try bus.control("A1B2 unplug-after 3000")
      #expect(bus.waitForEvent("A1B2 did unplug-after"))
      let card = RasterPrintingTests.testCard(width: 696, height: 600)
      let held = try Self.jobHeldByFault(bus, d, command: nil, reason: .disconnected, card: card)
      let (c, w, id) = (held.client, held.events, held.id)
      #expect(bus.waitForEvent("A1B2 unplugged"))
      let gone = try c.call("printers.get", ["printer": .string(Self.ql)], as: PrinterResult.self)
      #expect(gone.printer.reasons == [.disconnected] && gone.printer.state == .stopped)
      #expect(try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job.printed == 0)
      try bus.control("A1B2 plug")
      _ = try w.waitForPrinterError(Self.ql, state: "cleared")
      _ = try w.waitForJob(id)
      #expect(bus.files("A1B2", prefix: "page-") == ["page-1.pbm"])
      Self.expectPage(bus.page("A1B2", 1), equals: card)
      let back = try c.call("printers.get", ["printer": .string(Self.ql)], as: PrinterResult.self)
      #expect(back.printer.reasons.isEmpty)
    }
  }

  /// Jobs left waiting in state directory `dir`: the QL's cover is open, `count` copies of
  /// `card` are sent, and labeld stops (cleanly) with them waiting.
  static func jobsWaitingBehindTheCover(in dir: URL, _ card: Bitmap, count: Int) throws -> [Int] {
    let bus = try USBEmulator(printers: ["ql820:A1B2"], directory: dir)
    let d = bus.daemon
    let c = try d.client()
    let w = try subscriber(d)
    try bus.apply("A1B2", "cover open")
    let ids = try (0..<count).map { _ in try submitPNG(c, printer: ql, card) }
    _ = try w.waitForPrinterError(ql, reason: .coverOpen)
    try d.stopCleanly()
    return ids
  }

  /// labeld restarted while the printer is unplugged: its waiting job is kept (not
  /// aborted as an orphan), and prints once labeld finds the printer again.
  @Test func restartWhileUnplugged_keepsTheJob_andPrintsItWhenThePrinterIsBack() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let card = RasterPrintingTests.testCard(width: 300, height: 200)
    // The cover is open: the job waits.
    let id = try Self.jobsWaitingBehindTheCover(in: dir, card, count: 1)[0]
    do {
      // No printer on the bus at all: the job is still there, waiting.
      let d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: dir)
      let job = try d.client().call("jobs.get", ["job": .int(id)], as: JobResult.self).job
      #expect(job.state == .pending || job.state == .held, "\(job.state)")
      // Not out of sight: an active alert names the job it waits in.
      let alerts = try d.client().call("alerts.active", as: AlertsResult.self).alerts
      let alert = alerts.first { $0.id == "printerError:\(Self.ql)" }
      guard case .printerError(let details)? = alert?.alert else {
        Issue.record("no active printerError for \(Self.ql): \(alerts)")
        return
      }
      #expect(details.reason == .disconnected)
      #expect(details.job == id)
      d.stop()
      #expect(d.process.terminationStatus == 0)
    }
    // The printer is back (cover closed): the job prints, once.
    try USBEmulator.run(printers: ["ql820:A1B2"], directory: dir) { bus, d in
      let w = try Self.subscriber(d)
      if try d.client().call("jobs.get", ["job": .int(id)], as: JobResult.self).job.state
        != .completed
      {
        _ = try w.waitForJob(id)
      }
      #expect(bus.files("A1B2", prefix: "page-") == ["page-1.pbm"])
      Self.expectPage(bus.page("A1B2", 1), equals: card)
    }
  }

  /// Jobs of a USB printer that is not plugged in when labeld starts wait in sight: an
  /// active `disconnected` printerError names the job held up, `jobs.list` for that printer
  /// lists them, and cancelling them moves the alert on to the next job, then clears it.
  @Test func absentAtStartUp_jobsAreListedAndCancellable_andTheAlertFollowsThem() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let card = RasterPrintingTests.testCard(width: 300, height: 200)
    let ids = try Self.jobsWaitingBehindTheCover(in: dir, card, count: 2)
    let d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: dir)
    let c = try d.client()
    func waitingAlert() throws -> PrinterErrorDetails? {
      let alerts = try c.call("alerts.active", as: AlertsResult.self).alerts
      guard
        case .printerError(let details)? = alerts.first(where: {
          $0.id == "printerError:\(Self.ql)"
        })?.alert
      else { return nil }
      return details
    }
    #expect(try waitingAlert()?.reason == .disconnected)
    #expect(try waitingAlert()?.job == ids[0])
    let listed = try c.call("jobs.list", ["printer": .string(Self.ql)], as: JobsResult.self).jobs
    #expect(listed.map(\.id) == ids)
    #expect(c.error("jobs.list", ["printer": "usb:0000:0000:NOPE"])?.code == 1001)
    let w = try d.client()
    try w.call("subscribe", ["topics": ["alerts", "jobs"]])
    let first = try c.call("jobs.cancel", ["job": .int(ids[0])], as: JobResult.self).job
    #expect(first.state == .canceled)
    let moved = try w.waitFor("alert") { $0["id"] == .string("printerError:\(Self.ql)") }
    #expect(moved["job"] == .int(ids[1]))
    #expect(moved["state"] == "active")
    try c.call("jobs.cancel", ["job": .int(ids[1])])
    _ = try w.waitFor("alert") {
      $0["id"] == .string("printerError:\(Self.ql)") && $0["state"] == "cleared"
    }
    #expect(try waitingAlert() == nil)
    let after = try c.call("jobs.list", ["printer": .string(Self.ql)], as: JobsResult.self).jobs
    #expect(after.map(\.state) == [.canceled, .canceled])
  }

  /// A printer that never answers: the status wait is bounded, the job waits with a typed
  /// `offline` alert, other requests are answered meanwhile, and it prints once it answers.
  @Test func silentPrinter_timesOutAsOffline_whileTheDaemonStaysResponsive() throws {
    try USBEmulator.run(printers: ["ql820:A1B2"]) { bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      try bus.apply("A1B2", "silent on")
      let card = RasterPrintingTests.testCard(width: 200, height: 150)
      let submitted = Date()
      let id = try Self.submitPNG(c, printer: Self.ql, card)
      // While labeld waits for the printer, another request is answered at once.
      let asked = Date()
      _ = try c.call("hello")
      _ = try c.call("printers.list")
      #expect(Date().timeIntervalSince(asked) < 0.5)
      let alert = try w.waitForPrinterError(Self.ql, reason: .offline, timeout: 10)
      #expect(alert["job"] == .int(id))
      #expect(Date().timeIntervalSince(submitted) < 5, "the status wait is bounded (700 ms)")
      try bus.control("A1B2 silent off")
      _ = try w.waitForJob(id)
      #expect(bus.files("A1B2", prefix: "page-") == ["page-1.pbm"])
    }
  }

  /// A Zebra with its media out: nothing is sent while the fault lasts (it would print
  /// twice), and the job prints once after it clears.
  @Test func zebraMediaOut_jobWaits_andPrintsOnce() throws {
    try USBEmulator.run(printers: ["zebra:Z9"]) { bus, d in
      let (w, id) = try Self.jobHeldByFault(
        bus, d, serial: "Z9", printer: Self.zebra, command: "errors 1", reason: .mediaEmpty,
        card: RasterPrintingTests.testCard(width: 100, height: 50)
      ).pair
      #expect(bus.files("Z9", prefix: "label-").isEmpty)
      try bus.control("Z9 errors 0")
      _ = try w.waitForJob(id)
      #expect(bus.files("Z9", prefix: "label-") == ["label-1.zpl"])
    }
  }

  /// A Zebra that never answers ~HQES does not hold jobs up: they go out unconfirmed.
  /// A Zebra that stops answering `~HQES` cannot confirm a label: the copy is not counted,
  /// the job is held with a `communication` printerError naming it (never a silent
  /// success), other printers go on, and once it answers the copy is sent again and
  /// counted. (The unconfirmed copy may have printed: a duplicate is the price of never
  /// losing a label.)
  @Test func silentZebra_isACommunicationFault_jobHeldUntilItAnswers() throws {
    try USBEmulator.run(printers: Self.both) { bus, d in
      let c = try d.client()
      let w = try Self.subscriber(d)
      try bus.apply("Z9", "silent on")
      let card = RasterPrintingTests.testCard(width: 80, height: 40)
      let id = try Self.submitPNG(c, printer: Self.zebra, card)
      let alert = try w.waitForPrinterError(Self.zebra, reason: .communication)
      #expect(alert["job"] == .int(id))
      let held = try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job
      #expect(held.printed == 0)
      #expect(!held.state.isTerminal)
      // The other printer is not held up.
      let ql = try Self.submitPNG(
        c, printer: Self.ql, RasterPrintingTests.testCard(width: 300, height: 200))
      try bus.control("Z9 silent off")
      let events = Events(w)
      _ = try events.waitFor("job", timeout: 60) {
        $0["id"] == .int(ql) && $0["state"] == "completed"
      }
      let done = try events.waitFor("job", timeout: 120) {
        $0["id"] == .int(id) && $0["state"] == "completed"
      }
      #expect(done["printed"] == 1)
      #expect(bus.files("Z9", prefix: "label-").count >= 1)
    }
  }

  /// A Zebra that answers `~HQES` with something that is not a status is a `communication`
  /// fault too, not a confirmation.
  @Test func garbledZebraStatus_isACommunicationFault_notASilentSuccess() throws {
    try USBEmulator.run(printers: ["zebra:Z9"]) { bus, d in
      let held = try Self.jobHeldByFault(
        bus, d, serial: "Z9", printer: Self.zebra, command: "garbage on", reason: .communication,
        card: RasterPrintingTests.testCard(width: 80, height: 40))
      let (c, w, id) = (held.client, held.events, held.id)
      #expect(d.log.contains("is not a status"))
      #expect(try c.call("jobs.get", ["job": .int(id)], as: JobResult.self).job.printed == 0)
      try bus.control("Z9 garbage off")
      let done = try w.waitForJob(id, timeout: 120)
      #expect(done["printed"] == 1)
    }
  }
}
