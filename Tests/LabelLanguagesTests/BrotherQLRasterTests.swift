import Testing

@testable import LabelLanguages

/// Test helpers: models and media by name (a missing one is a broken table: crash).
func model(_ name: String) -> BrotherQLModel { BrotherQLModel.named(name)! }
func media(_ id: String) -> BrotherQLMedia { BrotherQLMedia.named(id)! }

/// A bitmap with random blocks and noise, so lines mix runs, literals and blanks.
func randomBitmap(width: Int, height: Int) -> Bitmap {
  var b = Bitmap(width: width, height: height)
  for _ in 0..<Int.random(in: 0...12) {
    b.fill(
      x: Int.random(in: 0..<max(1, width)), y: Int.random(in: 0..<max(1, height)),
      width: Int.random(in: 1...200), height: Int.random(in: 1...6))
  }
  for _ in 0..<Int.random(in: 0...40) {
    b[Int.random(in: 0..<max(1, width)), Int.random(in: 0..<max(1, height))] = true
  }
  return b
}

struct BrotherQLRasterGoldenTests {
  /// 62 mm continuous, QL-720NW, three lines: blank, one dot at x = 0, all black.
  /// Written out by hand from the command references; the dot lands on head dot
  /// 12 + 696 - 1 - 0 = 707 (byte 88, bit 0x10). The QL-720NW takes at least 150 lines
  /// on continuous rolls, so 147 blank lines (`Z`) follow and the count says 150.
  @Test func compressedJob_matchesHandWrittenBytes() throws {
    var page = Bitmap(width: 696, height: 3)
    page[0, 1] = true
    page.fill(x: 0, y: 2, width: 696, height: 1)
    let job = try BrotherQLEncoder(.init(model: model("QL-720NW"), media: media("62")))
      .encode([page])
    var expected = [UInt8](repeating: 0, count: 200)
    expected += [0x1B, 0x40]  // ESC @
    expected += [0x1B, 0x69, 0x61, 0x01]  // ESC i a 01: raster mode
    // ESC i z: valid CE (recover, kind, width, length, quality), continuous, 62 mm, length 0,
    // 150 lines little-endian, first page, 0.
    expected += [0x1B, 0x69, 0x7A, 0xCE, 0x0A, 0x3E, 0x00, 0x96, 0x00, 0x00, 0x00, 0x00, 0x00]
    expected += [0x1B, 0x69, 0x4D, 0x40]  // ESC i M: auto cut
    expected += [0x1B, 0x69, 0x41, 0x01]  // ESC i A 1: cut every label
    expected += [0x1B, 0x69, 0x4B, 0x08]  // ESC i K: cut at end
    expected += [0x1B, 0x69, 0x64, 0x23, 0x00]  // ESC i d 35: feed margin
    expected += [0x4D, 0x02]  // M 02: PackBits
    expected += [0x5A]  // Z: blank line
    // 88 zero bytes (run), then literal 10 00.
    expected += [0x67, 0x00, 0x05, 0xA9, 0x00, 0x01, 0x10, 0x00]
    // Dots 12...707: 00 0F, 86 × FF, F0 00.
    expected += [0x67, 0x00, 0x08, 0x01, 0x00, 0x0F, 0xAB, 0xFF, 0x01, 0xF0, 0x00]
    expected += [UInt8](repeating: 0x5A, count: 147)  // Z: padding to the 150-line minimum
    expected += [0x1A]
    #expect(job == expected)
  }

  /// QL-700: no `ESC i a`, no `M 02` (brother_ql's flags), raw 90-byte lines, no `Z`.
  @Test func rawJob_onModelWithoutCompression() throws {
    let page = Bitmap(width: 306, height: 1)
    let options = BrotherQLOptions(model: model("QL-700"), media: media("29x90"), cut: false)
    let job = try BrotherQLEncoder(options).encode([page])
    var expected = [UInt8](repeating: 0, count: 200) + [0x1B, 0x40]
    expected += [0x1B, 0x69, 0x7A, 0xCE, 0x0B, 29, 90, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]
    expected += [0x1B, 0x69, 0x4D, 0x00]  // explicit: no auto cut
    expected += [0x1B, 0x69, 0x4B, 0x00]
    expected += [0x1B, 0x69, 0x64, 0x00, 0x00]  // die-cut: no feed margin
    expected += [0x67, 0x00, 90] + [UInt8](repeating: 0, count: 90)
    expected += [0x1A]
    #expect(job == expected)
  }

