import Foundation
import LabelCore
import Testing

@testable import LabelLanguages

/// The parts of `LanguageDriver` the renderer and the transports use instead of asking
/// which language a printer speaks: page areas, status scanning, what a job asks for.
@Suite struct DriverSeamTests {
  static let zpl = ZPLDriver()
  static func ql(_ name: String = "QL-820NWB") throws -> BrotherQLDriver {
    try BrotherQLDriver(model: #require(DriverTable.model(named: name, language: .brotherQL)))
  }

  static func qlStatus(type: UInt8 = 0, errors2: UInt8 = 0, width: UInt8 = 62) -> [UInt8] {
    var b = [UInt8](repeating: 0, count: 32)
    b[0...3] = [0x80, 0x20, 0x42, 0x34]
    b[9] = errors2
    b[10] = width
    b[11] = 0x0A
    b[18] = type
    return b
  }

  @Test func everyModelRow_hasItsDriver_andEveryLanguageItsDefaultModel() throws {
    for row in DriverTable.models + [
      DriverTable.genericZPL, DriverTable.genericTSPL, DriverTable.genericEPL2,
    ] {
      let driver = try DriverTable.driver(for: row)
      #expect(driver.model == row && driver.language == row.language)
    }
    for language in PrinterLanguage.allCases {
      let driver = try DriverTable.driver(for: language, settings: LabelSettings())
      #expect(driver.model.name == language.profile.defaultModel)
    }
    #expect(throws: DriverError("no Brother QL driver for model QL-9999")) {
      try DriverTable.driver(for: .brotherQL, settings: LabelSettings(model: "QL-9999"))
    }
  }

