import Testing

@testable import LabelLanguages

struct BrotherQLDecoderTests {
  let standard = BrotherQLRasterDecoder(bytesPerLine: 90)

  func sampleJob(compression: Bool = true) throws -> [UInt8] {
    let options = BrotherQLOptions(
      model: model("QL-720NW"), media: media("29"), compression: compression)
    var page = Bitmap(width: 306, height: 4)
    page.fill(x: 3, y: 1, width: 100, height: 2)
    return try BrotherQLEncoder(options).encode([page, page])
  }

  func code(_ data: [UInt8]) -> BrotherQLError.Code? {
    do {
      _ = try standard.decode(data)
      return nil
    } catch { return error.code }
  }

  /// The `ESC i z` of the first page: after the NULs, `ESC @` and `ESC i a 01`.
  var firstPrintInfo: Int { 200 + 2 + 4 }

  @Test func everyProperPrefix_throwsAndNeverCrashes() throws {
    for compression in [true, false] {
      let job = try sampleJob(compression: compression)
      #expect(code(job) == nil)
      for n in 0..<job.count {
        let c = code(Array(job.prefix(n)))
        #expect(
          c == .truncated || c == .lineCountMismatch, "prefix \(n) gave \(String(describing: c))")
      }
    }
  }

  @Test func lineCountDifferentFromPrintInformation_throws() throws {
    var job = try sampleJob()
    #expect(Array(job[firstPrintInfo..<(firstPrintInfo + 3)]) == [0x1B, 0x69, 0x7A])
    job[firstPrintInfo + 7] = 5  // announce 5 lines, send 4
    #expect(code(job) == .lineCountMismatch)
    job[firstPrintInfo + 7] = 3  // announce 3, send 4
    #expect(code(job) == .lineCountMismatch)
  }

  // (`w`, 0x77, is the two-colour line: outside two-colour mode it is malformed, see
  // BrotherQLTwoColourTests; `x` is no command.)
  @Test(arguments: [
    [0x99] as [UInt8], [0x1B, 0x58], [0x1B, 0x69, 0x58], [0x78, 0x01, 0x00],
  ])
  func unknownCommand_throws(command: [UInt8]) throws {
    var job = try sampleJob()
    job.insert(contentsOf: command, at: firstPrintInfo)
    #expect(code(job) == .unknownCommand)
  }

  @Test func malformedJobs_throw() throws {
    let job = try sampleJob(compression: false)
    // A line before any ESC i z.
    #expect(code([0x1B, 0x40, 0x5A, 0x1A]) == .malformed)
    // Page end without a page.
    #expect(code([0x1B, 0x40, 0x0C]) == .malformed)
    // Bytes after ^Z.
    #expect(code(job + [0x00]) == .malformed)
    // A raw line of the wrong size for the head (the job is for 90-byte lines).
    #expect(throws: BrotherQLError.self) {
      try BrotherQLRasterDecoder(bytesPerLine: 162).decode(job)
    }
    // A PackBits line ending inside a run.
    let info: [UInt8] = [0x1B, 0x69, 0x7A, 0xCE, 0x0A, 29, 0, 1, 0, 0, 0, 0, 0]
    #expect(code([0x1B, 0x40] + info + [0x4D, 0x02, 0x67, 0x00, 0x01, 0xFE, 0x1A]) == .malformed)
    // Compression mode other than 00/02.
    #expect(code([0x1B, 0x40, 0x4D, 0x07]) == .malformed)
  }

  @Test func randomGarbage_neverCrashes() {
    for _ in 0..<2000 {
      let n = Int.random(in: 0...64)
      var data = (0..<n).map { _ in UInt8.random(in: 0...255) }
      // Bias towards real command bytes so the parser gets past the first byte.
      for i in data.indices where Bool.random() {
        data[i] =
          [0x1B, 0x69, 0x7A, 0x67, 0x5A, 0x0C, 0x1A, 0x4D, 0x02, 0x00][Int.random(in: 0...9)]
      }
      _ = try? standard.decode(data)
    }
  }

  @Test func hugeAnnouncedLineCount_doesNotAllocate() {
    let info: [UInt8] = [0x1B, 0x69, 0x7A, 0xCE, 0x0A, 29, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0]
    #expect(code([0x1B, 0x40] + info + [0x5A, 0x1A]) == .lineCountMismatch)
  }

  /// brother_ql's own job shape: `ESC i a` before the NULs and an `ESC i S` per page.
  @Test func brotherQLsJobShape_decodes() throws {
    let info: [UInt8] = [0x1B, 0x69, 0x7A, 0xCE, 0x0A, 29, 0, 1, 0, 0, 0, 0, 0]
    let job: [UInt8] =
      [0x1B, 0x69, 0x61, 0x01] + [UInt8](repeating: 0, count: 200) + [
        0x1B, 0x40, 0x1B, 0x69, 0x61, 0x01,
      ]
      + [0x1B, 0x69, 0x53] + info + [0x1B, 0x69, 0x64, 0x23, 0x00, 0x4D, 0x02, 0x5A, 0x1A]
    let decoded = try standard.decode(job)
    #expect(decoded.invalidateCount == 200 && decoded.rasterModeSwitch)
    #expect(decoded.statusRequests == 1 && decoded.pages.count == 1)
    #expect(decoded.pages[0].feedMargin == 35 && decoded.pages[0].blankLines == 1)
  }
}

/// A native job from a peer is checked against the loaded roll without expanding it: a
/// 1 MB job of one-byte `Z` lines would otherwise become ~90 MB of lines, copied per line.
struct BrotherQLDecoderSummaryTests {
  @Test func withoutLines_countsPagesAndKeepsPrintInformation_forAMillionBlankLines() throws {
    let lines = 1_000_000
    var job = [UInt8](repeating: 0, count: 200) + [0x1B, 0x40, 0x1B, 0x69, 0x61, 0x01]
    job += [0x1B, 0x69, 0x7A, 0x86, 0x0A, 62, 0]
    job += [
      UInt8(lines & 0xFF), UInt8(lines >> 8 & 0xFF), UInt8(lines >> 16 & 0xFF), 0, 0, 0,
    ]
    job += [UInt8](repeating: 0x5A, count: lines) + [0x1A]
    let decoded = try BrotherQLRasterDecoder(bytesPerLine: 90).decode(job, keepingLines: false)
    #expect(decoded.pages.count == 1)
    #expect(decoded.pages[0].printInformation.lineCount == lines)
    #expect(decoded.pages[0].blankLines == lines)
    #expect(decoded.pages[0].lines.isEmpty)
  }
}

/// Numbers from outside (templates, printers' reports) become dots without trapping.
struct ConversionTests {
  @Test func roundedClamped_neverTraps() {
    #expect(roundedClamped(.nan) == 0)
    #expect(roundedClamped(.infinity) == 1 << 30)
    #expect(roundedClamped(-.infinity) == -(1 << 30))
    #expect(roundedClamped(1e300) == 1 << 30)
    #expect(roundedClamped(2.5) == 3)
    #expect(roundedClamped(-2.4) == -2)
    #expect(roundedClamped(70_000, to: 1...65_535) == 65_535)
    #expect(dots(1e300, 1200) == 1 << 30)
    #expect(dots(25.4, 203) == 203)
  }
}
