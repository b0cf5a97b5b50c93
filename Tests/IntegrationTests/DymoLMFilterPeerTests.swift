import Foundation
import LabelCore
import LabelLanguages
import LabelTestKit
import Testing

/// DYMO's own CUPS filter, `raster2dymolm` (Debian's printer-driver-dymo 1.4.0), as a
/// second opinion on the LabelManager language: the same page as a CUPS raster page for
/// the tape (as wide as DYMO's PPD makes it: 45, 65, 88, 138 or 170 dots at 180 dpi, the
/// page's columns first) through the filter, and through labeld's driver, decoded with
/// labeld's decoder, put the same dots on the same head dots, for the PnP, 400, 450, PC,
/// PC II and 420P (the filter knows the 420P by name; Debian ships no PPD for it, so the
/// 450's is used with the 420P's model name) on several tapes.
///
/// Byte for byte the streams are the same but for one difference:
/// - The filter's language monitor asks for status (`ESC A`) after the tape colour, before
///   the first page, and waits for the answer on the back channel (file descriptor 3,
///   here a file of answers: 0x40 "cassette present", then the tape's code); labeld asks
///   after the job, through its transport. The filter asks only when `DEVICE_URI` is a
///   `usb://` one, as here.
///
/// labelle is a third opinion for the PnP: `DymoLMLabellePeerTests` (LabelLanguagesTests).
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/lib/cups/filter/raster2dymolm")
      && FileManager.default.isExecutableFile(atPath: "/usr/lib/cups/driver/dymo"),
    "needs Debian's printer-driver-dymo (make deps installs it)"))
struct DymoLMFilterPeerTests {
  static let filter = "/usr/lib/cups/filter/raster2dymolm"
  static let ppdTool = "/usr/lib/cups/driver/dymo"

  static func driver(_ name: String) throws -> DymoLMDriver {
    var settings = LabelSettings()
    settings.model = "DYMO LabelManager \(name)"
    return try #require(DriverTable.driver(for: .dymoLM, settings: settings) as? DymoLMDriver)
  }

  static func tapeMedia(_ tape: DymoLMTape) -> Media {
    Media(widthMM: Double(tape.widthMM), lengthMM: 0, kind: "tape")
  }

  /// A page as wide as the driver's page area for the tape: dots in both edge columns,
  /// a block, a diagonal and noise, white rows between.
  static func page(width: Int, height: Int) -> Bitmap {
    var page = Bitmap(width: width, height: height)
    var seed: UInt32 = 11
    for y in 0..<height where y % 9 != 4 && y > 2 {
      for x in 0..<width {
        seed = seed &* 1_103_515_245 &+ 12345
        if seed >> 28 < 3 { page[x, y] = true }
      }
    }
    page.fill(x: 0, y: 20, width: 1, height: 30)
    page.fill(x: width - 1, y: 20, width: 1, height: 30)
    page.fill(x: width / 4, y: 60, width: width / 2, height: 25)
    for y in 0..<min(width, height) { page[y, y] = true }
    return page
  }

  /// The filter's stream for `pages` (on `tape`) with `ppd`, and its log; `answers` are
  /// the status answers on the back channel.
  static func filtered(
    _ pages: [Bitmap], tape: DymoLMTape, ppd: String, modelName: String? = nil,
    answers: [UInt8]? = nil, seconds: Int = 60, in dir: String
  ) throws -> (bytes: [UInt8], log: String) {
    // Each CUPS page as wide as DYMO's PPD makes the tape's page, ours in its first columns.
    let raster = CUPSRasterFile.bytes(
      pages.map { page in
        var cups = Bitmap(width: tape.rasterDots(), height: page.height)
        for y in 0..<page.height { for x in 0..<page.width where page[x, y] { cups[x, y] = true } }
        return CUPSRasterFile.Page(
          cups, points: (Double(tape.pagePoints), Double(page.height) * 72 / 180), dpi: 180,
          mediaType: UInt32(tape.code))
      })
    try Data(raster).write(to: URL(fileURLWithPath: "\(dir)/page.ras"))
    let status = answers ?? [0x40, UInt8(tape.code + 1)]
    try Data((0..<20_000).flatMap { _ in status }).write(
      to: URL(fileURLWithPath: "\(dir)/answers"))
    var makePPD = "\(ppdTool) cat dymo:0/cups/model/\(ppd).ppd"
    if let modelName { makePPD += " | sed 's/^\\*ModelName: .*/*ModelName: \"\(modelName)\"/'" }
    _ = try Shell.run(
      "\(makePPD) > \(dir)/lm.ppd && PPD=\(dir)/lm.ppd DEVICE_URI=usb://DYMO/LabelManager "
        + "timeout \(seconds) \(filter) 1 labeld test 1 '' \(dir)/page.ras > \(dir)/page.lm "
        + "2>\(dir)/filter.log 3<\(dir)/answers")
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/page.lm")))
    let log = try String(contentsOfFile: "\(dir)/filter.log", encoding: .utf8)
    return (bytes, log)
  }

