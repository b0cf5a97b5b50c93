import Foundation
import LabelCore
import LabelWire
import Testing

@testable import LabelLanguages

/// Our Brother QL raster against an independent implementation: the PyPI package
/// brother-ql-next 0.12 (installed by `make peers`) converts the same images; both jobs
/// are decoded and must give the same dots line for line, the same print information
/// and both must be the source image.
@Suite(.enabled(if: QLPeer.python != nil, "brother-ql-next not installed: run `make peers`"))
struct BrotherQLPeerTests {
  struct Case {
    var model: String
    var label: String
    var compress: Bool
    var height: Int?
  }

  static let cases = [
    Case(model: "QL-720NW", label: "62", compress: true, height: 300),
    Case(model: "QL-1060N", label: "102", compress: true, height: 320),
    Case(model: "QL-700", label: "29", compress: false, height: 200),
    Case(model: "QL-820NWB", label: "62x29", compress: true, height: nil),
    Case(model: "QL-570", label: "29x90", compress: false, height: nil),
  ]

  static func randomBitmap(width: Int, height: Int) -> Bitmap {
    var b = Bitmap(width: width, height: height)
    for _ in 0..<40 {
      b.fill(
        x: Int.random(in: 0..<width), y: Int.random(in: 0..<height),
        width: Int.random(in: 1...120), height: Int.random(in: 1...40))
    }
    b[0, 0] = true
    b[width - 1, height - 1] = true
    return b
  }

  @Test func sameImages_sameRasterAsBrotherQL() throws {
    for c in Self.cases {
      let model = try #require(BrotherQLModel.named(c.model), "\(c.model)")
      let media = try #require(BrotherQLMedia.named(c.label), "\(c.label)")
      let bitmap = Self.randomBitmap(
        width: media.printableWidth, height: c.height ?? media.printableLength)
      let ours = try BrotherQLEncoder(
        BrotherQLOptions(model: model, media: media, compression: c.compress)
      )
      .encode([bitmap])
      let theirs = try QLPeer.convert(
        model: c.model, label: c.label, bitmap: bitmap, compress: c.compress)
      let decoder = BrotherQLRasterDecoder(model: model)
      let a = try decoder.decode(ours)
      let b = try decoder.decode(theirs)
      #expect(a.pages.count == 1 && b.pages.count == 1, "\(c.model) \(c.label)")
      guard let p = a.pages.first, let q = b.pages.first else { continue }
      #expect(
        p.bitmap(media: media, model: model) == bitmap,
        "\(c.model) \(c.label): ours decodes to the image")
      #expect(
        q.bitmap(media: media, model: model) == bitmap,
        "\(c.model) \(c.label): theirs decodes to the image")
      #expect(p.printInformation.lineCount == q.printInformation.lineCount)
      #expect(p.printInformation.mediaType == q.printInformation.mediaType)
      #expect(p.printInformation.widthMM == q.printInformation.widthMM)
      #expect(p.printInformation.lengthMM == q.printInformation.lengthMM)
      #expect(p.compressed == q.compressed)
      #expect(p.feedMargin == q.feedMargin)
      #expect(a.invalidateCount == b.invalidateCount, "\(c.model): invalidate NULs")
    }
  }
}

/// brother_ql's red/black conversion (`red=True`, label "62red") of an RGB image whose
/// black and red come from two planes: black (0, 0, 0) and three reds it takes as red
/// ((255, 0, 0), (180, 0, 0), orange (255, 128, 0)); its job decodes to the same two
/// planes as ours, with the same print information and two-colour mode.
@Suite(.enabled(if: QLPeer.python != nil, "brother-ql-next not installed: run `make peers`"))
struct BrotherQLRedPeerTests {
  @Test(arguments: [("QL-820NWB", true), ("QL-800", false)])
  func sameRedImage_samePlanesAsBrotherQL(model name: String, compress: Bool) throws {
    let model = try #require(BrotherQLModel.named(name))
    let roll = try #require(BrotherQLMedia.named("62red"))
    var black = BrotherQLPeerTests.randomBitmap(width: 696, height: 240)
    var red = Bitmap(width: 696, height: 240)
    for i in 0..<25 { red.fill(x: (i * 53) % 640, y: (i * 31) % 220, width: 50, height: 18) }
    black = black.subtracting(red)
    let ours = try BrotherQLEncoder(
      BrotherQLOptions(model: model, media: roll, compression: compress)
    )
    .encode([black], red: [red])
    let theirs = try QLPeer.convertRed(model: name, black: black, red: red, compress: compress)
    let decoder = BrotherQLRasterDecoder(model: model)
    let p = try #require(try decoder.decode(ours).pages.first)
    let q = try #require(try decoder.decode(theirs).pages.first)
    #expect(p.twoColour && q.twoColour)
    #expect(q.bitmap(media: roll, model: model) == black, "theirs: black plane")
    #expect(q.bitmap(media: roll, model: model, red: true) == red, "theirs: red plane")
    #expect(p.bitmap(media: roll, model: model) == black)
    #expect(p.bitmap(media: roll, model: model, red: true) == red)
    #expect(p.printInformation == q.printInformation && p.compressed == q.compressed)
    #expect(p.feedMargin == q.feedMargin && p.expandedMode == q.expandedMode)
  }
}

