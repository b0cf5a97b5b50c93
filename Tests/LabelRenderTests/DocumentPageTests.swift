import Foundation
import LabelLanguages
import LabelTestKit
import Testing

@testable import LabelRender

/// Documents an IPP client sends, placed on a label: print-scaling and orientation as IPP
/// and PAPPL mean them, pages drawn at the printer's dots, PDFs read by poppler, JPEGs by
/// libjpeg (made by Debian's cjpeg), greys dithered for a bi-level head.
@Suite struct DocumentPageTests {
  static let zebra2x1 = LabelArea(width: 406, length: 203, maxLength: 8000, dpi: 203)
  static let roll62 = LabelArea(width: 696, length: nil, maxLength: 11_811, dpi: 300)

  @Test func aPageOfTheLabelsSize_isPlacedAsItIs_underAuto() {
    let p = PageLayout.place(
      sourceWidth: 144, sourceHeight: 72, unitsPerInch: 72, on: Self.zebra2x1, scaling: .auto,
      orientation: nil)
    #expect(
      p == PagePlacement(quarterTurns: 0, scale: 203.0 / 72, x: 0, y: 0, width: 406, height: 203))
  }

  @Test func aLargerPage_isFilledUnderAuto_andFittedUnderFitOrAutoFit() {
    // A 4 x 6 in portrait page on a 2 x 1 in landscape label: turned, then scaled.
    let fill = PageLayout.place(
      sourceWidth: 288, sourceHeight: 432, unitsPerInch: 72, on: Self.zebra2x1, scaling: .auto,
      orientation: nil)
    #expect(fill.quarterTurns == 3)
    #expect(abs(fill.scale - 406.0 / 432) < 1e-9)  // the long side across: cut top and bottom
    let fit = PageLayout.place(
      sourceWidth: 288, sourceHeight: 432, unitsPerInch: 72, on: Self.zebra2x1, scaling: .autoFit,
      orientation: nil)
    #expect(abs(fit.scale - 203.0 / 288) < 1e-9 && fit.y == 0 && fit.x > 0)
    let none = PageLayout.place(
      sourceWidth: 288, sourceHeight: 432, unitsPerInch: 72, on: Self.zebra2x1, scaling: .none,
      orientation: .portrait)
    #expect(none.scale == 203.0 / 72 && none.x < 0 && none.y < 0)
  }

  @Test func onContinuousMedia_theLabelIsAsLongAsThePage() {
    // A 62 x 100 mm page on a 62 mm roll: across as it is, 100 mm long.
    let p = PageLayout.place(
      sourceWidth: 62 / 25.4 * 72, sourceHeight: 100 / 25.4 * 72, unitsPerInch: 72,
      on: Self.roll62, scaling: .auto, orientation: nil)
    // Its 62 mm are 732 dots at 300 dpi, more than the roll's 696 printable: filled across.
    #expect(p.quarterTurns == 0 && p.height == 1123)
    // A 100 x 62 mm page is turned so that its 62 mm go across.
    let turned = PageLayout.place(
      sourceWidth: 100 / 25.4 * 72, sourceHeight: 62 / 25.4 * 72, unitsPerInch: 72,
      on: Self.roll62, scaling: .fit, orientation: nil)
    #expect(turned.quarterTurns == 3 && turned.height == 1123)
    // An image without a resolution is scaled to the width.
    let image = PageLayout.place(
      sourceWidth: 100, sourceHeight: 50, unitsPerInch: nil, on: Self.roll62, scaling: .none,
      orientation: .portrait)
    #expect(image.scale == 6.96 && image.height == 348)
  }

  static func pattern(_ width: Int, _ height: Int) -> Bitmap {
    var b = Bitmap(width: width, height: height)
    var g = SeededGenerator(seed: 3)
    for y in 0..<height {
      for x in 0..<width where Bool.random(using: &g) { b[x, y] = true }
    }
    // A marker in the top-left corner, for turns.
    for y in 0..<10 { for x in 0..<20 { b[x, y] = true } }
    return b
  }

  static func ink(_ b: Bitmap) -> InkImage {
    var ink = [UInt8](repeating: 0, count: b.width * b.height)
    for y in 0..<b.height { for x in 0..<b.width where b[x, y] { ink[y * b.width + x] = 255 } }
    return InkImage(width: b.width, height: b.height, ink: ink)
  }

  @Test func aPagePlacedOneToOne_isItsOwnDots() throws {
    let label = Self.pattern(406, 203)
    let p = PageLayout.place(
      sourceWidth: 406, sourceHeight: 203, unitsPerInch: 203, on: Self.zebra2x1, scaling: .none,
      orientation: .portrait)
    let drawn = try PagePainter.paint(Self.ink(label), p)
    #expect(drawn.bitmap(.threshold) == label)
  }

  /// The fast ways (eight pixels a byte; a page placed one to one copied, not drawn) give
  /// the dots the plain ways give, whatever the widths and offsets.
  @Test func fastPaths_giveTheDotsThePlainWaysGive() throws {
    var g = SeededGenerator(seed: 23)
    for _ in 0..<200 {
      let w = Int.random(in: 1...40, using: &g)
      let h = Int.random(in: 1...12, using: &g)
      let ink = InkImage(
        width: w, height: h, ink: (0..<(w * h)).map { _ in UInt8.random(in: 0...255, using: &g) })
      for halftone in [Halftone.threshold, .ordered] {
        let dots = ink.bitmap(halftone)
        for y in 0..<h {
          for x in 0..<w {
            let level = Int(ink.ink[y * w + x])
            let black =
              halftone == .threshold
              ? level >= 128 : level > Int(InkImage.bayer[(y & 7) << 3 | (x & 7)]) * 4 + 2
            #expect(dots[x, y] == black, "\(w)x\(h) \(halftone) at \(x),\(y)")
          }
        }
      }
      // Copied onto a label at whole-dot offsets: what cairo draws there.
      let label = (w: Int.random(in: 1...48, using: &g), h: Int.random(in: 1...16, using: &g))
      let at = (x: Int.random(in: -8...12, using: &g), y: Int.random(in: -4...6, using: &g))
      let placement = PagePlacement(
        quarterTurns: 0, scale: 1, x: Double(at.x), y: Double(at.y), width: label.w,
        height: label.h)
      let page = DocumentPage(ink: ink, xDPI: nil, yDPI: nil)
      #expect(try page.placed(placement) == PagePainter.paint(ink, placement))
    }
  }

  @Test func landscape_turnsThePageCounterClockwise() throws {
    let page = Self.pattern(203, 406)
    let p = PageLayout.place(
      sourceWidth: 203, sourceHeight: 406, unitsPerInch: 203, on: Self.zebra2x1, scaling: .none,
      orientation: .landscape)
    let drawn = try PagePainter.paint(Self.ink(page), p).bitmap(.threshold)
    // Counter-clockwise: the page's top-left corner goes to the label's bottom-left.
    for y in 0..<203 {
      for x in 0..<406 { #expect(drawn[x, y] == page[203 - 1 - y, x], "\(x),\(y)") }
    }
  }

  @Test func aPDFMadeByCairo_isReadByPoppler_toTheSameDots() throws {
    let label = Self.pattern(406, 203)
    let pdf = try PDFWriter.document(pages: [label, Self.pattern(203, 203)], dpi: 203)
    let doc = try PDFDocument(pdf)
    #expect(doc.pageCount == 2)
    let size = try doc.pageSize(0)
    #expect(abs(size.width - 144) < 0.01 && abs(size.height - 72) < 0.01)
    let p = PageLayout.place(
      sourceWidth: size.width, sourceHeight: size.height, unitsPerInch: 72, on: Self.zebra2x1,
      scaling: .auto, orientation: nil)
    let drawn = try PagePainter.paint(doc, page: 0, p).bitmap(.threshold)
    #expect(drawn == label)
  }

  @Test func notAPDF_isAnError() {
    #expect(throws: ImageError.self) { _ = try PDFDocument(Array("%PDF-1.4 nothing".utf8)) }
    #expect(throws: ImageError.self) { _ = try PDFDocument([]) }
  }

  @Test func aJPEGFromDebiansCjpeg_decodesToItsGreys() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    // Left half black, right half white, a mid-grey band: a PGM, then cjpeg.
    let (w, h) = (64, 32)
    var pgm = Array("P5\n\(w) \(h)\n255\n".utf8)
    for y in 0..<h { for x in 0..<w { pgm.append(y >= 24 ? 128 : (x < 32 ? 0 : 255)) } }
    try Data(pgm).write(to: dir.appendingPathComponent("a.pgm"))
    let jpg = dir.appendingPathComponent("a.jpg")
    _ = try Shell.output("cjpeg -quality 100 -grayscale '\(dir.path)/a.pgm' > '\(jpg.path)'")
    var jpeg = Array(try Data(contentsOf: jpg))
    #expect(try JPEGCodec.decode(jpeg, maxPixels: 1 << 20).xDPI == nil)
    // Its JFIF header says 203 dots an inch (JFIF 1.02: units 1, then the two densities).
    #expect(Array(jpeg[6..<11]) == Array("JFIF\0".utf8))
    jpeg.replaceSubrange(13..<18, with: [1, 0, 203, 0, 203])
    let page = try JPEGCodec.decode(jpeg, maxPixels: 1 << 20)
    #expect(page.ink.width == w && page.ink.height == h)
    #expect(page.xDPI == 203 && page.yDPI == 203)
    #expect(page.ink.ink[5 * w + 3] > 240 && page.ink.ink[5 * w + 60] < 15)
    #expect(abs(Int(page.ink.ink[28 * w + 10]) - 127) < 6)
    // Past the budget, from the header.
    #expect(throws: ImageError.self) {
      _ = try JPEGCodec.decode(jpeg, maxPixels: 100)
    }
    #expect(throws: ImageError.self) {
      _ = try JPEGCodec.decode([0xFF, 0xD8, 0xFF, 0x00], maxPixels: 100)
    }
  }

  static func dots(_ b: Bitmap) -> Int {
    var n = 0
    for y in 0..<b.height { for x in 0..<b.width where b[x, y] { n += 1 } }
    return n
  }

  @Test func orderedDither_keepsBlackAndWhite_andHalvesMidGrey() {
    let black = InkImage(width: 8, height: 8, ink: [UInt8](repeating: 255, count: 64))
    let white = InkImage(width: 8, height: 8, ink: [UInt8](repeating: 0, count: 64))
    let grey = InkImage(width: 16, height: 16, ink: [UInt8](repeating: 128, count: 256))
    #expect(Self.dots(black.bitmap(.ordered)) == 64)
    #expect(Self.dots(white.bitmap(.ordered)) == 0)
    #expect(Self.dots(grey.bitmap(.ordered)) == 128)
    #expect(Self.dots(grey.bitmap(.threshold)) == 256)
  }
}
