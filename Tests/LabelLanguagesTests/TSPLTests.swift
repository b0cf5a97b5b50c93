import LabelCore
import Testing

@testable import LabelLanguages

/// TSPL: the bytes a page becomes (checked against the TSC TSPL/TSPL2 Programming Manual by
/// hand), what they decode back to, LPrint's dialect of the same, the `<ESC>!?` status
/// byte, and the driver's page areas and job facts.
@Suite struct TSPLTests {
  static func driver(_ name: String = "Generic TSPL printer", settings: LabelSettings = .init())
    throws -> TSPLDriver
  {
    try languageDriver(name, .tspl, settings: settings)
  }

  static func text(_ bytes: some Collection<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  @Test func goldenBytes_setUpTheMedia_thenOneInvertedBitmap() throws {
    // A 10 x 2 dot page: row 0 has dots 0 and 9 black, row 1 is white. Two bytes a row.
    var page = Bitmap(width: 10, height: 2)
    page[0, 0] = true
    page[9, 0] = true
    let driver = try Self.driver(settings: LabelSettings(darkness: 8, finish: "tear"))
    let bytes = try driver.encode(
      pages: [page], media: Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels"), dpi: 203)
    let head =
      "SIZE 101.6 mm,152.4 mm\r\nGAP 3 mm,0 mm\r\nDIRECTION 0,0\r\nREFERENCE 0,0\r\n"
      + "DENSITY 8\r\nSET CUTTER OFF\r\nSET PEEL OFF\r\nSET TEAR ON\r\nCLS\r\n"
      + "BITMAP 0,0,2,2,0,"
    // 0 bits print black: row 0 = 0111 1111, 1011 1111 (dot 9 black, pad bits 10-15 white).
    let data: [UInt8] = [0x7F, 0xBF, 0xFF, 0xFF]
    #expect(bytes == Array(head.utf8) + data + Array("\r\nPRINT 1,1\r\n".utf8))
  }

  @Test func mediaKinds_sayHowLabelsAreFound_orLeaveThePrintersSetting() throws {
    let page = Bitmap(width: 16, height: 203)
    let driver = try Self.driver()
    let continuous = Self.text(
      try driver.encode(
        pages: [page], media: Media(widthMM: 58, lengthMM: 0, kind: "continuous"), dpi: 203))
    // Continuous: GAP 0,0 and the page as long as the image (203 dots at 203 dpi = 25.4 mm).
    #expect(continuous.hasPrefix("SIZE 58 mm,25.4 mm\r\nGAP 0,0\r\nDIRECTION 0,0\r\n"))
    let unknown = Self.text(
      try driver.encode(pages: [page], media: driver.assumedMedia(labelWidthMM: nil), dpi: 203))
    // Nothing known: as wide and long as the image, no GAP (the printer keeps its own).
    #expect(unknown.hasPrefix("SIZE 2 mm,25.4 mm\r\nDIRECTION 0,0\r\n") && !unknown.contains("GAP"))
    #expect(!unknown.contains("DENSITY") && !unknown.contains("SET "))
  }

  @Test func pages_decodeBackToTheSameDots() throws {
    // A 4 x 6 in label at 203 dpi is 812 x 1218 dots; a pattern with every bit position.
    let page = noise(width: 812, height: 1218, seed: 12345, density: 5)
    var blank = Bitmap(width: 812, height: 1218)
    blank.fill(x: 100, y: 100, width: 300, height: 20)
    let driver = try Self.driver()
    let media = Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels")
    let bytes = try driver.encode(pages: [page, blank], media: media, dpi: 203)
    let job = try TSPLDecoder(dpi: 203).decode(bytes, keepingCommands: true)
    #expect(job.pages.count == 2)
    #expect(job.pages.map(\.image) == [page, blank])
    #expect(job.pages.allSatisfy { $0.widthMM == 101.6 && $0.lengthMM == 152.4 && !$0.continuous })
    #expect(
      job.commands.filter { $0.hasPrefix("BITMAP") }
        == Array(repeating: "BITMAP 0,0,102,1218,0,", count: 2))
    let facts = driver.jobFacts(bytes)
    #expect(
      facts == JobFacts(pages: 2, wants: MediaWant(dieCut: true, widthMM: 101.6, lengthMM: 152.4)))
    #expect(facts.mismatch(loaded: media) == nil)
    #expect(facts.mismatch(loaded: Media(widthMM: 101.6, lengthMM: 0, kind: "continuous")) != nil)
  }

