import Foundation
import LabelCore
import LabelLanguages
import LabelRender
import Testing

/// Where things land on the rasterised label: sizes, text boxes, shrink and wrap,
/// rotation, boxes and lines, images.
struct LayoutTests {
  let rasteriser = LabelRasteriser()

  @Test(arguments: [
    (62.0, 100.0, 300, 732, 1181), (50.8, 25.4, 203, 406, 203), (101.6, 152.4, 203, 812, 1218),
    (62, 29, 600, 1465, 685),
  ])
  func previewIsMediaTimesDPI(width: Double, length: Double, dpi: Int, dotsW: Int, dotsH: Int)
    throws
  {
    let bitmap = try rasteriser.render(label(width, length, []), data: [:], dpi: dpi)
    #expect(bitmap.width == dotsW && bitmap.height == dotsH)
    #expect(bitmap.blackCount == 0)
  }

  func textBox(
    _ text: String, _ overflow: TextOverflow, align: TextAlign = .left, size: Double = 14,
    dpi: Int = 300
  )
    throws -> (Bitmap, InkBox?, box: InkBox)
  {
    let element = TextElement(
      x: 5, y: 4, width: 30, height: 8, text: text, size: size, align: align, overflow: overflow)
    let bitmap = try rasteriser.render(label(50, 20, [.text(element)]), data: [:], dpi: dpi)
    let box = InkBox(
      minX: dotsAt(5, dpi), minY: dotsAt(4, dpi), maxX: dotsAt(35, dpi) - 1,
      maxY: dotsAt(12, dpi) - 1)
    return (bitmap, InkBox(bitmap), box)
  }

  @Test func textLandsInsideItsBox() throws {
    for align in [TextAlign.left, .center, .right] {
      let (_, ink, box) = try textBox("Soap", .shrink, align: align)
      let i = try #require(ink)
      #expect(i.minX >= box.minX && i.maxX <= box.maxX && i.minY >= box.minY && i.maxY <= box.maxY)
      let mid = (i.minX + i.maxX) / 2
      switch align {
      case .left: #expect(i.minX - box.minX < 10)
      case .center: #expect(abs(mid - (box.minX + box.maxX) / 2) < 6)
      case .right: #expect(box.maxX - i.maxX < 10)
      }
    }
  }

  /// A long product name shrinks to the box: all of it drawn, nothing cut at the edge.
  @Test func shrinkToFitKeepsLongNamesInside() throws {
    let name = "Wholemeal spelt flour, 1 kg bag"
    let (_, shrunk, box) = try textBox(name, .shrink)
    let s = try #require(shrunk)
    // Inside, and not touching the right edge where clipping would cut it.
    #expect(s.minX >= box.minX && s.maxX < box.maxX - 1 && s.maxY <= box.maxY, "\(s) in \(box)")
    #expect(Double(s.maxX - s.minX) > 0.8 * Double(box.maxX - box.minX))
    // Clipped at full size, the same name runs into the box's edge.
    let (_, clipped, _) = try textBox(name, .clip)
    #expect(try #require(clipped).maxX >= box.maxX - 1)
    // The shrunk text ends with the name's last letters: its ink reaches past where the
    // clipped text's last fully drawn word ends, so nothing is missing.
    let (_, short, _) = try textBox("Olive oil", .shrink)
    #expect(try #require(short).maxY - (try #require(short)).minY > s.maxY - s.minY)
  }

  @Test func wrapBreaksLinesInsideTheBox() throws {
    let text = "Store in a cool dry place away from sunlight"
    let (_, wrapped, box) = try textBox(text, .wrap, size: 9)
    let w = try #require(wrapped)
    #expect(w.minX >= box.minX && w.maxX <= box.maxX && w.minY >= box.minY && w.maxY <= box.maxY)
    // More than one line: taller than the same text on one shrunk line.
    let (_, single, _) = try textBox(text, .shrink, size: 9)
    #expect(w.maxY - w.minY > 2 * (try #require(single).maxY - (try #require(single)).minY))
  }