  /// The page header and first line brother_ql-next 0.12 produced for a 696 × 271 image
  /// with a dot at (0, 0) on 62 × 29 mm die-cut labels, QL-820NWB, cut, compressed (its
  /// `ESC i a` before the NULs and `ESC i S` status request left out).
  @Test func dieCutJob_matchesBrotherQLNextOutput() throws {
    var page = Bitmap(width: 696, height: 271)
    page[0, 0] = true
    let job = try BrotherQLEncoder(.init(model: model("QL-820NWB"), media: media("62x29")))
      .encode([page])
    let header: [UInt8] = [
      0x1B, 0x40, 0x1B, 0x69, 0x61, 0x01,
      0x1B, 0x69, 0x7A, 0xCE, 0x0B, 0x3E, 0x1D, 0x0F, 0x01, 0x00, 0x00, 0x00, 0x00,
      0x1B, 0x69, 0x4D, 0x40, 0x1B, 0x69, 0x41, 0x01, 0x1B, 0x69, 0x4B, 0x08,
      0x1B, 0x69, 0x64, 0x00, 0x00, 0x4D, 0x02,
      0x67, 0x00, 0x05, 0xA9, 0x00, 0x01, 0x10, 0x00,
    ]
    #expect(Array(job.prefix(400)) == [UInt8](repeating: 0, count: 400))
    #expect(Array(job[400..<(400 + header.count)]) == header)
  }

  @Test func qlEightHundred_invalidatesWith400Nuls_andPagesAreIndexed() throws {
    let encoder = try BrotherQLEncoder(.init(model: model("QL-820NWB"), media: media("62x29")))
    let job = try encoder.encode([Bitmap(width: 10, height: 2), Bitmap(width: 10, height: 2)])
    #expect(job.prefix(400).allSatisfy { $0 == 0 } && job[400] == 0x1B && job[401] == 0x40)
    let decoded = try BrotherQLRasterDecoder(model: encoder.options.model).decode(job)
    #expect(decoded.invalidateCount == 400)
    #expect(decoded.pages.map(\.printInformation.pageIndex) == [0, 1])
    #expect(job.filter { $0 == 0x0C }.count >= 1 && job.last == 0x1A)
  }
}

struct BrotherQLMirroringTests {
  /// A single dot at x lands on head dot `margin + printable - 1 - x`. brother_ql pastes the
  /// image at `W - w - r` and flips the line, which puts pixel x at `r + w - 1 - x`: the
  /// same place when the page is the full printable width.
  @Test(arguments: [
    ("QL-720NW", "62", 0, 707), ("QL-720NW", "62", 695, 12), ("QL-720NW", "12", 0, 134),
    ("QL-820NWB", "29", 5, 306), ("QL-1060N", "102", 0, 1219), ("QL-1060N", "62", 0, 751),
    ("QL-1110NWB", "104x164", 1199, 56), ("QL-570", "d12", 0, 206),
  ])
  func singleDot_landsOnTheMirroredHeadDot(
    modelName: String, mediaID: String, x: Int, headDot: Int
  ) throws {
    let options = BrotherQLOptions(
      model: model(modelName), media: media(mediaID), compression: false)
    var page = Bitmap(width: x + 1, height: 1)
    page[x, 0] = true
    let job = try BrotherQLEncoder(options).encode([page])
    let line = try BrotherQLRasterDecoder(model: options.model).decode(job).pages[0].lines[0]
    let set = (0..<(line.count * 8)).filter { line[$0 / 8] & (0x80 >> UInt8($0 % 8)) != 0 }
    #expect(set == [headDot])
  }
}

