import CCairo
import LabelLanguages

/// PNG in (through cairo's reader, libpng) and out (`PNGWriter`).
public enum PNGCodec {
  /// The largest image accepted, per side and in total, checked from the header before
  /// anything is decoded (a small file can declare a huge image).
  public static let maxSide = 16_384
  public static let maxPixels = 20_000_000

  /// A 1-bit greyscale PNG of `bitmap`: black where the bitmap has a dot.
  public static func encode(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
    guard bitmap.width > 0, bitmap.height > 0 else { throw ImageError("an empty bitmap") }
    return try PNGWriter.greyscale(bitmap)
  }

  /// A PNG of a red/black label: black where `black` has a dot, red (255, 0, 0) where
  /// `red` has one, white elsewhere (the preview of a two-colour printer).
  public static func encode(black: Bitmap, red: Bitmap) throws(ImageError) -> [UInt8] {
    guard black.width > 0, black.height > 0 else { throw ImageError("an empty bitmap") }
    guard red.width == black.width, red.height == black.height else {
      throw ImageError("the red plane is not the black plane's size")
    }
    return try PNGWriter.palette(black: black, red: red)
  }

  /// Width and height from the PNG header, after checking the signature.
  public static func size(of png: [UInt8]) throws(ImageError) -> (width: Int, height: Int) {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard png.count >= 33, Array(png[0..<8]) == signature,
      Array(png[12..<16]) == Array("IHDR".utf8)
    else { throw ImageError("not a PNG file (no PNG signature and header)") }
    func be32(_ at: Int) -> Int {
      png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
    }
    return (be32(16), be32(20))
  }

  /// The image's ink (255 = black) composited over white paper, one byte per pixel.
  public static func decodeInk(_ png: [UInt8]) throws(ImageError) -> InkImage {
    let (w, h) = try checkedSize(png)
    // An 8-bit grey PNG straight from libpng: its grey g is cairo's (g, g, g), ink 255 - g.
    if let grey = GreyPNG.grey(png, width: w, height: h) {
      return InkImage(width: w, height: h, ink: InkImage.inverted(grey))
    }
    return try decodePixels(png) { pixels in
      var ink = [UInt8](repeating: 0, count: pixels.width * pixels.height)
      ink.withUnsafeMutableBufferPointer { out in
        for y in 0..<pixels.height {
          let row = y * pixels.width
          for x in 0..<pixels.width { out[row + x] = pixels.ink(x, y) }
        }
      }
      return InkImage(width: pixels.width, height: pixels.height, ink: ink)
    }
  }

  /// The PNG as the two planes of a red/black label, one dot per pixel. Red is
  /// brother_ql's rule for the QL-8xx (its `convert` with `red=True`, on Pillow's 0–255
  /// HSV): hue below 40 or above 210, saturation above 100, value above 80, and ink of at
  /// least 76 (its default threshold, 70%). Black is what a one-colour label prints (ink
  /// at least half) where the pixel is not red; brother_ql is stricter there (value below
  /// 80), so mid-greys it drops print black here, as on every other printer.
  public static func decodeTwoColour(_ png: [UInt8]) throws(ImageError)
    -> (black: Bitmap, red: Bitmap)
  {
    try decodePixels(png) { pixels in
      var black = Bitmap(width: pixels.width, height: pixels.height)
      var red = Bitmap(width: pixels.width, height: pixels.height)
      for y in 0..<pixels.height {
        for x in 0..<pixels.width {
          let (r, g, b) = pixels.rgb(x, y)
          if isRed(r, g, b) {
            red[x, y] = true
          } else if PixelReader.ink(r, g, b) >= 128 {
            black[x, y] = true
          }
        }
      }
      return (black, red)
    }
  }

  /// brother_ql's red test, in Pillow's integer HSV and luma (`rgb2hsv`: h and s scaled to
  /// 0–255 and truncated; L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16).
  static func isRed(_ r: Int, _ g: Int, _ b: Int) -> Bool {
    let v = max(r, g, b)
    let low = min(r, g, b)
    guard v > 80, v != low else { return false }
    let range = Double(v - low)
    let s = Int(range / Double(v) * 255)
    guard s > 100 else { return false }
    let rc = Double(v - r) / range
    let gc = Double(v - g) / range
    let bc = Double(v - b) / range
    var h = r == v ? bc - gc : g == v ? 2 + rc - bc : 4 + gc - rc
    h = (h / 6 + 1).truncatingRemainder(dividingBy: 1)
    let hue = Int(h * 255)
    guard hue < 40 || hue > 210 else { return false }
    let luma = (19595 * r + 38470 * g + 7471 * b + 0x8000) >> 16
    return 255 - luma >= 76
  }

  /// Decodes `png` with cairo and hands `body` its pixels, composited over white paper.
  /// The size the header declares, refused when it is more than labeld accepts.
  private static func checkedSize(_ png: [UInt8]) throws(ImageError) -> (Int, Int) {
    let (w, h) = try size(of: png)
    guard w > 0, h > 0, w <= maxSide, h <= maxSide, w * h <= maxPixels else {
      throw ImageError(
        "the PNG is \(w) x \(h) pixels; at most \(maxSide) a side and \(maxPixels) pixels are accepted"
      )
    }
    return (w, h)
  }