  @Test(
    arguments: [
      ("PnP", "lmpnp", nil, [DymoLMTape.mm6, .mm9, .mm12]),
      ("400", "lm400", nil, [.mm6, .mm12, .mm19, .mm24]),
      ("450", "lm450", nil, [.mm9, .mm12, .mm24]),
      ("PC", "lmpc", nil, [.mm12, .mm19]),
      ("PC II", "lmpc2", nil, [.mm6, .mm12, .mm19]),
      ("420P", "lm450", "DYMO LabelMANAGER 420P", [.mm12, .mm19]),
    ] as [(String, String, String?, [DymoLMTape])])
  func samePage_sameBytesAndDotsAsDYMOsFilter(
    model: String, ppd: String, ppdModelName: String?, tapes: [DymoLMTape]
  ) throws {
    let driver = try Self.driver(model)
    let head = driver.printer.headDots
    for tape in tapes {
      let dir = DaemonProcess.makeTempDirectory().path
      let media = Self.tapeMedia(tape)
      let width = try #require(try driver.pageArea(media: media, dpi: 180).width)
      let page = Self.page(width: width, height: 150)
      let theirs = try Self.filtered(
        [page], tape: tape, ppd: ppd, modelName: ppdModelName, in: dir
      ).bytes
      let ours = try driver.encode(pages: [page], media: media, dpi: 180)
      // The one difference: the filter's status request after the tape colour.
      let split = driver.printer.headBytes + 3
      #expect(Array(theirs.prefix(split)) == Array(ours.prefix(split)), "\(model) \(tape)")
      #expect(Array(theirs[split..<(split + 2)]) == [0x1B, 0x41], "\(model) \(tape)")
      #expect(
        Array(theirs.dropFirst(split + 2)) == Array(ours.dropFirst(split)), "\(model) \(tape)")
      let decoder = DymoLMDecoder(headDots: head)
      let theirJob = try decoder.decode(theirs)
      let ourJob = try decoder.decode(ours)
      #expect(theirJob.statusRequests == 1 && ourJob.statusRequests == 0)
      #expect(theirJob.pages.count == 1 && theirJob.pages.map(\.image) == ourJob.pages.map(\.image))
      #expect((theirJob.pages.first?.image?.blackCount ?? 0) > 100)
    }
  }

  /// Labels of one job: cut on the 400, divided by a chain mark on the PnP.
  @Test func twoLabels_cutOrChainMarked_asDYMOsFilterDoes() throws {
    for (model, ppd, ends) in [
      ("400", "lm400", [DymoLMPage.End.cut, .cut]), ("PnP", "lmpnp", [.chainMark, .end]),
    ] {
      let dir = DaemonProcess.makeTempDirectory().path
      let driver = try Self.driver(model)
      let width = try #require(try driver.pageArea(media: Self.tapeMedia(.mm12), dpi: 180).width)
      let pages = [Self.page(width: width, height: 90), Self.page(width: width, height: 20)]
      let theirs = try Self.filtered(pages, tape: .mm12, ppd: ppd, in: dir).bytes
      let ours = try driver.encode(pages: pages, media: Self.tapeMedia(.mm12), dpi: 180)
      let split = driver.printer.headBytes + 3
      #expect(Array(theirs.prefix(split)) + Array(theirs.dropFirst(split + 2)) == ours)
      let decoded = try DymoLMDecoder(headDots: driver.printer.headDots).decode(ours)
      #expect(decoded.pages.map(\.end) == ends)
    }
  }

  /// What the filter does with the answers `DymoLMStatus` reads: byte 1 is the tape (1:
  /// 6 mm; a 12 mm job waits with "paper-size-error"), 0x40 the cassette (without it
  /// "paper-size-undefine-error"). The filter keeps asking; it is stopped after 3 s.
  @Test func theFiltersLanguageMonitor_readsTheBitsAsDymoLMStatusDoes() throws {
    let driver = try Self.driver("PnP")
    let page = Self.page(width: 64, height: 40)
    let wrongTape = try Self.filtered(
      [page], tape: .mm12, ppd: "lmpnp", answers: [0x40, 0x01], seconds: 3,
      in: DaemonProcess.makeTempDirectory().path)
    #expect(wrongTape.log.contains("STATE: com.dymo.paper-size-error"))
    #expect(!wrongTape.bytes.contains(0x16))  // nothing printed
    #expect(DymoLMStatus([0x40, 0x01], reportsTape: true).tape == .mm6)
    let noCassette = try Self.filtered(
      [page], tape: .mm12, ppd: "lmpnp", answers: [0x00, 0x03], seconds: 3,
      in: DaemonProcess.makeTempDirectory().path)
    #expect(noCassette.log.contains("STATE: com.dymo.paper-size-undefine-error"))
    #expect(try driver.faults(inStatus: [0x00, 0x03]) == [.mediaEmpty])
    let good = try Self.filtered(
      [page], tape: .mm12, ppd: "lmpnp", answers: [0x40, 0x03],
      in: DaemonProcess.makeTempDirectory().path)
    #expect(good.bytes.contains(0x16) && !good.log.contains("error"))
    #expect(try driver.faults(inStatus: [0x40, 0x03]).isEmpty)
  }
}