  @Test(arguments: [90, 180, 270])
  func rotatedTextStaysInItsTurnedFootprint(rotation: Int) throws {
    let element = TextElement(
      x: 10, y: 5, width: 30, height: 8, text: "Rotated name", size: 12, rotation: rotation)
    let bitmap = try rasteriser.render(label(50, 50, [.text(element)]), data: [:], dpi: 203)
    let ink = try #require(InkBox(bitmap))
    let quarter = rotation % 180 != 0
    let (w, h) = quarter ? (8.0, 30.0) : (30.0, 8.0)
    #expect(ink.minX >= dotsAt(10, 203) && ink.maxX < dotsAt(10 + w, 203))
    #expect(ink.minY >= dotsAt(5, 203) && ink.maxY < dotsAt(5 + h, 203))
    // Turned a quarter, the text runs down: taller than wide.
    if quarter { #expect(ink.maxY - ink.minY > 3 * (ink.maxX - ink.minX)) }
  }

  @Test func boxesAndLinesOnWholeDots() throws {
    let elements: [Element] = [
      .box(BoxElement(x: 1, y: 1, width: 20, height: 10, thickness: 0.5)),
      .line(LineElement(x1: 25, y1: 2, x2: 45, y2: 2, thickness: 1)),
      .box(BoxElement(x: 25, y: 5, width: 5, height: 5, fill: true)),
    ]
    let b = try rasteriser.render(label(50, 15, elements), data: [:], dpi: 203)
    let (x, y, w, h, t) = (
      dotsAt(1, 203), dotsAt(1, 203), dotsAt(20, 203), dotsAt(10, 203), dotsAt(0.5, 203)
    )
    // The border lies inside the box, t dots thick; inside is white.
    for i in 0..<t {
      #expect(
        b[x + w / 2, y + i] && b[x + w / 2, y + h - 1 - i] && b[x + i, y + h / 2]
          && b[x + w - 1 - i, y + h / 2])
    }
    #expect(!b[x + w / 2, y + t] && !b[x + w / 2, y - 1] && !b[x + w, y + h / 2])
    #expect(
      b[dotsAt(35, 203), dotsAt(2, 203)] && !b[dotsAt(35, 203), dotsAt(2, 203) + dotsAt(1, 203)])
    let filled = (dotsAt(25, 203)..<dotsAt(30, 203)).allSatisfy { xx in
      (dotsAt(5, 203)..<dotsAt(10, 203)).allSatisfy { b[xx, $0] }
    }
    #expect(filled)
  }

  /// An image at one pixel per dot lands exactly; scaled, it keeps its aspect ratio.
  @Test func imageElementIsPlacedAndScaled() throws {
    var logo = Bitmap(width: 40, height: 20)
    logo.fill(x: 0, y: 0, width: 40, height: 2)
    logo.fill(x: 0, y: 0, width: 2, height: 20)
    logo.fill(x: 10, y: 8, width: 7, height: 5)
    let png = Data(try PNGCodec.encode(logo)).base64EncodedString()
    // 40 x 20 dots at 203 dpi is 5.0049 x 2.5024 mm: a box of exactly that many dots.
    let exact = ImageElement(
      x: 2.5, y: 2.5, width: 40 * 25.4 / 203, height: 20 * 25.4 / 203, png: png)
    let b = try rasteriser.render(label(20, 10, [.image(exact)]), data: [:], dpi: 203)
    let (x0, y0) = (dotsAt(2.5, 203), dotsAt(2.5, 203))
    for y in 0..<20 {
      for x in 0..<40 { #expect(b[x0 + x, y0 + y] == logo[x, y], "dot \(x),\(y)") }
    }
    #expect(b.blackCount == logo.blackCount)
    // Twice the size in a wide box: 80 x 40 dots, centred across.
    let scaled = ImageElement(
      x: 0, y: 0, width: 160 * 25.4 / 203, height: 40 * 25.4 / 203, png: png)
    let s = try rasteriser.render(label(20, 10, [.image(scaled)]), data: [:], dpi: 203)
    let ink = try #require(InkBox(s))
    #expect(ink == InkBox(minX: 40, minY: 0, maxX: 119, maxY: 39))
  }

  @Test func brokenImagesNameTheElement() throws {
    let cases: [(String, String)] = [
      (Data("not a png".utf8).base64EncodedString(), "PNG signature"),
      (
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 40))
          .base64EncodedString(), "PNG"
      ),
    ]
    for (png, words) in cases {
      let element = ImageElement(x: 1, y: 1, width: 5, height: 5, png: png)
      do {
        _ = try rasteriser.render(
          label(20, 10, [.box(BoxElement(x: 0, y: 0, width: 1, height: 1)), .image(element)]),
          data: [:], dpi: 203)
        Issue.record("no error for \(words)")
      } catch {
        #expect(error.field == "elements[1].png")
        #expect(error.reason.contains(words), "\(error.reason)")
      }
    }
  }
}

/// PNG in and out.
struct PNGCodecTests {
  @Test func roundTripsAnyBitmap() throws {
    var generator = SystemRandomNumberGenerator()
    for (w, h) in [(1, 1), (7, 3), (8, 8), (33, 17), (696, 40)] {
      var b = Bitmap(width: w, height: h)
      for y in 0..<h { for x in 0..<w where Bool.random(using: &generator) { b[x, y] = true } }
      let png = try PNGCodec.encode(b)
      #expect(try PNGCodec.size(of: png) == (w, h))
      #expect(try PNGCodec.decodeBitmap(png) == b)
    }
  }

  @Test func refusesHugeAndBrokenFiles() throws {
    // A valid header declaring 100000 x 100000 pixels: refused before decoding.
    var header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
    header += Array("IHDR".utf8) + [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    #expect(throws: ImageError.self) { try PNGCodec.decodeBitmap(header) }
    #expect(throws: ImageError.self) { try PNGCodec.decodeBitmap(Array("GIF89a".utf8)) }
    let good = try PNGCodec.encode(Bitmap(width: 50, height: 50))
    #expect(throws: ImageError.self) {
      try PNGCodec.decodeBitmap(Array(good.prefix(good.count / 2)))
    }
  }
}