  private static func decodePixels<T>(_ png: [UInt8], _ body: (PixelReader) -> T)
    throws(ImageError) -> T
  {
    _ = try checkedSize(png)
    try DrawingLibraries.requireDrawing()
    let source = ByteSource(png)
    let surface = cairo_image_surface_create_from_png_stream(
      { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
        let source = Unmanaged<ByteSource>.fromOpaque(closure).takeUnretainedValue()
        return source.read(into: data, count: Int(length))
          ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR
      }, Unmanaged.passUnretained(source).toOpaque())
    defer { cairo_surface_destroy(surface) }
    let status = cairo_surface_status(surface)
    guard status == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else {
      throw ImageError(
        "the PNG cannot be decoded: \(String(cString: cairo_status_to_string(status)))")
    }
    let format = cairo_image_surface_get_format(surface)
    let kind: PixelReader.Kind
    switch format {
    case CAIRO_FORMAT_ARGB32: kind = .argb
    case CAIRO_FORMAT_RGB24: kind = .rgb
    case CAIRO_FORMAT_A8: kind = .alpha
    default:
      throw ImageError("the PNG decodes to an unsupported pixel format (\(format.rawValue))")
    }
    return body(
      PixelReader(
        data: data, width: Int(cairo_image_surface_get_width(surface)),
        height: Int(cairo_image_surface_get_height(surface)),
        stride: Int(cairo_image_surface_get_stride(surface)), kind: kind))
  }

  /// The PNG as a 1-bit bitmap, one dot per pixel: black where the ink is at least half.
  public static func decodeBitmap(_ png: [UInt8]) throws(ImageError) -> Bitmap {
    let (w, h) = try checkedSize(png)
    if let dots = GreyPNG.dots(png, width: w, height: h) { return dots }
    return try decodePixels(png) { pixels in
      let bytesPerRow = (pixels.width + 7) / 8
      var bytes = [UInt8](repeating: 0, count: bytesPerRow * pixels.height)
      bytes.withUnsafeMutableBufferPointer { out in
        for y in 0..<pixels.height {
          pixels.darkBits(inRow: y, into: out, at: y * bytesPerRow)
        }
      }
      return Bitmap(width: pixels.width, height: pixels.height, bytes: bytes)
    }
  }
}

/// The pixels of a decoded cairo image surface, each composited over white paper.
struct PixelReader {
  enum Kind { case argb, rgb, alpha }
  let data: UnsafeMutablePointer<UInt8>
  let width: Int
  let height: Int
  let stride: Int
  let kind: Kind

  /// Red, green and blue, 0–255, over white.
  @inline(__always) func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
    let row = data + y * stride
    if kind == .alpha {
      let paper = 255 - Int(row[x])
      return (paper, paper, paper)
    }
    let p = UnsafeRawPointer(row).assumingMemoryBound(to: UInt32.self)[x]
    // Premultiplied: over white, each channel gains the paper showing through.
    let paper = kind == .rgb ? 0 : 255 - Int(p >> 24)
    return (
      min(255, Int((p >> 16) & 0xFF) + paper), min(255, Int((p >> 8) & 0xFF) + paper),
      min(255, Int(p & 0xFF) + paper)
    )
  }

  /// Ink 0 (paper) … 255 (black) from luminance.
  @inline(__always) static func ink(_ r: Int, _ g: Int, _ b: Int) -> UInt8 {
    UInt8(255 - min(255, (r * 77 + g * 150 + b * 29) >> 8))
  }

  @inline(__always) func ink(_ x: Int, _ y: Int) -> UInt8 {
    if kind == .alpha { return data[y * stride + x] }
    let (r, g, b) = rgb(x, y)
    return Self.ink(r, g, b)
  }

  /// Row `y` as dots, eight pixels a byte from the left: 1 where the ink is at least half
  /// (`ink(x, y) >= 128`). The pixel format is chosen once a row, not once a pixel (a
  /// 4 x 6 in label at 203 dpi is a million pixels).
  @inline(__always) func darkBits(
    inRow y: Int, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int
  ) {
    let row = data + y * stride
    var x = 0
    var index = start
    while x < width {
      var byte: UInt8 = 0
      let end = min(width, x + 8)
      switch kind {
      case .alpha:
        for i in x..<end where row[i] >= 128 { byte |= 0x80 >> UInt8(i - x) }
      case .rgb:
        // Opaque: ink >= 128 is a luminance of at most 127.
        let pixels = UnsafeRawPointer(row).assumingMemoryBound(to: UInt32.self)
        for i in x..<end {
          let p = pixels[i]
          let luminance =
            (Int((p >> 16) & 0xFF) * 77 + Int((p >> 8) & 0xFF) * 150
              + Int(p & 0xFF) * 29) >> 8
          if luminance <= 127 { byte |= 0x80 >> UInt8(i - x) }
        }
      case .argb:
        for i in x..<end where ink(i, y) >= 128 { byte |= 0x80 >> UInt8(i - x) }
      }
      out[index] = byte
      index += 1
      x = end
    }
  }
}

/// A decoded image as ink per pixel (0 paper … 255 black).
public struct InkImage: Sendable, Equatable {
  public let width: Int
  public let height: Int
  public let ink: [UInt8]

  public func thresholded() -> Bitmap {
    var bitmap = Bitmap(width: width, height: height)
    var bytes = [UInt8](repeating: 0, count: bitmap.bytesPerRow * height)
    for y in 0..<height {
      for x in 0..<width where ink[y * width + x] >= 128 {
        bytes[y * bitmap.bytesPerRow + (x >> 3)] |= 0x80 >> UInt8(x & 7)
      }
    }
    bitmap = Bitmap(width: width, height: height, bytes: bytes)
    return bitmap
  }
}

private final class ByteSource {
  let bytes: [UInt8]
  var offset = 0
  init(_ bytes: [UInt8]) { self.bytes = bytes }

  func read(into data: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
    guard count <= bytes.count - offset else { return false }
    guard count > 0 else { return true }
    bytes.withUnsafeBufferPointer { src in
      guard let base = src.baseAddress else { return }
      data.update(from: base + offset, count: count)
    }
    offset += count
    return true
  }
}
