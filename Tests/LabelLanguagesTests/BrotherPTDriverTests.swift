import LabelCore
import Testing

@testable import LabelLanguages

/// The P-touch driver at the seam: tapes as media, page areas, cutting from the printer's
/// finish, what a job asks for, and how devices are matched to rows.
@Suite struct BrotherPTDriverTests {
  static func tape(_ mm: Double) -> Media { Media(widthMM: mm, lengthMM: 0, kind: "tape") }

  @Test func pageArea_isTheTapesPrintArea_acrossTheHead() throws {
    let p700: BrotherPTDriver = try languageDriver("PT-P700", .brotherPT)
    let twelve = try p700.pageArea(media: Self.tape(12), dpi: 180)
    #expect(twelve.width == 70 && twelve.length == nil && twelve.maxLength == 7086 && twelve.tape)
    #expect(
      twelve.description == "12 mm tape prints 70 dots across and at most 7086 lines at 180 dpi")
    #expect(try p700.pageArea(media: Self.tape(3.5), dpi: 180).width == 24)
    #expect(try p700.pageArea(media: Self.tape(4), dpi: 180).width == 24)
    #expect(
      throws: DriverError("PT-P700 takes no 36 mm tape (it takes 3.5, 6, 9, 12, 18, 24 mm)")
    ) { try p700.pageArea(media: Self.tape(36), dpi: 180) }
    #expect(throws: DriverError("PT-P700 takes no 13 mm tape (it takes 3.5, 6, 9, 12, 18, 24 mm)"))
    { try p700.pageArea(media: Self.tape(13), dpi: 180) }
    #expect(throws: DriverError("PT-P700 prints on tape, not 62 x 29 mm labels")) {
      try p700.pageArea(media: Media(widthMM: 62, lengthMM: 29), dpi: 180)
    }
    #expect(throws: DriverError("PT-P700 prints at 180 dpi, not 300")) {
      try p700.pageArea(media: Self.tape(12), dpi: 300)
    }
    let p950: BrotherPTDriver = try languageDriver("PT-P950NW", .brotherPT)
    let wide = try p950.pageArea(media: Self.tape(36), dpi: 360)
    #expect(wide.width == 454 && wide.maxLength == 14173)
    #expect(p700.assumedMedia(labelWidthMM: nil) == Self.tape(24))
    #expect(p700.assumedMedia(labelWidthMM: 12) == Self.tape(12))
    #expect(p700.assumedMedia(labelWidthMM: 62) == Self.tape(24))
    #expect(p950.assumedMedia(labelWidthMM: 36) == Self.tape(36))
  }

  @Test func finish_choosesTheCut() throws {
    let page = Bitmap(width: 10, height: 40)
    func page0(_ name: String, _ finish: String?) throws -> BrotherPTDecodedPage {
      let driver: BrotherPTDriver = try languageDriver(
        name, .brotherPT, settings: LabelSettings(finish: finish))
      let job = try driver.encode(pages: [page], media: Self.tape(12), dpi: driver.pt.head.dpi)
      return try BrotherPTRasterDecoder(model: driver.pt).decode(job).pages[0]
    }
    let standard = try page0("PT-P900W", nil)
    #expect(standard.autoCut && standard.halfCut && !standard.chainPrinting)
    let full = try page0("PT-P900W", "cut")
    #expect(full.autoCut && !full.halfCut)
    let peel = try page0("PT-E550W", "peel")
    #expect(peel.autoCut && peel.halfCut)
    let tear = try page0("PT-E550W", "tear")
    #expect(!tear.autoCut && !tear.halfCut && !tear.chainPrinting)
    // No half cutter: a full cut whatever is asked.
    let p700 = try page0("PT-P700", "peel")
    #expect(p700.autoCut && !p700.halfCut)
  }

  @Test func jobFacts_aTwelveMillimetreJob_onATwentyFourMillimetreCassette_isAMismatch() throws {
    let driver: BrotherPTDriver = try languageDriver("PT-E550W", .brotherPT)
    let page = Bitmap(width: 70, height: 100)
    let job = try driver.encode(pages: [page, page], media: Self.tape(12), dpi: 180)
    let facts = driver.jobFacts(job)
    #expect(
      facts.pages == 2
        && facts.wants == MediaWant(dieCut: false, widthMM: 12, lengthMM: nil, tape: true))
    #expect(facts.mismatch(loaded: Self.tape(12)) == nil)
    #expect(facts.mismatch(loaded: nil) == nil)
    #expect(
      facts.mismatch(loaded: Self.tape(24)) == "the job is for 12 mm tape but 24 mm tape is loaded")
    let narrow = try driver.encode(
      pages: [Bitmap(width: 24, height: 40)], media: Self.tape(3.5), dpi: 180)
    #expect(
      driver.jobFacts(narrow).mismatch(loaded: Self.tape(6))
        == "the job is for 3.5 mm tape but 6 mm tape is loaded")
    #expect(driver.jobFacts([1, 2, 3]) == JobFacts(pages: 1))
  }

  @Test func devices_matchTheirRows_andQLAndPTouchKeepTheirOwn() throws {
    func match(_ product: UInt16?, _ id: String) -> (String, Int)? {
      DriverTable.match(vendorID: 0x04F9, productID: product, deviceID: DeviceID(id)).map {
        ($0.model.name, $0.score)
      }
    }
    // By USB ids and the device id: 100 + 10 + 50 + 20.
    let p700 = try #require(match(0x2061, "MFG:Brother;CMD:PT-CBP;MDL:PT-P700;"))
    #expect(p700.0 == "PT-P700" && p700.1 == 180)
    #expect(match(0x2086, "MFG:Brother;CMD:PT-CBP;MDL:PT-P950NW;")?.0 == "PT-P950NW")
    // By the device id alone (an id no source agrees on).
    #expect(match(0x7777, "MFG:Brother;CMD:PT-CBP;MDL:PT-E550W;")?.0 == "PT-E550W")
    // A P-touch's PT-CBP does not make it a QL, nor a QL's a P-touch.
    #expect(match(nil, "MFG:Brother;CMD:PT-CBP;MDL:PT-P300BT;") == nil)
    #expect(match(0x209D, "MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;")?.0 == "QL-820NWB")
    #expect(match(nil, "MFG:Brother;CMD:PT-CBP;MDL:QL-700;")?.0 == "QL-700")
    let pt = LanguageProfile.brotherPT
    let ql = LanguageProfile.brotherQL
    #expect(pt.speaks(["PT-CBP"], "pt-p700") && !ql.speaks(["PT-CBP"], "pt-p700"))
    #expect(ql.speaks(["PT-CBP"], "ql-820nwb") && !pt.speaks(["PT-CBP"], "ql-820nwb"))
    // Every P-touch row: its own vendor, 180 or 360 dpi, confirmed per page.
    let rows = DriverTable.models.filter { $0.language == .brotherPT }
    #expect(rows.map(\.name) == BrotherPTModel.all.map(\.name))
    #expect(rows.allSatisfy { $0.vendorID == 0x04F9 && $0.capabilities.confirmation == .perPage })
    #expect(rows.first { $0.name == "PT-P900W" }?.capabilities.widthMM == 3.5...36)
    #expect(rows.first { $0.name == "PT-P700" }?.capabilities.dpi == [180])
  }
}