  @Test func onlyZPL_drawsTemplatesItself() throws {
    let drivers: [any LanguageDriver] = [Self.zpl, try Self.ql()]
    #expect(drivers.map { $0 is any TemplateEncoding } == [true, false])
    // Settings reach the printer: darkness and the finishing mode.
    let driver = try DriverTable.driver(
      for: .zpl, settings: LabelSettings(darkness: 12, finish: "peel"))
    let template = Template(
      name: "t", media: TemplateMedia(widthMM: 50, lengthMM: 25), elements: [])
    let zpl = try #require(driver as? any TemplateEncoding)
    let bytes = try zpl.encode(
      template: template, data: [:], images: [:], media: Media(widthMM: 50.8, lengthMM: 25.4),
      dpi: 203)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.hasPrefix("~SD12^XA") && text.contains("^MMP") && text.contains("^PW406"))
  }

  @Test func pageAreas_areTheMediasPrintableDots() throws {
    let label = try Self.zpl.pageArea(media: Media(widthMM: 50.8, lengthMM: 25.4), dpi: 203)
    #expect(label.width == 406 && label.length == 203 && label.maxLength == nil)
    #expect(label.description == "50.8 x 25.4 mm label is 406 x 203 dots at 203 dpi")
    #expect(label.fits(width: 406, height: 203) && !label.fits(width: 407, height: 1))
    let unknown = try Self.zpl.pageArea(media: Self.zpl.assumedMedia(labelWidthMM: 50), dpi: 203)
    #expect(unknown.width == nil && unknown.fits(width: 100_000, height: 100_000))

    let ql = try Self.ql()
    #expect(
      ql.assumedMedia(labelWidthMM: 29) == Media(widthMM: 29, lengthMM: 0, kind: "continuous"))
    #expect(ql.assumedMedia(labelWidthMM: nil).widthMM == 62)
    let tape = try ql.pageArea(media: Media(widthMM: 62, lengthMM: 0), dpi: 300)
    #expect(tape.width == 696 && tape.length == nil && tape.maxLength == ql.ql.lineRange.upperBound)
    let dieCut = try ql.pageArea(media: Media(widthMM: 29, lengthMM: 90), dpi: 300)
    #expect(dieCut.width == 306 && dieCut.length == 991 && dieCut.maxLength == nil)
    #expect(!dieCut.fits(width: 306, height: 992))
    #expect(throws: DriverError.self) {
      try ql.pageArea(media: Media(widthMM: 63, lengthMM: 0), dpi: 300)
    }
  }

  @Test func zplStatus_isOneSTXtoETXBlock() {
    let reply = Array(extendedStatus(errors: "1 00000000 00000001").utf8)
    guard case .status(let status, let consumed) = Self.zpl.scanStatus(reply[...]) else {
      Issue.record("no status in \(reply)")
      return
    }
    #expect(status.kind == .reply && status.faults == [.mediaEmpty] && status.detail == "~HQES")
    // The block ends at the ETX; the CR LF after it is left for the next scan.
    #expect(consumed == reply.count - 2)
    #expect(Self.zpl.scanStatus(reply.prefix(20)) == .needMore)
    let garbage = Array("\u{02}hello\u{03}".utf8)
    guard case .unreadable(_, let n) = Self.zpl.scanStatus(garbage[...]) else {
      Issue.record("garbage read as a status")
      return
    }
    #expect(n == garbage.count)
  }

  @Test func qlStatus_isFound_afterJunk_andSaysWhatKindItIs() throws {
    let ql = try Self.ql()
    let done = Self.qlStatus(type: 0x01)
    #expect(ql.scanStatus([0x00, 0x01] + done[...]) == .skip(1))
    guard case .status(let s, 32) = ql.scanStatus(done[...]) else {
      Issue.record("no status")
      return
    }
    #expect(
      s.kind == .pagePrinted && s.media == Media(widthMM: 62, lengthMM: 0, kind: "continuous"))
    guard case .status(let open, _) = ql.scanStatus(Self.qlStatus(type: 0x02, errors2: 0x10)[...])
    else {
      Issue.record("no status")
      return
    }
    #expect(open.kind == .error && open.faults == [.coverOpen] && open.detail == "error bits 00 10")
    #expect(ql.scanStatus(done.prefix(31)) == .needMore)
    // The preamble: the model's "invalidate" NULs, then ESC @.
    #expect(ql.statusPreamble.count == ql.ql.invalidateCount + 2)
    #expect(ql.statusPreamble.suffix(2) == [0x1B, 0x40] && ql.statusRequestName == "ESC i S")
    #expect(Self.zpl.statusPreamble.isEmpty)
  }

  @Test func jobFacts_readWhatTheJobAsksFor() throws {
    let ql = try Self.ql()
    var page = Bitmap(width: 100, height: 50)
    page[1, 1] = true
    let job = try ql.encode(
      pages: [page, page, page], media: Media(widthMM: 29, lengthMM: 90), dpi: 300)
    let facts = ql.jobFacts(job)
    #expect(facts.pages == 3 && facts.wants == MediaWant(dieCut: true, widthMM: 29, lengthMM: 90))
    #expect(facts.mismatch(loaded: Media(widthMM: 29, lengthMM: 90, kind: "labels")) == nil)
    #expect(facts.mismatch(loaded: nil) == nil)
    #expect(
      facts.mismatch(loaded: Media(widthMM: 62, lengthMM: 0))
        == "the job is for 29 x 90 mm die-cut labels but 62 mm continuous tape are loaded")
    // Bytes the driver cannot read: one page, any media.
    #expect(ql.jobFacts([1, 2, 3]) == JobFacts(pages: 1))
    #expect(Self.zpl.jobFacts(Array("^XA^XZ".utf8)) == JobFacts(pages: 1))
  }

  @Test func aDeviceSpeakingZPL_withNoRow_isTheGenericZPLPrinter() {
    let found = DriverTable.match(
      vendorID: 0x1234, productID: 1, deviceID: DeviceID("MFG:Acme;CMD:ZPL;MDL:LP-9;"))
    #expect(found?.model == DriverTable.genericZPL && found?.score == 20)
    // A Brother raster device that is no known model is not guessed at.
    #expect(
      DriverTable.match(
        vendorID: 0x1234, productID: 1, deviceID: DeviceID("MFG:Acme;CMD:PT-CBP;MDL:XY;")) == nil)
  }

  /// docs/protocol.md's "Printer models" table names every row of the driver table, in its
  /// language's line, and every language has a line.
  @Test func protocolDoc_listsEveryModelRow() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("docs/protocol.md")
    let doc = try String(contentsOf: url, encoding: .utf8)
    let lines = doc.split(separator: "\n")
    for language in PrinterLanguage.allCases {
      let line = try #require(
        lines.first { $0.hasPrefix("| `\(language.rawValue)` |") },
        "no line for \(language.rawValue) in docs/protocol.md's Printer models")
      let rows =
        DriverTable.models + [
          DriverTable.genericZPL, DriverTable.genericTSPL, DriverTable.genericEPL2,
        ]
      for row in rows where row.language == language {
        let short = row.name.replacing("DYMO LabelWriter ", with: "").replacing("Zebra ", with: "")
        #expect(
          line.contains(short),
          "\(row.name) is missing from docs/protocol.md's \(language.rawValue) line")
      }
    }
  }
}