/// Runs brother_ql's converter in a Python process.
enum QLPeer {
  /// brother_ql's `convert` with `red=True` on label 62red, of the RGB image `black` and
  /// `red` make (reds varying with x, all red by its rule).
  static func convertRed(model: String, black: Bitmap, red: Bitmap, compress: Bool) throws
    -> [UInt8]
  {
    let script = """
      import sys, json
      from PIL import Image
      from brother_ql.raster import BrotherQLRaster
      from brother_ql.conversion import convert
      job = json.load(sys.stdin)
      w, h, bpr = job["width"], job["height"], job["bytesPerRow"]
      k, r = bytes.fromhex(job["black"]), bytes.fromhex(job["red"])
      reds = [(255, 0, 0), (180, 0, 0), (255, 128, 0)]
      img = Image.new("RGB", (w, h), (255, 255, 255))
      px = img.load()
      for y in range(h):
          for x in range(w):
              bit = 0x80 >> (x % 8)
              if k[y * bpr + x // 8] & bit:
                  px[x, y] = (0, 0, 0)
              elif r[y * bpr + x // 8] & bit:
                  px[x, y] = reds[x % 3]
      qlr = BrotherQLRaster(job["model"])
      out = convert(qlr=qlr, images=[img], label="62red", rotate="0", threshold=70.0,
                    dither=False, compress=job["compress"], red=True, dpi_600=False, hq=True, cut=True)
      sys.stdout.write(out.hex())
      """
    let hex = { (b: Bitmap) in b.bytes.map { String(format: "%02x", $0) }.joined() }
    let job: [String: JSONValue] = [
      "model": .string(model), "width": .int(black.width), "height": .int(black.height),
      "bytesPerRow": .int(black.bytesPerRow), "black": .string(hex(black)),
      "red": .string(hex(red)), "compress": .bool(compress),
    ]
    return Self.bytes(
      String(
        decoding: try PeerPython.run(
          python!, script, input: Data(JSONValue.object(job).serialized())),
        as: UTF8.self))
  }

  static func bytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var i = hex.startIndex
    while i < hex.endIndex, let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex) {
      bytes.append(UInt8(hex[i..<j], radix: 16) ?? 0)
      i = j
    }
    return bytes
  }

  static let python = PeerPython.interpreter("ql")

  static func convert(model: String, label: String, bitmap: Bitmap, compress: Bool) throws
    -> [UInt8]
  {
    let script = """
      import sys, json
      from PIL import Image
      from brother_ql.raster import BrotherQLRaster
      from brother_ql.conversion import convert
      job = json.load(sys.stdin)
      w, h, bpr = job["width"], job["height"], job["bytesPerRow"]
      bits = bytes.fromhex(job["bits"])
      img = Image.new("1", (w, h), 1)
      px = img.load()
      for y in range(h):
          for x in range(w):
              if bits[y * bpr + x // 8] & (0x80 >> (x % 8)):
                  px[x, y] = 0
      qlr = BrotherQLRaster(job["model"])
      qlr.exception_on_warning = True
      out = convert(qlr=qlr, images=[img], label=job["label"], rotate="0", threshold=70.0,
                    dither=False, compress=job["compress"], red=False, dpi_600=False, hq=True, cut=True)
      sys.stdout.write(out.hex())
      """
    let job: [String: JSONValue] = [
      "model": .string(model), "label": .string(label), "width": .int(bitmap.width),
      "height": .int(bitmap.height), "bytesPerRow": .int(bitmap.bytesPerRow),
      "bits": .string(bitmap.bytes.map { String(format: "%02x", $0) }.joined()),
      "compress": .bool(compress),
    ]
    return Self.bytes(
      String(
        decoding: try PeerPython.run(
          python!, script, input: Data(JSONValue.object(job).serialized())),
        as: UTF8.self))
  }
}
