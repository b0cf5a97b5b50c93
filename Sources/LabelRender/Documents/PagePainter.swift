import CCairo
import CPoppler

/// Draws a placed page onto a label with cairo: a raster page's ink resampled onto an A8
/// surface (alpha is ink), a PDF page drawn by poppler onto a white RGB surface and read
/// back as ink. Each surface and context is made and destroyed within one call.
enum PagePainter {
  /// `page` placed on a label of `placement`'s size, as ink.
  static func paint(_ page: InkImage, _ placement: PagePlacement) throws(ImageError) -> InkImage {
    let target = try Canvas(width: placement.width, height: placement.height)
    let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_A8, Int32(page.width)))
    guard stride > 0, page.width > 0, page.height > 0 else {
      throw ImageError("a \(page.width) x \(page.height) page cannot be drawn")
    }
    // The page's ink as an A8 source, rows padded to cairo's stride.
    var source = [UInt8](repeating: 0, count: stride * page.height)
    for y in 0..<page.height {
      source.replaceSubrange(
        y * stride..<y * stride + page.width,
        with: page.ink[y * page.width..<(y + 1) * page.width])
    }
    try source.withUnsafeMutableBufferPointer { (pixels) throws(ImageError) in
      guard
        let surface = cairo_image_surface_create_for_data(
          pixels.baseAddress, CAIRO_FORMAT_A8, Int32(page.width), Int32(page.height),
          Int32(stride))
      else { throw ImageError("cannot wrap the page for drawing") }
      defer { cairo_surface_destroy(surface) }
      guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
        throw ImageError("cannot wrap a \(page.width) x \(page.height) page for drawing")
      }
      transform(target.cr, placement, width: Double(page.width), height: Double(page.height))
      // Ink is alpha: a source of ink is painted as a mask of black.
      cairo_set_source_rgba(target.cr, 0, 0, 0, 1)
      cairo_mask_surface(target.cr, surface, 0, 0)
      cairo_surface_flush(target.surface)
    }
    return target.ink()
  }

  /// Page `index` of `pdf`, placed, as ink.
  static func paint(_ pdf: PDFDocument, page index: Int, _ placement: PagePlacement)
    throws(ImageError) -> InkImage
  {
    let size = try pdf.pageSize(index)
    let width = placement.width
    let height = placement.height
    guard width > 0, height > 0, width <= 32_767, height <= 32_767,
      width * height <= LabelRasteriser.maxPixels
    else { throw ImageError("a \(width) x \(height) dot label cannot be drawn") }
    guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
    else { throw ImageError("cannot draw a \(width) x \(height) dot label") }
    defer { cairo_surface_destroy(surface) }
    guard let cr = cairo_create(surface) else { throw ImageError("cannot draw the page") }
    defer { cairo_destroy(cr) }
    guard cairo_status(cr) == CAIRO_STATUS_SUCCESS else {
      throw ImageError("cannot draw a \(width) x \(height) dot label")
    }
    cairo_set_source_rgb(cr, 1, 1, 1)
    cairo_paint(cr)
    transform(cr, placement, width: size.width, height: size.height)
    try pdf.render(index, onto: cr)
    cairo_surface_flush(surface)
    let stride = Int(cairo_image_surface_get_stride(surface))
    guard let data = cairo_image_surface_get_data(surface) else {
      throw ImageError("cannot read the drawn page")
    }
    var ink = [UInt8](repeating: 0, count: width * height)
    data.withMemoryRebound(to: UInt32.self, capacity: stride / 4 * height) { pixels in
      for y in 0..<height {
        let row = y * (stride / 4)
        for x in 0..<width {
          let p = pixels[row + x]
          let r = Int((p >> 16) & 0xFF)
          let g = Int((p >> 8) & 0xFF)
          let b = Int(p & 0xFF)
          // Luminance by Rec. 601, as ink.
          ink[y * width + x] = UInt8(255 - (299 * r + 587 * g + 114 * b) / 1000)
        }
      }
    }
    return InkImage(width: width, height: height, ink: ink)
  }

  /// The placement as cairo's transform: turned, scaled and moved (the page's own units
  /// are its pixels, or a PDF's points).
  private static func transform(
    _ cr: OpaquePointer, _ p: PagePlacement, width: Double, height: Double
  ) {
    cairo_identity_matrix(cr)
    cairo_translate(cr, p.x, p.y)
    cairo_scale(cr, p.scale, p.scale)
    // Turn about the origin, then bring the turned page back to the origin.
    switch p.quarterTurns & 3 {
    case 1:
      cairo_translate(cr, height, 0)
      cairo_rotate(cr, Double.pi / 2)
    case 2:
      cairo_translate(cr, width, height)
      cairo_rotate(cr, Double.pi)
    case 3:
      cairo_translate(cr, 0, width)
      cairo_rotate(cr, -Double.pi / 2)
    default: break
    }
  }
}

extension Canvas {
  /// The ink as drawn, one byte a dot.
  func ink() -> InkImage {
    cairo_surface_flush(surface)
    let stride = Int(cairo_image_surface_get_stride(surface))
    guard let data = cairo_image_surface_get_data(surface) else {
      return InkImage(
        width: width, height: height, ink: [UInt8](repeating: 0, count: width * height))
    }
    var out = [UInt8](repeating: 0, count: width * height)
    for y in 0..<height {
      for x in 0..<width { out[y * width + x] = data[y * stride + x] }
    }
    return InkImage(width: width, height: height, ink: out)
  }
}

extension DocumentPage {
  /// The page placed on a label, as ink.
  public func placed(_ placement: PagePlacement) throws(ImageError) -> InkImage {
    // At its own size, unturned, on whole dots: cairo would copy it, so it is copied here
    // (a PWG or PNG label made for the printer is the common case, and the costly one).
    if placement.quarterTurns % 4 == 0, placement.scale == 1,
      placement.x == placement.x.rounded(), placement.y == placement.y.rounded(),
      abs(placement.x) < 1e6, abs(placement.y) < 1e6
    {
      return ink.copied(
        onto: placement.width, placement.height, at: Int(placement.x), Int(placement.y))
    }
    return try PagePainter.paint(ink, placement)
  }
}

extension PDFDocument {
  /// Page `index` placed on a label, as ink.
  public func page(_ index: Int, placed placement: PagePlacement) throws(ImageError) -> InkImage {
    try PagePainter.paint(self, page: index, placement)
  }
}

extension InkImage {
  /// This ink on a `width` x `height` label with its top left corner at (`x`, `y`), what
  /// falls outside cut off.
  func copied(onto width: Int, _ height: Int, at x: Int, _ y: Int) -> InkImage {
    if x == 0, y == 0, width == self.width, height == self.height { return self }
    var out = [UInt8](repeating: 0, count: width * height)
    let from = max(0, -x)
    let to = min(self.width, width - x)
    if from < to {
      for row in max(0, -y)..<max(max(0, -y), min(self.height, height - y)) {
        let source = row * self.width
        let target = (row + y) * width + x
        out.replaceSubrange(target + from..<target + to, with: ink[source + from..<source + to])
      }
    }
    return InkImage(width: width, height: height, ink: out)
  }
}
