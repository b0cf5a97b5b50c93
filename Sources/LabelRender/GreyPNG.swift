import CPNG
import LabelLanguages

/// 8-bit greyscale PNGs, the form apps and LPrint's peers send most, read to dots through
/// libpng's simplified API: one byte a pixel, where cairo's reader expands every pixel to
/// 32 bits first (docs/benchmarks.md has both ways' costs). Only a
/// file libpng hands back exactly as stored takes this way: greyscale, 8 bits, no
/// transparency and no colour-space chunk (gAMA, cHRM, sRGB, iCCP, sBIT: libpng would
/// convert, cairo does not). Anything else, or a file libpng refuses, returns nil and goes
/// through cairo as before, so both ways give the same dots and the same errors
/// (PNGDecodeDotsTests compare them).
enum GreyPNG {
  /// The chunks that may come before the image data without changing a pixel.
  private static let harmless: Set<String> = [
    "IHDR", "pHYs", "tEXt", "zTXt", "iTXt", "tIME", "bKGD", "hIST", "sPLT",
  ]

  /// Whether the file is an 8-bit greyscale PNG libpng returns as stored.
  static func isPlainGrey(_ png: [UInt8]) -> Bool {
    // Signature, then IHDR: length 13, width, height, depth 8, colour type 0.
    guard png.count > 33, png[24] == 8, png[25] == 0 else { return false }
    var at = 8
    while at <= png.count - 8 {
      let length = png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
      let type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
      if type == "IDAT" { return true }
      guard harmless.contains(type), length <= png.count - at - 12 else { return false }
      at += 12 + length
    }
    return false
  }

  /// The grey of `png`, 8 bits a pixel as stored (0 black), or nil to go through cairo.
  /// The caller has checked the size the header declares.
  static func grey(_ png: [UInt8], width: Int, height: Int) -> [UInt8]? {
    guard isPlainGrey(png), DrawingLibraries.havePNG() else { return nil }
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    let begun = png.withUnsafeBytes {
      png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count)
    }
    guard begun != 0 else {
      png_image_free(&image)
      return nil
    }
    guard Int(image.width) == width, Int(image.height) == height else {
      png_image_free(&image)
      return nil
    }
    image.format = UInt32(PNG_FORMAT_GRAY)
    var grey = [UInt8](repeating: 0, count: width * height)
    let finished = grey.withUnsafeMutableBytes {
      png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
    }
    guard finished != 0 else { return nil }
    return grey
  }

  /// The dots of `png` (black where the grey is at most 127, as cairo's way finds them:
  /// its grey g becomes (g, g, g), whose luminance is g), or nil to go through cairo.
  /// The caller has checked the size the header declares.
  static func dots(_ png: [UInt8], width: Int, height: Int) -> Bitmap? {
    guard let grey = grey(png, width: width, height: height) else { return nil }
    // Grey at most 127 is ink of at least 128.
    return InkImage(width: width, height: height, ink: InkImage.inverted(grey)).bitmap(.threshold)
  }
}
