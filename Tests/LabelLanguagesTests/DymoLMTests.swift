import LabelCore
import Testing

@testable import LabelLanguages

/// DYMO LabelManager: the bytes a page becomes (DYMO's `CLabelManagerDriver` in
/// dymo-cups-drivers 1.4.0, followed by hand), where a page sits on each head, what the
/// bytes decode back to, the `ESC A` answer, the page area and the rows.
@Suite struct DymoLMTests {
  static func driver(_ name: String = "DYMO LabelManager PnP") throws -> DymoLMDriver {
    try languageDriver(name, .dymoLM)
  }

  static let esc: UInt8 = 0x1B
  static let syn: UInt8 = 0x16
  static let tape12 = Media(widthMM: 12, lengthMM: 0, kind: "tape")

  /// `n` white lines as DYMO writes them: `ESC D 0` and a `SYN` each.
  static func skip(_ n: Int) -> [UInt8] {
    [esc, 0x44, 0] + [UInt8](repeating: syn, count: n)
  }

  @Test func goldenBytes_cleanColourLeaderLinesTrailerAndTheFeedToTheCutter() throws {
    // 16 x 4 dots: row 1 has dots 0 and 9, row 2 dot 15; rows 0 and 3 are white.
    var page = Bitmap(width: 16, height: 4)
    page[0, 1] = true
    page[9, 1] = true
    page[15, 2] = true
    let bytes = try Self.driver().encode(pages: [page], media: Self.tape12, dpi: 180)
    let esc = Self.esc
    let expected: [UInt8] =
      [UInt8](repeating: 0, count: 8) + [esc, 0x43, 0]  // clean the 8-byte line; colour 0
      + Self.skip(75 - 58)  // leader: 75 lines from the last cut, 58 of them already fed
      + Self.skip(1)  // row 0
      + [esc, 0x42, 0, esc, 0x44, 2, Self.syn, 0x80, 0x40]  // row 1: tab 0, 2 bytes
      + [esc, 0x42, 1, esc, 0x44, 1, Self.syn, 0x01]  // row 2: tab 1, 1 byte
      // The trailer: 75 lines, 26 more as the label is shorter than the PnP's 30 lines,
      // and the white row 3.
      + Self.skip(75 + 26 + 1)
      + Self.skip(58)  // to the cutter; the PnP has no automatic one: no ESC E
    #expect(bytes == expected)
    // The 400 cuts, and a 12 mm page sits 4 dots in on its 96-dot head: row 1's dots 0 and
    // 9 are head dots 4 and 13.
    let cut = try Self.driver("DYMO LabelManager 400").encode(
      pages: [page], media: Self.tape12, dpi: 180)
    #expect(Array(cut.suffix(2)) == [esc, 0x45])
    #expect(
      cut.starts(with: [UInt8](repeating: 0, count: 12) + [esc, 0x43, 0] + Self.skip(20)))
    let line: [UInt8] = [esc, 0x42, 0, esc, 0x44, 2, Self.syn, 0x08, 0x04]
    #expect(cut.firstRange(of: line) != nil)
  }

  /// Where DYMO's filter puts each tape's CUPS page (45, 65, 88, 138, 170 dots wide) on
  /// each head: centred when the page's line fits the head, else cut to the head's bytes.
  @Test func placement_isDYMOsForEveryModelAndTape() {
    func place(_ name: String) -> [Int: [Int]] {
      let m = DymoLMModel.named("DYMO \(name)")!
      return Dictionary(
        uniqueKeysWithValues: m.tapes.map { t in
          let p = m.placement(for: t)
          return (t.widthMM, [p.shift, p.columns])
        })
    }
    #expect(DymoLMTape.allCases.map { $0.rasterDots(dpi: 180) } == [45, 65, 88, 138, 170])
    #expect(place("LabelManager PnP") == [6: [8, 45], 9: [0, 64], 12: [0, 64]])
    #expect(place("LabelManager 280") == place("LabelManager PnP"))
    #expect(
      place("LabelManager 400") == [
        6: [24, 45], 9: [12, 65], 12: [4, 88], 19: [0, 96], 24: [0, 96],
      ])
    #expect(place("LabelManager PC") == place("LabelManager 400"))
    #expect(
      place("LabelManager 450") == [
        6: [40, 45], 9: [28, 65], 12: [20, 88], 19: [0, 128], 24: [0, 128],
      ])
    #expect(
      place("LabelManager 420P") == [6: [40, 45], 9: [28, 65], 12: [20, 88], 19: [0, 128]])
    // The PC II: DYMO's +2 dots for 12 mm and −4 for 19 mm.
    #expect(
      place("LabelManager PC II") == [
        6: [40, 45], 9: [28, 65], 12: [22, 88], 19: [-4, 128], 24: [0, 128],
      ])
  }

  @Test func pages_decodeBackToTheSameDots_onTheHeadWhereDYMOPutsThem() throws {
    for (name, tape, shift) in [
      ("DYMO LabelManager PnP", 6.0, 8), ("DYMO LabelManager PnP", 12, 0),
      ("DYMO LabelManager 450", 12, 20), ("DYMO LabelManager PC II", 19, -4),
    ] {
      let driver = try Self.driver(name)
      let media = Media(widthMM: tape, lengthMM: 0, kind: "tape")
      let area = try driver.pageArea(media: media, dpi: 180)
      let width = try #require(area.width)
      let page = noise(width: width, height: 300, seed: 5, density: 4, skipping: { $0 % 7 == 3 })
      let bytes = try driver.encode(pages: [page], media: media, dpi: 180)
      let head = driver.printer.headDots
      let job = try DymoLMDecoder(headDots: head).decode(bytes)
      #expect(job.pages.count == 1 && job.tapeColour == 0 && job.statusRequests == 0)
      let image = try #require(job.pages.first?.image)
      let leader = driver.printer.normalLeader - driver.printer.cutterLines
      #expect(image.width == head)
      #expect(image.height == leader + 300 + 75 + driver.printer.cutterLines)
      var expected = Bitmap(width: head, height: image.height)
      for y in 0..<300 {
        for x in 0..<width where page[x, y] { expected[x + shift, y + leader] = true }
      }
      #expect(image == expected, "\(name) \(tape) mm")
    }
  }

  @Test func labelsOfAJob_areCutOrDividedByChainMarks() throws {
    var page = Bitmap(width: 64, height: 200)
    page.fill(x: 2, y: 10, width: 50, height: 20)
    // The 400 cuts between labels (and at the end) after feeding to the cutter.
    let cut = try Self.driver("DYMO LabelManager 400").encode(
      pages: [page, page, page], media: Self.tape12, dpi: 180)
    let cutJob = try DymoLMDecoder().decode(cut)
    #expect(cutJob.pages.map(\.end) == [.cut, .cut, .cut])
    #expect(try Self.driver("DYMO LabelManager 400").jobFacts(cut) == JobFacts(pages: 3))
    // The PnP has no cutter: a chain mark (a dashed line) between labels, none at the end.
    let pnp = try Self.driver().encode(pages: [page, page], media: Self.tape12, dpi: 180)
    let mark: [UInt8] = [Self.esc, 0x42, 0, Self.esc, 0x44, 8, Self.syn] + [0x99] * 8
    #expect(pnp.firstRange(of: mark) != nil)
    let pnpJob = try DymoLMDecoder().decode(pnp)
    #expect(pnpJob.pages.map(\.end) == [.chainMark, .end])
    // The second label's leader is the full 75 lines (no cut moved the tape).
    #expect(pnpJob.pages[1].image?[2, 75 + 10] == true)
    #expect(try Self.driver().jobFacts(pnp) == JobFacts(pages: 2))
    #expect(try Self.driver().jobFacts([0x42, 0x42]) == JobFacts(pages: 1))
  }

  @Test func decoder_readsLabellesAndTheTS500sFraming_andRefusesWhatIsNotLabelManager() throws {
    // labelle: ESC C 0, ESC D 8, SYN lines (white ones too), ESC A twice at the end.
    let labelle: [UInt8] =
      [Self.esc, 0x43, 0, Self.esc, 0x44, 8] + [Self.syn] + [0xFF] + [0] * 7
      + [Self.syn] + [0] * 8 + [Self.esc, 0x41, Self.esc, 0x41]
    let job = try DymoLMDecoder(headDots: 64).decode(labelle)
    #expect(job.statusRequests == 2 && job.pages.count == 1 && job.pages[0].lines == 2)
    #expect(job.pages[0].image?.blackCount == 8)
    // The 500TS wraps the stream in ESC Y blocks.
    let ts: [UInt8] = [Self.esc, 0x59, 1, 0, 0, 0, 3, Self.esc, 0x44, 1, Self.syn, 0x80]
    #expect(try DymoLMDecoder().decode(ts).pages.first?.image?[0, 0] == true)
    #expect(throws: DymoLMDecodeError.self) { try DymoLMDecoder().decode([Self.esc, 0x40]) }
    #expect(throws: DymoLMDecodeError.self) { try DymoLMDecoder().decode([0x41]) }
    #expect(throws: DymoLMDecodeError.self) {
      try DymoLMDecoder().decode([Self.esc, 0x44, 4, Self.syn, 1])  // cut short
    }
    #expect(throws: DymoLMDecodeError.self) {
      try DymoLMDecoder(headDots: 64).decode([Self.esc, 0x42, 8, Self.esc, 0x44, 1, Self.syn, 1])
    }
    var limited = DymoLMDecoder()
    limited.maxLines = 10
    #expect(throws: DymoLMDecodeError.self) { try limited.decode(Self.skip(11)) }
  }

  @Test func pageArea_isTheTapesColumns_andATapeTheModelCannotTakeIsRefused() throws {
    let pnp = try Self.driver()
    let area = try pnp.pageArea(media: Self.tape12, dpi: 180)
    #expect(
      area
        == PageArea(
          width: 64, length: nil, maxLength: 10000,
          description: "12 mm tape prints 64 dots across and at most 10000 lines at 180 dpi",
          tape: true))
    #expect(try pnp.pageArea(media: Media(widthMM: 6, lengthMM: 0), dpi: 180).width == 45)
    #expect(try pnp.pageArea(media: Media(widthMM: 0, lengthMM: 0), dpi: 180).width == 64)
    #expect(
      throws: DriverError(
        "DYMO LabelManager PnP takes 6, 9 or 12 mm D1 tape; 19 mm tape is not one of them")
    ) { try pnp.pageArea(media: Media(widthMM: 19, lengthMM: 0), dpi: 180) }
    #expect(throws: DriverError.self) {
      try pnp.encode(pages: [], media: Media(widthMM: 62, lengthMM: 0), dpi: 180)
    }
    #expect(throws: DriverError("DYMO LabelManager PnP prints at 180 dpi, not 300")) {
      try pnp.encode(pages: [], media: Self.tape12, dpi: 300)
    }
    let lm450 = try Self.driver("DYMO LabelManager 450")
    #expect(try lm450.pageArea(media: Media(widthMM: 24, lengthMM: 0), dpi: 180).width == 128)
    #expect(pnp.assumedMedia(labelWidthMM: nil) == Self.tape12)
    #expect(pnp.assumedMedia(labelWidthMM: 9) == Media(widthMM: 9, lengthMM: 0, kind: "tape"))
    #expect(pnp.assumedMedia(labelWidthMM: 24) == Self.tape12)
    #expect(lm450.assumedMedia(labelWidthMM: 24).widthMM == 24)
  }

  /// The bits DYMO's language monitor names (`LabelManagerLanguageMonitor.h`), the tape
  /// in byte 1, and the PnP's answers reported from the field (0x40 idle, 0x60 printing,
  /// 0x00 with the cassette out).
  @Test func status_mapsTheDocumentedBits() throws {
    let pnp = try Self.driver()
    func reasons(_ b0: UInt8, _ b1: UInt8 = 0) throws -> [Reason] {
      try pnp.faults(inStatus: [b0, b1, 18, 100, 13, 181, 0, 0])
    }
    #expect(try reasons(0x40) == [])
    #expect(try reasons(0x60) == [])  // busy: printing
    #expect(try reasons(0x00) == [.mediaEmpty])  // no cassette
    #expect(try reasons(0x48) == [.headError])  // overheated
    #expect(try reasons(0x44) == [.unknown])  // general error
    #expect(try reasons(0x54) == [.unknown])  // general and slot errors: one unknown
    #expect(try reasons(0x0C) == [.mediaEmpty, .headError, .unknown])
    #expect(try reasons(0xC0) == [])  // "auto cutter / no power": no one says which
    #expect(throws: DriverError.self) { try pnp.faults(inStatus: [0x40]) }
    // The scanner reads 8 bytes; byte 1 names the tape on the PnP (3: 12 mm).
    #expect(pnp.scanStatus([0x40, 3, 0, 0, 0, 0, 0][...]) == .needMore)
    guard case .status(let status, 8) = pnp.scanStatus([0x40, 3, 2, 100, 13, 186, 0, 0, 9][...])
    else {
      Issue.record("no status")
      return
    }
    #expect(status.faults.isEmpty && status.kind == .reply)
    #expect(status.media == Media(widthMM: 12, lengthMM: 0, kind: "tape"))
    #expect(status.detail == "ESC A status 40 03")
    guard case .unreadable(_, 8) = pnp.scanStatus([0x40, 9, 0, 0, 0, 0, 0, 0][...]) else {
      Issue.record("a tape code past 5 was read")
      return
    }
    // The 400's second byte is not DYMO's tape code: no media from it.
    let lm400 = try Self.driver("DYMO LabelManager 400")
    guard case .status(let other, 8) = lm400.scanStatus([0x00, 9, 0, 0, 0, 0, 0, 0][...]) else {
      Issue.record("no status")
      return
    }
    #expect(other.media == nil && other.faults == [.mediaEmpty])
    #expect(
      DymoLMStatus([0x40, 5], reportsTape: true).tape == .mm24
        && DymoLMStatus([0x40, 0], reportsTape: true).tape == nil)
  }

  @Test func rows_matchLabelManagersByIdAndName_andLabelWritersStayLabelWriters() throws {
    func match(_ product: UInt16?, _ id: String?) -> String? {
      DriverTable.match(
        vendorID: 0x0922, productID: product, deviceID: id.map { DeviceID($0) })?.model.name
    }
    #expect(match(0x1002, nil) == "DYMO LabelManager PnP")
    #expect(match(0x1004, nil) == "DYMO LabelManager 420P")
    #expect(match(0x1006, nil) == "DYMO LabelManager 280")
    #expect(match(0x0013, nil) == "DYMO LabelManager 400")
    #expect(match(0x0011, nil) == "DYMO LabelManager PC")
    // The storage-mode id is no printer: usb_modeswitch makes it 0x1002 first.
    #expect(match(0x1001, nil) == nil)
    #expect(match(nil, "MFG:DYMO;MDL:DYMO LabelMANAGER PC II;") == "DYMO LabelManager PC II")
    #expect(match(nil, "MFG:DYMO;MDL:DYMO LabelMANAGER PC;") == "DYMO LabelManager PC")
    #expect(match(nil, "MFG:DYMO;MDL:DYMO LabelMANAGER 450;") == "DYMO LabelManager 450")
    #expect(match(0x0020, "MFG:DYMO;MDL:LabelWriter 450;") == "DYMO LabelWriter 450")
    #expect(match(nil, "MFG:DYMO;MDL:LabelWriter 550 Turbo;") == "DYMO LabelWriter 550 Turbo")
    // A LabelManager of no row (the Wireless PnP) is not driven as another's head.
    #expect(match(0x1008, "MFG:DYMO;MDL:DYMO LabelManager Wireless PnP;") == nil)
    #expect(LanguageProfile.dymoLM.speaks([], "dymo labelmanager pnp"))
    #expect(!LanguageProfile.dymoLW.speaks([], "dymo labelmanager pnp"))
    #expect(!LanguageProfile.dymoLM.speaks([], "labelwriter 450"))
    #expect(LanguageProfile.dymoLM.namedIn("DYMO LABELMANAGER PC II"))
    #expect(!LanguageProfile.dymoLW.namedIn("DYMO LABELMANAGER PC II"))
    let pnp = try #require(DriverTable.model(named: "DYMO LabelManager PnP", language: .dymoLM))
    #expect(pnp.capabilities.dpi == [180] && pnp.capabilities.widthMM == 6...12)
    #expect(pnp.capabilities.finishing == [.tear] && pnp.capabilities.darkness == nil)
    #expect(pnp.capabilities.confirmation == .statusAfterSend)
    let lm400 = try #require(
      DriverTable.model(named: "DYMO LabelManager 400", language: .dymoLM))
    #expect(lm400.capabilities.finishing == [.cut])
  }
}

extension Array where Element == UInt8 {
  fileprivate static func * (lhs: [UInt8], rhs: Int) -> [UInt8] {
    (0..<rhs).flatMap { _ in lhs }
  }
}
