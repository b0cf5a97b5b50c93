import CCairo
import LabelCore
import LabelLanguages
import Synchronization

/// Text layout with pango on fontconfig fonts. One pango font map serves every label; pango
/// objects are not safe to share between threads, so all text is laid out and drawn under
/// one lock (a label's text takes well under a millisecond).
final class TextPainter: Sendable {
  static let shared = TextPainter()
  static let defaultFamily = "DejaVu Sans"
  /// Shrinking stops here; text that still does not fit is clipped to its box.
  static let minimumPoints = 3.0

  /// `@unchecked Sendable`: pango's font map is not thread-safe; the pointer is only used
  /// under `fontMap`'s lock.
  private struct FontMap: @unchecked Sendable {
    let pointer: OpaquePointer
  }
  private let fontMap: Mutex<FontMap>

  private init() {
    fontMap = Mutex(FontMap(pointer: pango_cairo_font_map_new()))
  }

  /// What to draw and how; sizes in dots at the canvas's resolution.
  struct Request {
    var text: String
    var family: String
    var bold: Bool
    /// Points (1/72 in) at `dpi`; ignored when `pixelSize` is set.
    var points: Double
    var pixelSize: Double?
    var dpi: Int
    var box: (width: Int, height: Int)
    var align: TextAlign
    var overflow: TextOverflow
  }

  /// How wide `request`'s text is, in dots, set on one line per line of text at its size
  /// (made smaller only where it is taller than its box): what a growing tape label
  /// widens the text's box to. A dot each side to spare, as `draw` keeps.
  func naturalWidth(_ request: Request, on canvas: Canvas) -> Int {
    var tall = request
    tall.overflow = .clip
    return laidOut(tall, on: canvas) { layout, measure, setSize in
      var points = request.points
      var size = measure()
      var tries = 0
      while size.height > Double(request.box.height), points > Self.minimumPoints, tries < 12 {
        points = max(
          Self.minimumPoints,
          points * min(0.97, Double(request.box.height) / max(size.height, 1) * 0.995))
        setSize(points)
        size = measure()
        tries += 1
      }
      return roundedClamped(size.width.rounded(.up) + 2, to: 1...1_000_000)
    }
  }

  /// Draws `request` into `canvas` in the canvas's current transform, with the box's
  /// top-left at the origin; returns the size in points it was drawn at.
  @discardableResult
  func draw(_ request: Request, on canvas: Canvas) -> Double {
    laidOut(request, on: canvas) { layout, measure, setSize in
      draw(request, layout: layout, measure: measure, setSize: setSize, on: canvas)
    }
  }

  /// `body` with a pango layout of `request`'s text in its font at its size, under the
  /// font map's lock: the layout, its measure (width and height in dots) and a size setter.
  private func laidOut<T: Sendable>(
    _ request: Request, on canvas: Canvas,
    _ body: (OpaquePointer, () -> (width: Double, height: Double), (Double) -> Void) -> T
  ) -> T {
    fontMap.withLock { map in
      let context = pango_font_map_create_context(map.pointer)!
      defer { g_object_unref(UnsafeMutableRawPointer(context)) }
      pango_cairo_context_set_resolution(context, Double(request.dpi))
      let options = cairo_font_options_create()
      cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
      cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
      cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
      pango_cairo_context_set_font_options(context, options)
      cairo_font_options_destroy(options)
      pango_cairo_update_context(canvas.cr, context)

      let layout = pango_layout_new(context)!
      defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
      request.text.withCString { pango_layout_set_text(layout, $0, -1) }
      let description = pango_font_description_new()!
      defer { pango_font_description_free(description) }
      request.family.withCString { pango_font_description_set_family(description, $0) }
      pango_font_description_set_weight(
        description, request.bold ? CCAIRO_PANGO_WEIGHT_BOLD : CCAIRO_PANGO_WEIGHT_NORMAL)

      let scale = Double(CCAIRO_PANGO_SCALE)
      func setSize(_ pt: Double) {
        if let px = request.pixelSize {
          pango_font_description_set_absolute_size(description, px * pt / request.points * scale)
        } else {
          pango_font_description_set_size(
            description, Int32(roundedClamped(pt * scale, to: 1...Int(Int32.max))))
        }
        pango_layout_set_font_description(layout, description)
      }
      func measure() -> (width: Double, height: Double) {
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        return (Double(logical.width) / scale, Double(logical.height) / scale)
      }

      setSize(request.points)
      return body(layout, measure, setSize)
    }
  }

  private func draw(
    _ request: Request, layout: OpaquePointer, measure: () -> (width: Double, height: Double),
    setSize: (Double) -> Void, on canvas: Canvas
  ) -> Double {
    let scale = Double(CCAIRO_PANGO_SCALE)
    let boxW = Double(request.box.width)
    let boxH = Double(request.box.height)
    var points = request.points
    switch request.overflow {
    case .shrink:
      // One line per line of text, made smaller until the block fits the box with a dot
      // to spare each side (glyph ink may reach a little past the logical extent).
      let fitW = max(1, boxW - 2)
      var size = measure()
      var tries = 0
      while size.width > fitW || size.height > boxH, points > Self.minimumPoints, tries < 12 {
        let factor = min(fitW / max(size.width, 1), boxH / max(size.height, 1))
        points = max(Self.minimumPoints, points * min(0.97, factor * 0.995))
        setSize(points)
        size = measure()
        tries += 1
      }
    case .wrap:
      // Lines broken at the box width, made smaller until they fit its height.
      pango_layout_set_width(layout, Int32(roundedClamped(boxW * scale, to: 1...Int(Int32.max))))
      pango_layout_set_wrap(layout, CCAIRO_PANGO_WRAP_WORD_CHAR)
      var size = measure()
      var tries = 0
      while size.height > boxH, points > Self.minimumPoints, tries < 16 {
        points = max(Self.minimumPoints, points * min(0.95, (boxH / size.height).squareRoot()))
        setSize(points)
        size = measure()
        tries += 1
      }
    case .clip:
      break
    }
    switch request.align {
    case .left: pango_layout_set_alignment(layout, CCAIRO_PANGO_ALIGN_LEFT)
    case .center: pango_layout_set_alignment(layout, CCAIRO_PANGO_ALIGN_CENTER)
    case .right: pango_layout_set_alignment(layout, CCAIRO_PANGO_ALIGN_RIGHT)
    }
    // Unwrapped lines align among themselves; the block aligns in the box.
    var offset = 0.0
    if request.overflow != .wrap {
      let width = measure().width
      switch request.align {
      case .left: offset = 0
      case .center: offset = (boxW - width) / 2
      case .right: offset = boxW - width
      }
    }

    let cr = canvas.cr
    cairo_save(cr)
    cairo_rectangle(cr, 0, 0, boxW, boxH)
    cairo_clip(cr)
    cairo_move_to(cr, offset, 0)
    pango_cairo_update_layout(cr, layout)
    pango_cairo_show_layout(cr, layout)
    cairo_restore(cr)
    return points
  }
}
