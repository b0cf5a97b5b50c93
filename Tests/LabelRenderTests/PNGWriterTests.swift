import Foundation
import LabelCore
import LabelLanguages
import LabelTestKit
import Testing

@testable import LabelRender

/// The PNG previews labeld writes itself decode, with libpng (through cairo's reader, code
/// that shares nothing with the writer), to exactly the dots they were made from: random
/// bitmaps of every width around a byte's edge, a rendered label, red/black planes.
struct PNGWriterTests {
  typealias Dots = SeededGenerator

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
    var rng = Dots(seed: 1)
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
    var rng = Dots(seed: 2)
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

/// PNG decoding to dots reads each row's pixels in one pass: for truecolour images, with
/// and without alpha, it finds the same dots as thresholding each pixel's ink at one half.
struct PNGDecodeDotsTests {
  /// A PNG of 8-bit RGB (colour 2) or RGBA (colour 6) `pixels`, rows unfiltered, in stored
  /// (uncompressed) deflate blocks: written here so the decoder meets images no code of
  /// labeld's wrote.
  static func png(
    width: Int, height: Int, alpha: Bool, _ pixels: [UInt8], grey: Bool = false,
    extra: [(String, [UInt8])] = []
  ) -> [UInt8] {
    let channels = grey ? 1 : alpha ? 4 : 3
    var raw: [UInt8] = []
    for y in 0..<height {
      raw.append(0)
      raw += pixels[(y * width * channels)..<((y + 1) * width * channels)]
    }
    var z: [UInt8] = [0x78, 0x01]
    var at = 0
    repeat {
      let n = min(65_535, raw.count - at)
      z.append(at + n == raw.count ? 1 : 0)
      z += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
      z += raw[at..<(at + n)]
      at += n
    } while at < raw.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in raw {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    z += be32(b << 16 | a)
    var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let colour: UInt8 = grey ? 0 : alpha ? 6 : 2
    out += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, colour, 0, 0, 0])
    for (type, data) in extra { out += chunk(type, data) }
    out += chunk("IDAT", z)
    out += chunk("IEND", [])
    return out
  }

  static func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }

  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in body {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return be32(UInt32(data.count)) + body + be32(~crc)
  }

  @Test(arguments: [false, true])
  func truecolour_decodesToTheDotsOfItsInk(alpha: Bool) throws {
    var rng = SeededGenerator(seed: alpha ? 3 : 4)
    for width in [1, 7, 8, 9, 31, 100] {
      let height = Int.random(in: 1...20, using: &rng)
      let channels = alpha ? 4 : 3
      let pixels = (0..<(width * height * channels)).map { _ in
        UInt8.random(in: 0...255, using: &rng)
      }
      let png = Self.png(width: width, height: height, alpha: alpha, pixels)
      let dots = try PNGCodec.decodeBitmap(png)
      #expect(dots == (try PNGCodec.decodeInk(png)).thresholded(), "\(width) wide")
      #expect(dots.width == width && dots.height == height)
    }
  }

  /// 8-bit greyscale, read by libpng straight to dots, gives the dots cairo's way gives;
  /// a colour-space chunk sends the file through cairo.
  @Test func greyscale_decodesToTheSameDotsEitherWay() throws {
    var rng = PNGWriterTests.Dots(seed: 5)
    for width in [1, 7, 8, 9, 31, 100, 203] {
      let height = Int.random(in: 1...20, using: &rng)
      let pixels = (0..<(width * height)).map { _ in UInt8.random(in: 0...255, using: &rng) }
      let pHYs = Self.be32(8000) + Self.be32(8000) + [1]
      let plain = Self.png(
        width: width, height: height, alpha: false, pixels, grey: true, extra: [("pHYs", pHYs)])
      #expect(GreyPNG.isPlainGrey(plain))
      let dots = try PNGCodec.decodeBitmap(plain)
      #expect(dots == (try PNGCodec.decodeInk(plain)).thresholded(), "\(width) wide")
      var expected = Bitmap(width: width, height: height)
      for y in 0..<height {
        for x in 0..<width where pixels[y * width + x] <= 127 { expected[x, y] = true }
      }
      #expect(dots == expected)
      let gamma = Self.png(
        width: width, height: height, alpha: false, pixels, grey: true,
        extra: [("gAMA", Self.be32(100_000))])
      #expect(!GreyPNG.isPlainGrey(gamma))
      #expect(try PNGCodec.decodeBitmap(gamma) == (try PNGCodec.decodeInk(gamma)).thresholded())
    }
  }

  /// A greyscale file that is damaged after its header is refused as cairo refuses it.
  @Test func damagedGreyscale_isRefusedAsBefore() {
    let pixels = [UInt8](repeating: 0, count: 64)
    var png = Self.png(width: 8, height: 8, alpha: false, pixels, grey: true)
    png[png.count - 20] ^= 0xFF
    #expect(throws: ImageError.self) { try PNGCodec.decodeBitmap(png) }
    #expect(throws: ImageError.self) { try PNGCodec.decodeBitmap(Array(png.prefix(50))) }
  }
}

/// Damaged PNGs of every kind labeld reads to dots (greyscale through libpng, the rest
/// through cairo): a byte changed, a run cut out, a chunk length rewritten. Each is read
/// or refused with an `ImageError`; nothing traps, and where both ways read one, they
/// agree.
struct PNGFuzzTests {
  @Test func mutatedPNGs_areReadOrRefused() {
    var rng = PNGWriterTests.Dots(seed: 6)
    let pixels = (0..<(24 * 12 * 4)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    let seeds = [
      PNGDecodeDotsTests.png(width: 24, height: 12, alpha: false, pixels, grey: true),
      PNGDecodeDotsTests.png(width: 24, height: 12, alpha: false, pixels),
      PNGDecodeDotsTests.png(width: 24, height: 12, alpha: true, pixels),
    ]
    var read = 0
    for i in 0..<3000 {
      var png = seeds[i % seeds.count]
      for _ in 0..<Int.random(in: 1...3, using: &rng) {
        let at = Int.random(in: 8..<png.count, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: png[at] = UInt8.random(in: 0...255, using: &rng)
        case 1: png.removeSubrange(at..<min(png.count, at + Int.random(in: 1...40, using: &rng)))
        default:
          // A chunk length (every chunk starts 8, 33, ... bytes in) made large.
          if png.count > 40 { png[33] = 0x7F }
        }
        if png.count <= 8 { break }
      }
      do {
        let dots = try PNGCodec.decodeBitmap(png)
        read += 1
        if let ink = try? PNGCodec.decodeInk(png) { #expect(dots == ink.thresholded()) }
      } catch {
        // Refused with a reason: what a client is told.
        #expect(!error.message.isEmpty)
      }
    }
    #expect(read > 0)
  }
}
