import Foundation
import LabelCore
import LabelLanguages
import Testing

@testable import LabelRender

/// The PNG previews labeld writes itself decode, with libpng (through cairo's reader, code
/// that shares nothing with the writer), to exactly the dots they were made from: random
/// bitmaps of every width around a byte's edge, a rendered label, red/black planes.
struct PNGWriterTests {
  struct Dots: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state
    }
  }

  static func random(_ width: Int, _ height: Int, density: Int, _ rng: inout Dots) -> Bitmap {
    var bitmap = Bitmap(width: width, height: height)
    for y in 0..<height {
      for x in 0..<width where Int.random(in: 0..<100, using: &rng) < density {
        bitmap[x, y] = true
      }
    }
    return bitmap
  }

  /// Bytes 24 and 25 of a PNG: IHDR's bit depth and colour type.
  static func form(_ png: [UInt8]) -> (depth: UInt8, colour: UInt8) { (png[24], png[25]) }

  @Test func oneColour_decodesToTheSameDots() throws {
    var rng = Dots(state: 1)
    for width in [1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 203] {
      for density in [0, 3, 50, 100] {
        let bitmap = Self.random(width, Int.random(in: 1...40, using: &rng), density: density, &rng)
        let png = try PNGCodec.encode(bitmap)
        #expect(Self.form(png) == (1, 0))
        #expect(try PNGCodec.decodeBitmap(png) == bitmap, "\(width) wide, \(density)% ink")
      }
    }
  }

  @Test func aRenderedLabel_decodesToTheSameDots() throws {
    let template = Template(
      name: "t", media: TemplateMedia(widthMM: 62, lengthMM: 100),
      elements: [
        .text(TextElement(x: 2, y: 2, width: 58, height: 10, text: "Pencil HB, 12 pack", size: 14)),
        .barcode(BarcodeElement(x: 2, y: 20, symbology: .ean13, data: "4006381333931", height: 20)),
        .box(BoxElement(x: 1, y: 1, width: 60, height: 98, fill: false)),
      ])
    let bitmap = try LabelRasteriser().render(template, data: [:], dpi: 300)
    #expect(bitmap.blackCount > 1000)
    let png = try PNGCodec.encode(bitmap)
    #expect(try PNGCodec.decodeBitmap(png) == bitmap)
    // A label is mostly paper: the file is a small part of its raw dots.
    #expect(png.count < bitmap.bytes.count / 4)
  }

  @Test func redAndBlack_decodeToTheirPlanes_blackOnTop() throws {
    var rng = Dots(state: 2)
    for width in [1, 3, 4, 5, 8, 13, 100] {
      let height = Int.random(in: 1...30, using: &rng)
      let black = Self.random(width, height, density: 30, &rng)
      let red = Self.random(width, height, density: 30, &rng)
      let png = try PNGCodec.encode(black: black, red: red)
      #expect(Self.form(png) == (2, 3))
      let planes = try PNGCodec.decodeTwoColour(png)
      #expect(planes.black == black, "\(width) wide")
      #expect(planes.red == red.subtracting(black), "\(width) wide")
    }
  }

  @Test func planesOfDifferentSizes_areRefused() {
    #expect(throws: ImageError.self) {
      try PNGCodec.encode(black: Bitmap(width: 4, height: 4), red: Bitmap(width: 5, height: 4))
    }
  }
}
