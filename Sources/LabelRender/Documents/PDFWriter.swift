import CCairo
import LabelLanguages

/// PDFs through cairo's PDF surface: each page a label's dots as an image at their own size
/// (`dpi` dots an inch). For the tests and the benchmark, which make the documents an IPP
/// client sends; no sample documents ship with Debian.
public enum PDFWriter {
  public static func document(pages: [Bitmap], dpi: Int) throws(ImageError) -> [UInt8] {
    try DrawingLibraries.requireDrawing()
    guard let first = pages.first, dpi > 0 else { throw ImageError("a PDF needs a page") }
    let sink = Sink()
    let points = { (dots: Int) in Double(dots) * 72 / Double(dpi) }
    guard
      let surface = cairo_pdf_surface_create_for_stream(
        write, Unmanaged.passUnretained(sink).toOpaque(), points(first.width),
        points(first.height))
    else { throw ImageError("cannot make a PDF surface") }
    defer { cairo_surface_destroy(surface) }
    guard let cr = cairo_create(surface) else { throw ImageError("cannot draw a PDF") }
    defer { cairo_destroy(cr) }
    for page in pages {
      cairo_pdf_surface_set_size(surface, points(page.width), points(page.height))
      let dots = try Canvas(width: page.width, height: page.height)
      cairo_surface_flush(dots.surface)
      let stride = Int(cairo_image_surface_get_stride(dots.surface))
      if let data = cairo_image_surface_get_data(dots.surface) {
        for y in 0..<page.height {
          for x in 0..<page.width where page[x, y] { data[y * stride + x] = 255 }
        }
      }
      cairo_surface_mark_dirty(dots.surface)
      cairo_save(cr)
      cairo_scale(cr, 72 / Double(dpi), 72 / Double(dpi))
      cairo_set_source_rgba(cr, 0, 0, 0, 1)
      cairo_mask_surface(cr, dots.surface, 0, 0)
      cairo_restore(cr)
      cairo_show_page(cr)
    }
    cairo_surface_finish(surface)
    withExtendedLifetime(sink) {}
    return sink.bytes
  }

  private final class Sink {
    var bytes: [UInt8] = []
  }

  private static let write: cairo_write_func_t = { closure, data, length in
    guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
    let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return CAIRO_STATUS_SUCCESS
  }
}
