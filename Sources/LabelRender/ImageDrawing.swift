import CCairo
import LabelCore
import LabelLanguages

/// A decoded image drawn into a box: scaled to fit, aspect kept, centred.
struct ImageDrawing {
  let image: InkImage
  init(_ image: InkImage) { self.image = image }

  func draw(into box: (width: Int, height: Int), on canvas: Canvas, path: String)
    throws(DrawingError)
  {
    let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_A8, Int32(image.width)))
    let surface = cairo_image_surface_create(
      CAIRO_FORMAT_A8, Int32(image.width), Int32(image.height))
    defer { cairo_surface_destroy(surface) }
    guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS,
      let data = cairo_image_surface_get_data(surface)
    else {
      throw DrawingError(field: "\(path).png", reason: "cannot allocate the decoded image")
    }
    cairo_surface_flush(surface)
    image.ink.withUnsafeBufferPointer { ink in
      for y in 0..<image.height {
        (data + y * stride).update(from: ink.baseAddress! + y * image.width, count: image.width)
      }
    }
    cairo_surface_mark_dirty(surface)
    let scale = min(
      Double(box.width) / Double(image.width), Double(box.height) / Double(image.height))
    let cr = canvas.cr
    cairo_save(cr)
    cairo_rectangle(cr, 0, 0, Double(box.width), Double(box.height))
    cairo_clip(cr)
    cairo_translate(
      cr, (Double(box.width) - Double(image.width) * scale) / 2,
      (Double(box.height) - Double(image.height) * scale) / 2)
    cairo_scale(cr, scale, scale)
    cairo_mask_surface(cr, surface, 0, 0)
    cairo_restore(cr)
  }
}
