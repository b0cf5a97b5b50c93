import LabelCore
import Testing

@testable import LabelLanguages

/// The P-touch raster encoder against Brother's Raster Command References: the job's
/// commands byte for byte, each tape's print area on the head, and round trips through
/// the decoder.
@Suite struct BrotherPTRasterTests {
  static func model(_ name: String) throws -> BrotherPTModel {
    try #require(BrotherPTModel.named(name))
  }

  static func encoder(_ name: String, tape mm: Double, halfCut: Bool = false) throws
    -> BrotherPTEncoder
  {
    let model = try model(name)
    return try BrotherPTEncoder(
      BrotherPTOptions(
        model: model, tape: #require(model.head.tape(widthMM: mm)), halfCut: halfCut))
  }

  @Test func job_isTheReferencesSequence_andItsPrintInformationBrothersExample() throws {
    // Brother's example of `ESC i z` for "100 mm on 24-mm-wide tape with the 180 dpi
    // model" is 84 00 18 00 9C 02 00 00 00 00: recover and width valid, media type 00,
    // 24 mm, 668 lines, first page. The same page here, 668 lines:
    var page = Bitmap(width: 128, height: 668)
    page.fill(x: 0, y: 0, width: 128, height: 1)
    let job = try Self.encoder("PT-P700", tape: 24).encode([page])
    #expect(job.prefix(100).allSatisfy { $0 == 0 })
    let header: [UInt8] =
      [0x1B, 0x40, 0x1B, 0x69, 0x61, 0x01]
      + [0x1B, 0x69, 0x7A, 0x84, 0x00, 0x18, 0x00, 0x9C, 0x02, 0x00, 0x00, 0x00, 0x00]
      + [0x1B, 0x69, 0x4D, 0x40]  // auto cut
      + [0x1B, 0x69, 0x41, 0x01]  // cut each label
      + [0x1B, 0x69, 0x4B, 0x08]  // no chain printing (the P700 has no half cutter)
      + [0x1B, 0x69, 0x64, 0x0E, 0x00]  // 14 dots feed: the references' minimum
      + [0x4D, 0x02]  // TIFF (PackBits)
    #expect(Array(job[100..<(100 + header.count)]) == header)
    // The first line is all black: 16 bytes of FF as one PackBits run; the rest `Z`.
    let lines = job[(100 + header.count)...]
    #expect(Array(lines.prefix(5)) == [0x47, 0x02, 0x00, 0xF1, 0xFF])
    #expect(lines.dropFirst(5).dropLast() == ArraySlice(repeating: 0x5A, count: 667))
    #expect(job.last == 0x1A)
  }

  @Test func pages_areNumbered_andTheP900MarksTheLast() throws {
    let page = Bitmap(width: 10, height: 40)
    func indices(_ name: String, _ mm: Double, pages: Int) throws -> [UInt8] {
      let model = try Self.model(name)
      let job = try Self.encoder(name, tape: mm).encode(Array(repeating: page, count: pages))
      return try BrotherPTRasterDecoder(model: model).decode(job).pages.map {
        try #require($0.printInformation).pageIndex
      }
    }
    #expect(try indices("PT-E550W", 12, pages: 3) == [0, 1, 1])
    #expect(try indices("PT-P900W", 12, pages: 3) == [0, 1, 2])
    // "The output will be 2 regardless of starting/last page for the job consists of
    // single page" (PT-P900 reference, ESC i z).
    #expect(try indices("PT-P950NW", 36, pages: 1) == [2])
  }

  @Test func eachTape_inksExactlyItsPrintArea_fromColumnZeroAtItsFarEnd() throws {
    for model in BrotherPTModel.all {
      for tape in model.head.tapes {
        var page = Bitmap(width: tape.printableDots, height: 40)
        page.fill(x: 0, y: 0, width: tape.printableDots, height: 1)
        page[0, 1] = true
        let job = try BrotherPTEncoder(BrotherPTOptions(model: model, tape: tape)).encode([page])
        let decoded = try BrotherPTRasterDecoder(model: model).decode(job)
        let first = try #require(decoded.pages.first)
        #expect(first.lines.count == max(40, model.head.lineRange.lowerBound))
        #expect(first.dotsOutside(tape: tape) == 0, "\(model) \(tape)")
        // Row 0 inks every pin of the area; row 1 only column 0, the area's last pin.
        let pins = (0..<(model.head.pins)).filter {
          first.lines[0][$0 / 8] & (0x80 >> ($0 % 8)) != 0
        }
        #expect(pins == Array(tape.leftPins..<(tape.leftPins + tape.printableDots)))
        let one = (0..<(model.head.pins)).filter {
          first.lines[1][$0 / 8] & (0x80 >> ($0 % 8)) != 0
        }
        #expect(one == [tape.leftPins + tape.printableDots - 1], "\(model) \(tape)")
        #expect(first.printInformation?.widthByte == tape.widthByte)
      }
    }
  }

  @Test func roundTrip_noise_onEveryHeadAndTape() throws {
    for model in BrotherPTModel.all {
      for (n, tape) in model.head.tapes.enumerated() {
        let page = noise(
          width: tape.printableDots, height: 120, seed: UInt32(n + 1), density: 5,
          skipping: { $0 % 7 == 3 })
        let narrow = noise(width: tape.printableDots / 2, height: 60, seed: 99, density: 8)
        let job = try BrotherPTEncoder(BrotherPTOptions(model: model, tape: tape)).encode([
          page, narrow,
        ])
        let decoded = try BrotherPTRasterDecoder(model: model).decode(job)
        #expect(decoded.pages.count == 2 && decoded.invalidateCount == model.invalidateCount)
        #expect(decoded.pages[0].bitmap(tape: tape) == page)
        #expect(decoded.pages[0].blankLines == 17)
        // A narrower page is placed from column 0; the rest of the area stays white.
        var padded = Bitmap(width: tape.printableDots, height: 60)
        for y in 0..<60 { for x in 0..<narrow.width where narrow[x, y] { padded[x, y] = true } }
        #expect(decoded.pages[1].bitmap(tape: tape) == padded)
        #expect(decoded.pages.allSatisfy { $0.compressed && $0.autoCut && !$0.chainPrinting })
      }
    }
  }

  @Test func packBitsThatWouldGrow_isSentAsOneLiteralRun() throws {
    // Alternating pairs make PackBits longer than the line: the references say such a
    // line is "treated as being all different", 1 + 16 bytes.
    let encoder = try Self.encoder("PT-P700", tape: 24)
    let line: [UInt8] = [1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10, 11]
    #expect(PackBits.encode(line).count > 16)
    var out: [UInt8] = []
    encoder.appendLine(line, to: &out)
    #expect(out == [0x47, 17, 0, 15] + line)
  }

  @Test func halfCut_chain_andNoCut_areTheAdvancedAndVariousModes() throws {
    let page = Bitmap(width: 8, height: 40)
    let p900 = try Self.model("PT-P900W")
    let half = try BrotherPTEncoder(
      BrotherPTOptions(model: p900, tape: #require(p900.head.tape(widthMM: 24)), halfCut: true))
    let h = try BrotherPTRasterDecoder(model: p900).decode(half.encode([page])).pages[0]
    #expect(h.halfCut && h.autoCut && h.advancedMode == 0x0C && h.cutEvery == 1)
    #expect(h.feedDots == 14)
    let chain = try BrotherPTEncoder(
      BrotherPTOptions(
        model: p900, tape: #require(p900.head.tape(widthMM: 24)), autoCut: false,
        chainPrinting: true))
    let c = try BrotherPTRasterDecoder(model: p900).decode(chain.encode([page])).pages[0]
    #expect(!c.autoCut && c.chainPrinting && c.variousMode == 0 && c.cutEvery == nil)
    // The PT-P710BT takes no `ESC i A` and has no half cutter.
    let p710 = try Self.encoder("PT-P710BT", tape: 12, halfCut: true)
    let p = try BrotherPTRasterDecoder(bytesPerLine: 16).decode(p710.encode([page])).pages[0]
    #expect(p.cutEvery == nil && !p.halfCut && p.autoCut)
  }

  @Test func badPagesAndTapes_areRefused() throws {
    let p700 = try Self.model("PT-P700")
    #expect(throws: BrotherPTError.self) {
      try BrotherPTEncoder(BrotherPTOptions(model: p700, tape: BrotherPTHead.pins560.tapes[6]))
    }
    let encoder = try Self.encoder("PT-P700", tape: 12)
    #expect(throws: BrotherPTError(.tooWide, "page 1 is 71 dots across; 12 mm tape prints 70")) {
      try encoder.encode([Bitmap(width: 71, height: 40)])
    }
    #expect(throws: BrotherPTError.self) { try encoder.encode([Bitmap(width: 70, height: 7087)]) }
    #expect(throws: BrotherPTError.self) { try encoder.encode([]) }
  }

  @Test func decoder_readsSettingsSentOnce_andRefusesWhatIsNotAJob() throws {
    // rastertoptch's order: mode settings first, ESC i z just before each page's lines,
    // the settings only before the first page.
    var job: [UInt8] = Array(repeating: 0, count: 350) + [0x1B, 0x40, 0x1B, 0x69, 0x61, 0x01]
    job += [0x1B, 0x69, 0x4D, 0x40, 0x1B, 0x69, 0x4B, 0x08, 0x1B, 0x69, 0x64, 0, 0, 0x4D, 0x02]
    let info: (UInt8) -> [UInt8] = { [0x1B, 0x69, 0x7A, 0x84, 0, 12, 0, 2, 0, 0, 0, $0, 0] }
    job += info(0) + [0x47, 0x02, 0x00, 0xF1, 0xFF, 0x5A, 0x0C]
    job += info(1) + [0x5A, 0x47, 0x02, 0x00, 0x00, 0x00, 0x1A]
    let decoded = try BrotherPTRasterDecoder(bytesPerLine: 16).decode(job)
    #expect(decoded.invalidateCount == 350 && decoded.commandMode == 1)
    #expect(decoded.pages.count == 2)
    #expect(decoded.pages.allSatisfy { $0.autoCut && $0.feedDots == 0 && $0.compressed })
    #expect(decoded.pages[1].lines[1] == Array(repeating: 0, count: 16))
    #expect(decoded.pages[1].printInformation?.tapeWidthMM == 12)

    let decoder = BrotherPTRasterDecoder(bytesPerLine: 16)
    #expect(throws: BrotherPTError.self) { try decoder.decode(Array(job.dropLast())) }
    #expect(throws: BrotherPTError.self) { try decoder.decode(job + [0]) }
    // A line for a wider head, and ESC i z counting more lines than came.
    #expect(throws: BrotherPTError.self) {
      try decoder.decode([0x1B, 0x40, 0x4D, 0x02, 0x47, 0x02, 0x00, 0xEE, 0xFF, 0x1A])
    }
    #expect(throws: BrotherPTError.self) { try decoder.decode(info(0) + [0x5A, 0x1A]) }
    #expect(throws: BrotherPTError.self) { try decoder.decode([0x5A, 0x1B, 0x69, 0x4D, 0, 0x1A]) }
  }
}