  /// LPrint 1.1's `tspl` driver (lprint-tspl.c): whole millimetres in `SIZE`, LF line ends,
  /// the page as one `BITMAP` in mode 1 (OR) with white as 1, no separator before `PRINT`,
  /// and the copies as the first `PRINT` argument.
  @Test func lprintsDialect_decodesToTheSameDots() throws {
    let rows: [UInt8] = [0x0F, 0xFF, 0xFF, 0xF0]  // 2 bytes a row: dots 0-3, then 12-15 black
    let job =
      Array(
        "SIZE 101 mm,152 mm\nDIRECTION 0,0\nGAP 3 mm,0 mm\nDENSITY 8\nSPEED 4\nCLS\nBITMAP 0,0,2,2,1,"
          .utf8)
      + rows + Array("PRINT 3,1\n".utf8)
    let decoded = try TSPLDecoder(dpi: 203).decode(job)
    let page = try #require(decoded.pages.first)
    #expect(decoded.pages.count == 1 && page.copies == 3)
    let image = try #require(page.image)
    #expect(image.width == 807 && image.height == 1215)  // 101 and 152 mm at 203 dpi
    let black = (0..<2).flatMap { y in (0..<16).filter { image[$0, y] }.map { "\($0),\(y)" } }
    #expect(black == ["0,0", "1,0", "2,0", "3,0", "12,1", "13,1", "14,1", "15,1"])
    #expect(image.blackCount == 8)
    #expect(try Self.driver().jobFacts(job).pages == 3)
  }

  @Test func bitmapModes_overwriteOrAndXor_onTheBlackDots() throws {
    func job(_ modes: [Int]) -> [UInt8] {
      var out = Array("SIZE 1 dot,1 dot\r\nCLS\r\n".utf8)
      for (i, mode) in modes.enumerated() {
        // Alternately a black and a white dot 0 (0x7F: dot 0 black; 0xFF: white).
        out += Array("BITMAP 0,0,1,1,\(mode),".utf8) + [i % 2 == 0 ? 0x7F : 0xFF] + [0x0A]
      }
      return out + Array("PRINT 1\r\n".utf8)
    }
    func dot(_ modes: [Int]) throws -> Bool {
      let page = try #require(try TSPLDecoder(dpi: 203).decode(job(modes)).pages.first)
      return try #require(page.image)[0, 0]
    }
    #expect(try dot([0]))
    #expect(!(try dot([0, 0])))  // overwrite: white over black is white
    #expect(try dot([0, 1]))  // OR: white adds nothing
    #expect(try dot([0, 2]))  // XOR with white changes nothing
    #expect(try dot([2]))  // XOR with black on white is black
    #expect(!(try dot([2, 1, 2])))  // and black again toggles it back
  }

  @Test func malformedJobs_areTypedErrors_neverATrap() {
    let decoder = TSPLDecoder(dpi: 203)
    let cases: [(String, [UInt8])] = [
      ("data cut short", Array("SIZE 10 mm,10 mm\nCLS\nBITMAP 0,0,10,10,0,".utf8) + [1, 2, 3]),
      ("no SIZE", Array("CLS\n".utf8)),
      ("before CLS", Array("SIZE 10 mm,10 mm\nBITMAP 0,0,1,1,0,".utf8) + [0]),
      ("huge", Array("SIZE 10 mm,10 mm\nCLS\nBITMAP 0,0,9999999,9999999,0,".utf8)),
      ("negative", Array("SIZE 10 mm,10 mm\nCLS\nBITMAP -1,0,1,1,0,".utf8) + [0]),
      ("bad mode", Array("SIZE 10 mm,10 mm\nCLS\nBITMAP 0,0,1,1,7,".utf8) + [0]),
      ("header never ends", Array("BITMAP 0,0,1".utf8) + [UInt8](repeating: 0x31, count: 64)),
      ("PRINT 0", Array("SIZE 10 mm,10 mm\nPRINT 0\n".utf8)),
      ("PRINT overflow", Array("SIZE 10 mm,10 mm\nPRINT 99999999999999999999\n".utf8)),
      ("SIZE in furlongs", Array("SIZE 1 furlong,1 mm\n".utf8)),
      ("SIZE nan", Array("SIZE nan mm,1 mm\n".utf8)),
    ]
    for (name, bytes) in cases {
      #expect(throws: TSPLDecodeError.self, "\(name)") { try decoder.decode(bytes) }
    }
    // An enormous SIZE is clamped to what a label holds, not allocated.
    let big = try? decoder.decode(Array("SIZE 99999 mm,99999 mm\nCLS\nPRINT 1\n".utf8))
    let image = big?.pages.first?.image
    #expect(image?.width == 8192 && image?.height == 32768)
    // Facts of bytes that are not TSPL: one label, nothing asked of the media.
    #expect((try? Self.driver().jobFacts(Array("^XA^XZ".utf8))) == JobFacts(pages: 1))
  }

