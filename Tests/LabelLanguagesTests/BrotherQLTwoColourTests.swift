import Foundation
import LabelCore
import Testing

@testable import LabelLanguages

/// Red/black printing on the QL-800/810W/820NWB with a DK-22251 roll (brother_ql's "62red"):
/// two-colour mode (`ESC i K` bit 0) and each raster line as a black then a red `w` line.
@Suite struct BrotherQLTwoColourTests {
  static func planes() -> (black: Bitmap, red: Bitmap) {
    // brother_ql's own sample, measured: 696 x 200, a black rectangle (20,20)-(200,120) and
    // a red one (300,60)-(500,180), corners included.
    var black = Bitmap(width: 696, height: 200)
    black.fill(x: 20, y: 20, width: 181, height: 101)
    var red = Bitmap(width: 696, height: 200)
    red.fill(x: 300, y: 60, width: 201, height: 121)
    return (black, red)
  }

  @Test func goldenBytes_asBrotherQLSendsThem_withoutItsExtraCommands() throws {
    let model = try #require(BrotherQLModel.named("QL-820NWB"))
    let roll = try #require(BrotherQLMedia.named("62red"))
    let (black, red) = Self.planes()
    let job = try BrotherQLEncoder(BrotherQLOptions(model: model, media: roll, compression: false))
      .encode([black], red: [red])
    // The header brother_ql 0.12 sends for this image (`brother_ql_create -m QL-820NWB -s
    // 62red --red`), less its `ESC i a 01` before the NULs and its `ESC i S` in the page.
    let header: [UInt8] =
      [UInt8](repeating: 0, count: 400) + [0x1B, 0x40, 0x1B, 0x69, 0x61, 0x01]
      + [0x1B, 0x69, 0x7A, 0xCE, 0x0A, 0x3E, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00]
      + [0x1B, 0x69, 0x4D, 0x40, 0x1B, 0x69, 0x41, 0x01, 0x1B, 0x69, 0x4B, 0x09]
      + [0x1B, 0x69, 0x64, 0x23, 0x00]
    #expect(Array(job.prefix(header.count)) == header)
    // Line 60 as brother_ql sends it: black 63 x 00, 1F, 22 x FF, 4 x 00; red 25 x 00, 01,
    // 25 x FF, 39 x 00 (mirrored, 12 dots of margin).
    let line = 93 * 2
    let line60 = Array(job[(header.count + 60 * line)..<(header.count + 61 * line)])
    let blackLine: [UInt8] =
      [0x77, 0x01, 0x5A] + [UInt8](repeating: 0, count: 63) + [0x1F]
      + [UInt8](repeating: 0xFF, count: 22) + [UInt8](repeating: 0, count: 4)
    let redLine: [UInt8] =
      [0x77, 0x02, 0x5A] + [UInt8](repeating: 0, count: 25) + [0x01]
      + [UInt8](repeating: 0xFF, count: 25) + [UInt8](repeating: 0, count: 39)
    #expect(line60 == blackLine + redLine)
    #expect(job.count == header.count + 200 * line + 1 && job.last == 0x1A)
    // Compressed (the QL-820NWB takes M 02): an empty plane line is PackBits, never Z.
    let packed = try BrotherQLEncoder(BrotherQLOptions(model: model, media: roll)).encode(
      [black], red: [red])
    let start = header.count + 2
    #expect(Array(packed[(header.count)..<start]) == [0x4D, 0x02])
    #expect(
      Array(packed[start..<(start + 10)]) == [
        0x77, 0x01, 0x02, 0xA7, 0x00, 0x77, 0x02, 0x02, 0xA7, 0x00,
      ])
    #expect(!packed.contains(0x5A) || packed.firstIndex(of: 0x5A)! < header.count)
  }

  @Test func twoColourJobs_decodeToBothPlanes_andABlackOnlyLabelIsTwoColourToo() throws {
    let model = try #require(BrotherQLModel.named("QL-810W"))
    let roll = try #require(BrotherQLMedia.named("62red"))
    let (black, red) = Self.planes()
    for compression in [false, true] {
      let job = try BrotherQLEncoder(
        BrotherQLOptions(model: model, media: roll, compression: compression)
      ).encode([black, black], red: [red, Bitmap(width: 696, height: 200)])
      let decoded = try BrotherQLRasterDecoder(model: model).decode(job)
      #expect(decoded.pages.count == 2 && decoded.pages.allSatisfy(\.twoColour))
      let p = try #require(decoded.pages.first)
      #expect(p.bitmap(media: roll, model: model) == black)
      #expect(p.bitmap(media: roll, model: model, red: true) == red)
      #expect(decoded.pages[1].bitmap(media: roll, model: model, red: true).blackCount == 0)
    }
    // The driver: a red/black roll is two-colour even with no red; red on a black roll
    // prints black; a model without two colours refuses the roll.
    let driver = try BrotherQLDriver(
      model: #require(DriverTable.model(named: "QL-820NWB", language: .brotherQL)))
    let redRoll = Media(widthMM: 62, lengthMM: 0, kind: "continuous", redBlack: true)
    #expect(driver.printsRed(on: redRoll) && !driver.printsRed(on: Media(widthMM: 62, lengthMM: 0)))
    let blackOnly = try BrotherQLRasterDecoder(model: model).decode(
      driver.encode(pages: [black], media: redRoll, dpi: 300))
    #expect(blackOnly.pages.first?.twoColour == true)
    let onBlackRoll = try BrotherQLRasterDecoder(model: model).decode(
      driver.encode(pages: [black], red: [red], media: Media(widthMM: 62, lengthMM: 0), dpi: 300))
    let page = try #require(onBlackRoll.pages.first)
    let plain = try #require(BrotherQLMedia.named("62"))
    #expect(!page.twoColour && page.bitmap(media: plain, model: model) == black.union(red))
    let ql700 = try BrotherQLDriver(
      model: #require(DriverTable.model(named: "QL-700", language: .brotherQL)))
    #expect(!ql700.printsRed(on: redRoll))
    #expect(throws: DriverError.self) { try ql700.encode(pages: [black], media: redRoll, dpi: 300) }
    #expect(throws: BrotherQLError.self) {
      try BrotherQLEncoder(
        BrotherQLOptions(model: model, media: try #require(BrotherQLMedia.named("62")))
      )
      .encode([black], red: [red])
    }
  }

  @Test func malformedTwoColourLines_areTypedErrors() throws {
    let model = try #require(BrotherQLModel.named("QL-820NWB"))
    let roll = try #require(BrotherQLMedia.named("62red"))
    let (black, red) = Self.planes()
    let job = try BrotherQLEncoder(BrotherQLOptions(model: model, media: roll, compression: false))
      .encode([black], red: [red])
    let headerEnd = 400 + 6 + 13 + 12 + 5
    var twoBlack = job
    twoBlack[headerEnd + 93 + 1] = 0x01  // the red line claims the black plane
    var badPlane = job
    badPlane[headerEnd + 1] = 0x03
    var monoK = job
    monoK[headerEnd - 5 - 1] = 0x08  // ESC i K without the two-colour bit
    for bytes in [twoBlack, badPlane, monoK, Array(job.dropLast(50))] {
      #expect(throws: BrotherQLError.self) {
        try BrotherQLRasterDecoder(model: model).decode(bytes)
      }
    }
  }
}