struct BrotherQLRoundTripTests {
  @Test(arguments: [
    ("QL-720NW", "62"), ("QL-820NWB", "29x90"), ("QL-700", "38"), ("QL-500", "17x54"),
    ("QL-1060N", "102"), ("QL-1110NWB", "104"), ("QL-580N", "d24"), ("QL-810W", "12"),
  ])
  func randomPages_decodeToTheSameBitmaps(modelName: String, mediaID: String) throws {
    for compression in [true, false] {
      let m = media(mediaID)
      let options = BrotherQLOptions(
        model: model(modelName), media: m, compression: compression)
      let maxLines = m.kind == .dieCut ? m.printableLength : 300
      let pages = (0..<Int.random(in: 1...3)).map { _ in
        randomBitmap(width: m.printableWidth, height: Int.random(in: 1...min(maxLines, 120)))
      }
      let job = try BrotherQLEncoder(options).encode(pages)
      let decoded = try BrotherQLRasterDecoder(model: options.model).decode(job)
      // Continuous pages come back padded with blank lines to the model's minimum.
      let minLines = m.kind == .dieCut ? 1 : options.model.lineRange.lowerBound
      let expected = pages.map { p in
        var padded = Bitmap(width: p.width, height: max(p.height, minLines))
        for y in 0..<p.height { for x in 0..<p.width where p[x, y] { padded[x, y] = true } }
        return padded
      }
      #expect(decoded.pages.map { $0.bitmap(media: m, model: options.model) } == expected)
      #expect(decoded.pages.allSatisfy { $0.compressed == options.compresses })
      #expect(decoded.pages.map(\.printInformation.lineCount) == expected.map(\.height))
      // Nothing outside the printable area is burnt.
      let burnt = decoded.pages.reduce(0) {
        $0 + $1.lines.joined().reduce(0) { $0 + $1.nonzeroBitCount }
      }
      #expect(burnt == pages.reduce(0) { $0 + $1.blackCount })
    }
  }

  @Test func narrowPage_isPaddedOnTheRight() throws {
    let m = media("62")
    let page = randomBitmap(width: 100, height: 5)
    let options = BrotherQLOptions(model: model("QL-820NWB"), media: m)
    let job = try BrotherQLEncoder(options).encode([page])
    let back = try BrotherQLRasterDecoder(model: options.model).decode(job).pages[0]
      .bitmap(media: m, model: options.model)
    for y in 0..<5 {
      for x in 0..<m.printableWidth { #expect(back[x, y] == page[x, y]) }
    }
  }

  @Test func options_areSentAsDecodedFlags() throws {
    let options = BrotherQLOptions(
      model: model("QL-820NWB"), media: media("62x100"), cut: true, cutEvery: 3,
      highResolution: true, compression: true, qualityPriority: false)
    let job = try BrotherQLEncoder(options).encode([Bitmap(width: 696, height: 2218)])
    let page = try BrotherQLRasterDecoder(model: options.model).decode(job).pages[0]
    #expect(page.autoCut && page.cutAtEnd && page.highResolution)
    #expect(page.cutEvery == 3 && page.feedMargin == 0)
    #expect(page.printInformation.validFlags == 0x8E)
    #expect(page.printInformation.mediaType == 0x0B)
    #expect(page.printInformation.widthMM == 62 && page.printInformation.lengthMM == 100)
    #expect(page.blankLines == 2218)
  }
}

struct BrotherQLEncoderErrorTests {
  @Test func pageWiderThanMedia_throwsTooWide() throws {
    let encoder = try BrotherQLEncoder(.init(model: model("QL-720NW"), media: media("29")))
    #expect(throws: BrotherQLError.self) { try encoder.encode([Bitmap(width: 307, height: 1)]) }
    do {
      _ = try encoder.encode([Bitmap(width: 307, height: 1)])
    } catch {
      #expect(error.code == .tooWide)
    }
  }

  @Test(arguments: ["102", "104", "102x51", "102x153", "104x164"])
  func wideMediaOnStandardHead_throwsMediaMismatch(mediaID: String) {
    #expect(
      throws: BrotherQLError(.mediaMismatch, "\(mediaID) mm media does not fit the QL-820NWB head")
    ) {
      _ = try BrotherQLEncoder(.init(model: model("QL-820NWB"), media: media(mediaID)))
    }
  }

  @Test func badOptions_throwInvalidOption() {
    func code(_ o: BrotherQLOptions, _ pages: [Bitmap] = [Bitmap(width: 1, height: 1)])
      -> BrotherQLError.Code?
    {
      do {
        _ = try BrotherQLEncoder(o).encode(pages)
        return nil
      } catch { return error.code }
    }
    let ok = BrotherQLOptions(model: model("QL-720NW"), media: media("62"))
    var o = ok
    o.cutEvery = 0
    #expect(code(o) == .invalidOption)
    o = ok
    o.model = model("QL-500")
    o.highResolution = true
    #expect(code(o) == .invalidOption)
    #expect(code(ok, []) == .invalidOption)
    #expect(code(ok, [Bitmap(width: 10, height: 0)]) == .invalidOption)
    o = ok
    o.media = media("62x29")
    #expect(code(o, [Bitmap(width: 10, height: 272)]) == .tooLong)
    o.highResolution = true
    #expect(code(o, [Bitmap(width: 10, height: 542)]) == nil)
  }
}
