import LabelCore
import Testing

@testable import LabelLanguages

/// DYMO LabelWriter 300/400/450/4XL: the bytes a page becomes (checked against the LW 450
/// Series Technical Reference by hand), what they decode back to, the `ESC A` status byte,
/// the page area and the rows.
@Suite struct DymoLWTests {
  static func driver(_ name: String = "DYMO LabelWriter 450", settings: LabelSettings = .init())
    throws -> DymoLWDriver
  {
    try languageDriver(name, .dymoLW, settings: settings)
  }

  static let esc: UInt8 = 0x1B

  @Test func goldenBytes_resetPageSetupLinesSkipsAndFormFeed() throws {
    // 10 x 4 dots: row 1 has dots 0 and 9 black, row 2 dot 1; rows 0 and 3 are white.
    var page = Bitmap(width: 10, height: 4)
    page[0, 1] = true
    page[9, 1] = true
    page[1, 2] = true
    let bytes = try Self.driver(settings: LabelSettings(darkness: 1)).encode(
      pages: [page], media: Media(widthMM: 28.6, lengthMM: 88.9, kind: "labels"), dpi: 300)
    let esc = Self.esc
    let expected: [UInt8] =
      [UInt8](repeating: esc, count: 156) + [esc, 0x40]  // resynchronise, reset
      // D 2, B 0, L 1050 (the 3.5 in label's lines: longer than the page's 4), h
      + [esc, 0x44, 2, esc, 0x42, 0, esc, 0x4C, 0x04, 0x1A, esc, 0x68]
      + [esc, 0x64]  // density 1: medium
      + [esc, 0x66, 1, 1]  // skip row 0
      // Row 1 as SYN (as runs it would be 4 bytes: 80 07 80 05); row 2 too (00 80 0D).
      + [0x16, 0x80, 0x40, 0x16, 0x40, 0x00]
      + [esc, 0x66, 1, 1]  // the trailing white row
      + [esc, 0x45]  // form feed
    #expect(bytes == expected)
    // A row that compresses goes as ETB: 672 dots, 100 black (one run: E3), then 572
    // white in runs of at most 128 (7F 7F 7F 7F 3B).
    var wide = Bitmap(width: 672, height: 1)
    wide.fill(x: 0, y: 0, width: 100, height: 1)
    let line = try Self.driver().encode(
      pages: [wide], media: Media(widthMM: 0, lengthMM: 0), dpi: 300
    ).dropFirst(158 + 12)
    #expect(Array(line) == [0x17, 0xE3, 0x7F, 0x7F, 0x7F, 0x7F, 0x3B, esc, 0x45])
    // Continuous tape: ESC L FF FF.
    let tape = try Self.driver().encode(
      pages: [page], media: Media(widthMM: 28.6, lengthMM: 0, kind: "continuous"), dpi: 300)
    #expect(Array(tape[(158 + 6)..<(158 + 10)]) == [esc, 0x4C, 0xFF, 0xFF])
    #expect(throws: DriverError.self) {
      try Self.driver().encode(pages: [page], media: Media(widthMM: 0, lengthMM: 0), dpi: 203)
    }
  }

  @Test func pages_decodeBackToTheSameDots_shortFeedsBetweenAFullOneLast() throws {
    // 2.25 x 1.25 in, the head's width
    var page = noise(width: 672, height: 375, seed: 7, density: 3, skipping: { $0 % 9 == 4 })
    page.fill(x: 0, y: 300, width: 672, height: 40)  // rows that compress
    let driver = try Self.driver()
    let media = Media(widthMM: 57.15, lengthMM: 31.75, kind: "labels")
    let bytes = try driver.encode(pages: [page, page], media: media, dpi: 300)
    let job = try DymoLWDecoder().decode(bytes)
    #expect(job.pages.map(\.image) == [page, page])
    #expect(job.pages.map(\.fullFeed) == [false, true])
    #expect(job.pages.allSatisfy { $0.labelLength == 375 && !$0.continuous })
    #expect(job.pages[0].compressedLines >= 40 && !job.graphicsMode)
    #expect(
      driver.jobFacts(bytes)
        == JobFacts(pages: 2, wants: MediaWant(dieCut: true, widthMM: nil, lengthMM: nil)))
    // A width that is not whole bytes: the pad dots come back white.
    var odd = Bitmap(width: 13, height: 2)
    odd.fill(x: 0, y: 0, width: 13, height: 2)
    let oddJob = try DymoLWDecoder().decode(
      driver.encode(pages: [odd], media: Media(widthMM: 0, lengthMM: 0), dpi: 300))
    let image = try #require(oddJob.pages.first?.image)
    #expect(image.width == 16 && image.blackCount == 26 && !image[13, 0] && image[12, 1])
  }

  /// DYMO's own CUPS filter (`raster2dymolw`, Debian's printer-driver-dymo) sends an
  /// `ESC B` dot tab and an `ESC D` per line, trimming white bytes at both ends, and
  /// compresses a line when that is shorter; `ESC Q` line tab and `ESC A` in between.
  @Test func dymosOwnDialect_dotTabsAndPerLineWidths_decode() throws {
    let esc = Self.esc
    let job: [UInt8] =
      [esc, esc, esc, 0x51, 0, 0, esc, 0x42, 0, esc, 0x68, esc, 0x65, esc, 0x41]
      + [esc, 0x4C, 0x04, 0x1A]
      + [esc, 0x42, 2, esc, 0x44, 1, 0x16, 0xF0]  // dots 16-19
      + [esc, 0x66, 1, 2]
      + [esc, 0x42, 0, esc, 0x44, 3, 0x17, 0x87, 0x8F]  // 8 + 16 black: ETB over 3 bytes
      + [esc, 0x47, esc, 0x45]
    let decoded = try DymoLWDecoder().decode(job)
    #expect(decoded.pages.count == 2 && decoded.density == .normal)
    let image = try #require(decoded.pages.first?.image)
    #expect(image.width == 24 && image.height == 4 && decoded.pages[0].labelLength == 1050)
    let black = (0..<4).flatMap { y in (0..<24).filter { image[$0, y] }.map { "\($0),\(y)" } }
    #expect(black == (16..<20).map { "\($0),0" } + (0..<24).map { "\($0),3" })
    #expect(decoded.pages[1].image?.height == 0 && decoded.pages[1].fullFeed)
  }

  @Test func malformedJobs_areTypedErrors_neverATrap() {
    let esc = Self.esc
    let cases: [(String, [UInt8])] = [
      ("SYN cut short", [esc, 0x44, 4, 0x16, 1, 2]),
      ("ETB past the line", [esc, 0x44, 1, 0x17, 0x85, 0x85]),
      ("ETB cut short", [esc, 0x44, 2, 0x17, 0x85]),
      ("ESC D 0", [esc, 0x44, 0]),
      ("ESC f without 1", [esc, 0x66, 2, 5]),
      ("unknown command", [esc, 0x7E]),
      ("stray byte", [0x41]),
      ("ESC L cut short", [esc, 0x4C, 1]),
    ]
    for (name, bytes) in cases {
      #expect(throws: DymoLWDecodeError.self, "\(name)") { try DymoLWDecoder().decode(bytes) }
    }
    // Skips cannot make a page without bound.
    let flood = [UInt8]((0..<300).flatMap { _ in [esc, 0x66, 1, 255] })
    #expect(throws: DymoLWDecodeError.self) { try DymoLWDecoder().decode(flood) }
    #expect((try? Self.driver().jobFacts(Array("^XA^XZ".utf8))) == JobFacts(pages: 1))
  }

  @Test func statusByte_eachBitIsItsReason() throws {
    let table: [(UInt8, [Reason])] = [
      (0x03, []), (0x01, []), (0x20, [.mediaEmpty]), (0x21, [.mediaEmpty]),
      (0xC0, [.mediaJam]), (0x60, [.mediaEmpty, .mediaJam]), (0x81, [.unknown]),
      (0x00, [.unknown]), (0x02, [.unknown]),
    ]
    let driver = try Self.driver()
    for (byte, reasons) in table {
      #expect(DymoLWStatus(byte).reasons == reasons, "\(hexByte(byte))")
      #expect(try driver.faults(inStatus: [byte]) == reasons)
      guard case .status(let status, 1) = driver.scanStatus([byte, 0x03][...]) else {
        Issue.record("no status in \(byte)")
        continue
      }
      #expect(status.faults == reasons && status.detail == "ESC A status \(hexByte(byte))")
    }
    #expect(driver.scanStatus([][...]) == .needMore)
    #expect(throws: DriverError.self) { try driver.faults(inStatus: [3, 3]) }
    #expect(driver.statusRequest == [0x1B, 0x41])
  }

  @Test func pageArea_fromTheLabelsLeftEdge_atMostTheHead() throws {
    let lw = try Self.driver()
    let address = try lw.pageArea(media: Media(widthMM: 28.6, lengthMM: 88.9), dpi: 300)
    #expect(address.width == 338 && address.length == 1050)
    // A 2.3125 in label is wider than the 2.24 in head.
    let shipping = try lw.pageArea(media: Media(widthMM: 58.7, lengthMM: 101.6), dpi: 300)
    #expect(shipping.width == 672 && shipping.length == 1200)
    let unknown = try lw.pageArea(media: lw.assumedMedia(labelWidthMM: nil), dpi: 300)
    #expect(unknown.width == 672 && unknown.length == nil && unknown.maxLength == 11811)
    #expect(throws: DriverError.self) {
      try lw.pageArea(media: Media(widthMM: 101.6, lengthMM: 152.4), dpi: 300)
    }
    let xl = try Self.driver("DYMO LabelWriter 4XL")
    #expect(xl.headDots == 1248)
    #expect(try xl.pageArea(media: Media(widthMM: 104, lengthMM: 159), dpi: 300).width == 1228)
    #expect(try Self.driver(settings: LabelSettings(darkness: 9)).density == .dark)
  }

  @Test func rows_matchByUSBIdsOrTheModelName_longestNameFirst() throws {
    let id = { (mdl: String) in DeviceID("MFG:DYMO;CMD: ;MDL:\(mdl);CLASS:PRINTER;") }
    let cases: [(UInt16?, String, String)] = [
      (0x0020, "LabelWriter 450", "DYMO LabelWriter 450"),
      (0x0021, "LabelWriter 450 Turbo", "DYMO LabelWriter 450 Turbo"),
      (nil, "LabelWriter 450 Twin Turbo", "DYMO LabelWriter 450 Twin Turbo"),
      (nil, "LabelWriter 4XL", "DYMO LabelWriter 4XL"),
      (0x0019, "LabelWriter 400", "DYMO LabelWriter 400"),
      (nil, "LabelWriter 315", "DYMO LabelWriter 315"),
      // A LabelWriter no row names is driven as a 450.
      (nil, "LabelWriter SE450", "DYMO LabelWriter 450"),
    ]
    for (product, mdl, name) in cases {
      let m = DriverTable.match(vendorID: 0x0922, productID: product, deviceID: id(mdl))
      #expect(m?.model.name == name && m?.model.language == .dymoLW, "\(mdl)")
    }
    let byIDs = DriverTable.match(vendorID: 0x0922, productID: 0x0020, deviceID: nil)
    #expect(byIDs?.model.name == "DYMO LabelWriter 450")
    // The 550 series speaks another language.
    let lw550 = DriverTable.match(vendorID: 0x0922, productID: nil, deviceID: id("LabelWriter 550"))
    #expect(lw550?.model.language != .dymoLW)
  }
}
