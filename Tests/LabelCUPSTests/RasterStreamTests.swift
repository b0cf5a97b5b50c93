import Foundation
import LabelTestKit
import Testing

@testable import LabelCUPS

/// PWG and Apple raster through libcups's writer and reader: pages come back with their
/// pixels and resolution; a page past the budget is refused from its header, and a damaged
/// or cut stream is an error with a reason, never a trap.
@Suite struct RasterStreamTests {
  static func page(_ width: Int, _ height: Int, dpi: Int = 203) -> RasterPage {
    var g = SeededGenerator(seed: UInt64(width * height))
    let pixels = (0..<width * height).map { _ in UInt8.random(in: 0...255, using: &g) }
    return RasterPage(width: width, height: height, xDPI: dpi, yDPI: dpi, pixels: pixels)
  }

  static func readAll(_ bytes: [UInt8], maxPixels: Int = 1 << 24) throws -> [RasterPage] {
    var pages: [RasterPage] = []
    try RasterStream.read(bytes[...], maxPixels: maxPixels, maxPages: 100) {
      pages.append($0)
      return true
    }
    return pages
  }

  @Test(arguments: [RasterStream.Format.pwg, .urf])
  func greyPages_comeBackAsWritten(format: RasterStream.Format) throws {
    let pages = [Self.page(406, 203), Self.page(101, 57, dpi: 300)]
    let bytes = try RasterStream.write(pages, format: format)
    let back = try Self.readAll(bytes)
    #expect(back == pages)
  }

  @Test func blackOneBit_isGreyZeroOrWhite() throws {
    let page = Self.page(203, 40)
    let bytes = try RasterStream.write([page], format: .pwg, type: "black_1")
    let back = try #require(try Self.readAll(bytes).first)
    #expect(back.pixels == page.pixels.map { $0 < 128 ? 0 : 255 })
  }

  @Test func aPagePastTheBudget_isRefusedFromItsHeader() throws {
    let bytes = try RasterStream.write([Self.page(400, 300)], format: .pwg)
    #expect(throws: RasterError(message: "page 1 is 400 x 300 pixels: more than 100000")) {
      _ = try Self.readAll(bytes, maxPixels: 100_000)
    }
  }

  @Test func damagedStreams_areErrors() throws {
    let bytes = try RasterStream.write([Self.page(300, 200)], format: .pwg)
    #expect(throws: RasterError.self) { _ = try Self.readAll(Array(bytes.prefix(bytes.count / 2))) }
    #expect(throws: RasterError.self) { _ = try Self.readAll(Array("not raster at all".utf8)) }
    var g = SeededGenerator(seed: 11)
    for _ in 0..<500 {
      var mutated = bytes
      for _ in 0..<Int.random(in: 1...6, using: &g) {
        mutated[Int.random(in: 0..<mutated.count, using: &g)] = UInt8.random(in: 0...255, using: &g)
      }
      _ = try? Self.readAll(mutated)
    }
  }
}