  @Test func statusByte_eachBitIsItsReason() throws {
    let table: [(UInt8, [Reason])] = [
      (0x00, []), (0x01, [.coverOpen]), (0x02, [.mediaJam]), (0x04, [.mediaEmpty]),
      (0x08, [.ribbonEmpty]), (0x10, [.paused]), (0x20, []), (0x40, [.coverOpen]),
      (0x80, [.headError]), (0x05, [.coverOpen, .mediaEmpty]), (0x41, [.coverOpen]),
      (0xFF, [.coverOpen, .mediaJam, .mediaEmpty, .ribbonEmpty, .paused, .headError]),
    ]
    let driver = try Self.driver()
    for (byte, reasons) in table {
      #expect(TSPLStatus(byte).reasons == reasons, "status \(byte)")
      #expect(try driver.faults(inStatus: [byte]) == reasons)
      guard case .status(let status, let consumed) = driver.scanStatus([byte, 0x99][...]) else {
        Issue.record("no status in \(byte)")
        continue
      }
      #expect(consumed == 1 && status.kind == .reply && status.faults == reasons)
    }
    #expect(TSPLStatus(0x20).isPrinting && TSPLStatus(0x24).reasons == [.mediaEmpty])
    #expect(driver.scanStatus(ArraySlice<UInt8>()) == .needMore)
    #expect(throws: DriverError.self) { try driver.faults(inStatus: [0, 0]) }
    #expect(driver.statusRequest == [0x1B, 0x21, 0x3F] && driver.statusRequestName == "<ESC>!?")
  }

  @Test func pageAreas_andTheModelsRows() throws {
    let driver = try Self.driver("Rollo X1038")
    let label = try driver.pageArea(media: Media(widthMM: 101.6, lengthMM: 152.4), dpi: 203)
    #expect(label.width == 812 && label.length == 1218 && label.maxLength == nil)
    #expect(label.description == "101.6 x 152.4 mm label is 812 x 1218 dots at 203 dpi")
    let roll = try driver.pageArea(media: Media(widthMM: 58, lengthMM: 0), dpi: 203)
    #expect(roll.width == 464 && roll.length == nil && roll.maxLength == 7992)
    #expect(throws: DriverError.self) {
      try driver.pageArea(media: Media(widthMM: 110, lengthMM: 0), dpi: 203)
    }
    // Settings: darkness clamps to DENSITY's 0-15; finishing by name.
    let dark = try Self.driver(settings: LabelSettings(darkness: 30, finish: "cut"))
    #expect(dark.density == 15 && dark.finish == .cut)

    // USB ids choose the row; a TSPL device id alone is the generic printer.
    let rollo = DriverTable.match(
      vendorID: 0x09C5, productID: 0x0588,
      deviceID: DeviceID("MFG:Printer;MDL:Thermal Printer;CMD:XPP,XL;"))
    #expect(rollo?.model.name == "Rollo X1038")
    let tsc = DriverTable.match(vendorID: 0x1203, productID: 0x0230, deviceID: nil)
    #expect(tsc?.model.name == "TSC TX200" && tsc?.model.make == "TSC")
    let other = DriverTable.match(
      vendorID: 0x1234, productID: 0x5678, deviceID: DeviceID("MFG:4BARCODE;CMD:TSPL2;MDL:3B-363B;")
    )
    #expect(other?.model == DriverTable.genericTSPL)
    #expect(LanguageProfile.tspl.namedIn("TSC TSPL LABEL PRINTER"))
  }
}
