import CCairo
import LabelLanguages

/// A label being drawn: one cairo A8 image surface and its drawing context, created and
/// destroyed here (one owner). Ink is alpha: 0 is paper, 255 is black; the 1-bit label is
/// the ink thresholded at one half.
final class Canvas {
  let width: Int
  let height: Int
  let surface: OpaquePointer
  let cr: OpaquePointer

  init(width: Int, height: Int) throws(ImageError) {
    guard width > 0, height > 0, width <= 32_767, height <= 32_767 else {
      throw ImageError("a \(width) x \(height) dot label cannot be drawn (at most 32767 a side)")
    }
    // Checked before anything is allocated: one byte of ink a dot, plus the 1-bit label.
    guard width * height <= LabelRasteriser.maxPixels else {
      throw ImageError(
        "a \(width) x \(height) dot label is \(width * height) dots; labeld draws at most "
          + "\(LabelRasteriser.maxPixels) dots a label (lower the dpi or the label's size)")
    }
    try DrawingLibraries.requireDrawing()
    self.width = width
    self.height = height
    surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height))
    cr = cairo_create(surface)
    let status = cairo_status(cr)
    guard status == CAIRO_STATUS_SUCCESS else {
      let message = String(cString: cairo_status_to_string(status))
      cairo_destroy(cr)
      cairo_surface_destroy(surface)
      throw ImageError("cannot draw a \(width) x \(height) dot label: \(message)")
    }
    cairo_set_source_rgba(cr, 0, 0, 0, 1)
  }

  deinit {
    cairo_destroy(cr)
    cairo_surface_destroy(surface)
  }

  /// Fills a rectangle of whole dots exactly (no anti-aliasing), in the current transform.
  func fillDots(x: Int, y: Int, width w: Int, height h: Int) {
    guard w > 0, h > 0 else { return }
    cairo_save(cr)
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE)
    cairo_rectangle(cr, Double(x), Double(y), Double(w), Double(h))
    cairo_fill(cr)
    cairo_restore(cr)
  }

  /// Sets the transform that places an element of `local` size at dot (`x`, `y`), turned
  /// `rotation` degrees clockwise; (`x`, `y`) is the top-left of the turned footprint.
  /// Quarter turns use exact 0/±1 matrices so bars stay on whole dots.
  func place(x: Int, y: Int, local: (width: Int, height: Int), rotation: Int) {
    var m = cairo_matrix_t()
    let (w, h) = (Double(local.width), Double(local.height))
    let (ox, oy) = (Double(x), Double(y))
    switch rotation {
    case 90: cairo_matrix_init(&m, 0, 1, -1, 0, ox + h, oy)
    case 180: cairo_matrix_init(&m, -1, 0, 0, -1, ox + w, oy + h)
    case 270: cairo_matrix_init(&m, 0, -1, 1, 0, ox, oy + w)
    default: cairo_matrix_init(&m, 1, 0, 0, 1, ox, oy)
    }
    cairo_set_matrix(cr, &m)
  }

  func resetTransform() { cairo_identity_matrix(cr) }

  /// Drawing removes ink instead of adding it (cairo's CLEAR, bounded by what is drawn):
  /// the other ink's canvas of a two-colour label, where a later element covers it.
  var erasing = false {
    didSet { cairo_set_operator(cr, erasing ? CAIRO_OPERATOR_CLEAR : CAIRO_OPERATOR_OVER) }
  }

  /// The ink as a 1-bit bitmap: a dot is black where the ink is at least half.
  func bitmap() -> Bitmap {
    cairo_surface_flush(surface)
    let stride = Int(cairo_image_surface_get_stride(surface))
    guard let data = cairo_image_surface_get_data(surface) else {
      return Bitmap(width: width, height: height)
    }
    let bytesPerRow = (width + 7) / 8
    var bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
    bytes.withUnsafeMutableBufferPointer { out in
      for y in 0..<height {
        let row = data + y * stride
        let base = y * bytesPerRow
        var x = 0
        while x < width {
          var byte: UInt8 = 0
          let n = min(8, width - x)
          for k in 0..<n where row[x + k] >= 128 { byte |= 0x80 >> UInt8(k) }
          out[base + (x >> 3)] = byte
          x += 8
        }
      }
    }
    return Bitmap(width: width, height: height, bytes: bytes)
  }
}
