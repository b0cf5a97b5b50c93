import Foundation
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// The USB scenarios against a REAL printer, named by `LABELD_HIL_DEVICE`
/// (`usb:04f9:209d:SERIAL`, as `labelctl devices` shows it). Run with
/// `make hil LABELD_HIL_DEVICE=usb:…`; the printer must be idle, with labels loaded. With
/// `LABELD_HIL_INTERACTIVE=1` it also asks a person to open and close the cover.
/// Which real printer, from the environment.
enum HIL {
  static let device = ProcessInfo.processInfo.environment["LABELD_HIL_DEVICE"].flatMap {
    $0.isEmpty ? nil : $0
  }
  static let interactive = ProcessInfo.processInfo.environment["LABELD_HIL_INTERACTIVE"] == "1"
}

@Suite(
  .serialized,
  .enabled(
    if: HIL.device != nil,
    "no real printer named: run `make hil LABELD_HIL_DEVICE=usb:VVVV:PPPP:SERIAL` with one plugged in"
  ))
struct HardwareInTheLoopTests {
  static func withRealPrinter(_ body: (DaemonProcess, BlockingConnection, Printer) throws -> Void)
    throws
  {
    let id = try #require(HIL.device)
    try withDaemon(["--usb"]) { d in
      let c = try d.client()
      let printers = try c.call("printers.refresh", as: PrintersResult.self).printers
      guard let printer = printers.first(where: { $0.id == id }) else {
        let devices = try c.call("devices.list", as: DevicesResult.self).devices
        let seen: [String] = devices.map { d in
          "\(d.port) \(d.vendorID):\(d.productID) \(d.status.rawValue): \(d.message)"
        }
        Issue.record(
          "\(id) is not among labeld's printers; devices.list says: \(seen.joined(separator: "; "))"
        )
        return
      }
      try body(d, c, printer)
    }
  }

  @Test func realPrinter_isDiscovered_withADriverAndNoFaults() throws {
    try Self.withRealPrinter { _, c, printer in
      #expect(printer.transport == .usb)
      #expect(printer.reasons.isEmpty, "the printer reports \(printer.reasons): fix it first")
      let devices = try c.call("devices.list", as: DevicesResult.self).devices
      let device = try #require(devices.first { $0.printer == printer.id })
      #expect(device.status == .ok && device.driver != nil)
    }
  }

  /// A label that fits whatever is loaded: a test card 0.8 of the media's width on labels
  /// and rolls; on tape (which reads along the tape, its height the tape's) a template the
  /// renderer draws to the tape's height.
  static func submitTestLabel(_ c: BlockingConnection, _ printer: Printer) throws -> Int {
    if printer.media?.kind == "tape" {
      let template: JSONValue = [
        "name": "hil-tape", "media": ["widthMM": 40, "lengthMM": 12],
        "elements": [
          ["type": "text", "x": 2, "y": 1, "width": 36, "height": 10, "text": "labeld HIL"],
          ["type": "box", "x": 0, "y": 0, "width": 40, "height": 12, "thickness": 0.5],
        ],
      ]
      try c.call("templates.save", ["template": template])
      return try c.call(
        "jobs.submit",
        ["printer": .string(printer.id), "template": "hil-tape", "data": [:]],
        as: JobResult.self
      ).job.id
    }
    let widthDots = Int((printer.media?.widthMM ?? 50) / 25.4 * Double(printer.dpi) * 0.8)
    let card = RasterPrintingTests.testCard(width: widthDots, height: printer.dpi / 2)
    return try Fixtures.submitPNG(c, printer: printer.id, card).id
  }

  @Test func realPrinter_printsOneConfirmedLabel() throws {
    try Self.withRealPrinter { d, c, printer in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs", "alerts"]])
      let id = try Self.submitTestLabel(c, printer)
      let done = try w.waitForJob(id, timeout: 60)
      #expect(done["printed"] == 1)
    }
  }

  @Test(
    .enabled(
      if: HIL.interactive,
      "set LABELD_HIL_INTERACTIVE=1 to be asked to open the cover"))
  func realPrinter_coverOpen_raisesPrinterError_andTheJobPrintsAfterwards() throws {
    try Self.withRealPrinter { d, c, printer in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs", "alerts"]])
      print(">>> open the cover of \(printer.id) now (60 s)")
      let id = try Self.submitTestLabel(c, printer)
      let alert = try w.waitForPrinterError(printer.id, reason: .coverOpen, timeout: 60)
      #expect(alert["job"] == .int(id))
      print(">>> close the cover now (60 s)")
      _ = try w.waitForJob(id, timeout: 60)
    }
  }
}
