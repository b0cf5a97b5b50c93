import CCairo
import FoundationEssentials
import LabelCore
import LabelLanguages

/// Templates to 1-bit device bitmaps: the label a raster printer prints and a preview
/// shows. Text is laid out by pango with real font metrics and thresholded at one half;
/// barcodes come from libzint as modules and are drawn as whole-dot rectangles (a module
/// is `moduleWidth` rounded to whole dots, never less than one), so bars never blur.
public struct LabelRasteriser: Sendable {
  public init() {}

  /// The pixel budget: the most dots one label (or all of a ZPL label's images together)
  /// may have. 2^25 = 33,554,432 dots is a 4 x 6 in label at 600 dpi almost four times
  /// over, or 300 mm x 1.4 m at 300 dpi; a canvas is one byte a dot, so a render never
  /// allocates more than about 40 MB whatever a template or a `dpi` asks.
  public static let maxPixels = 1 << 25

  /// The label `template` filled with `data`, `media × dpi` dots.
  public func render(_ template: Template, data: [String: String], dpi: Int) throws(DrawingError)
    -> Bitmap
  {
    let canvas: Canvas
    do {
      canvas = try Canvas(
        width: max(1, dots(template.media.widthMM, dpi)),
        height: max(1, dots(template.media.lengthMM, dpi)))
    } catch {
      throw DrawingError(field: "media", reason: error.message)
    }
    for (index, element) in template.elements.enumerated() {
      try draw(element, data: data, dpi: dpi, on: canvas, path: "elements[\(index)]")
      canvas.resetTransform()
    }
    return canvas.bitmap()
  }

  /// The label in two inks for a red/black roll: black and red planes of `media × dpi`
  /// dots each, never both at one dot. Elements are drawn in order, each in its colour on
  /// its plane and erasing the other, so a later element covers an earlier one as on
  /// paper. Two canvases: up to twice the one-colour budget while drawing.
  public func renderPlanes(_ template: Template, data: [String: String], dpi: Int)
    throws(DrawingError) -> (black: Bitmap, red: Bitmap)
  {
    let black: Canvas
    let red: Canvas
    do {
      let size = (
        max(1, dots(template.media.widthMM, dpi)), max(1, dots(template.media.lengthMM, dpi))
      )
      black = try Canvas(width: size.0, height: size.1)
      red = try Canvas(width: size.0, height: size.1)
    } catch {
      throw DrawingError(field: "media", reason: error.message)
    }
    for (index, element) in template.elements.enumerated() {
      let (ink, other) = element.color == .red ? (red, black) : (black, red)
      let path = "elements[\(index)]"
      try draw(element, data: data, dpi: dpi, on: ink, path: path)
      ink.resetTransform()
      other.erasing = true
      try draw(element, data: data, dpi: dpi, on: other, path: path)
      other.resetTransform()
      other.erasing = false
    }
    let redPlane = red.bitmap()
    return (black.bitmap().subtracting(redPlane), redPlane)
  }

  /// An image element on its own, the size of its footprint (ZPL sends it as `^GFA`).
  public func render(_ image: ImageElement, dpi: Int, path: String) throws(DrawingError) -> Bitmap {
    let local = (max(1, dots(image.width, dpi)), max(1, dots(image.height, dpi)))
    let quarter = (image.rotation ?? 0) % 180 != 0
    let canvas: Canvas
    do {
      canvas = try Canvas(width: quarter ? local.1 : local.0, height: quarter ? local.0 : local.1)
    } catch {
      throw DrawingError(field: "\(path).width", reason: error.message)
    }
    var placed = image
    placed.x = 0
    placed.y = 0
    try draw(.image(placed), data: [:], dpi: dpi, on: canvas, path: path)
    return canvas.bitmap()
  }

  /// How text element `t` is laid out, its `text` filled in, in a `box` of dots.
  static func request(_ t: TextElement, text: String, dpi: Int, box: (width: Int, height: Int))
    -> TextPainter.Request
  {
    TextPainter.Request(
      text: text, family: t.font ?? TextPainter.defaultFamily, bold: t.weight == .bold,
      points: t.size ?? 10, pixelSize: nil, dpi: dpi, box: box, align: t.align ?? .left,
      overflow: t.overflow ?? .shrink)
  }

  private func draw(
    _ element: Element, data: [String: String], dpi: Int, on canvas: Canvas, path: String
  ) throws(DrawingError) {
    switch element {
    case .text(let t):
      let text = try t.filledText(data)
      let box = (width: max(1, dots(t.width, dpi)), height: max(1, dots(t.height, dpi)))
      canvas.place(x: dots(t.x, dpi), y: dots(t.y, dpi), local: box, rotation: t.rotation ?? 0)
      TextPainter.shared.draw(Self.request(t, text: text, dpi: dpi, box: box), on: canvas)
    case .barcode(let b):
      let value = try b.filledData(data, path: path)
      let symbol: BarcodeSymbol
      do {
        symbol = try BarcodeSymbol(b.symbology, data: value)
      } catch {
        throw DrawingError(field: "\(path).data", reason: error.reason)
      }
      try BarcodeDrawing(element: b, symbol: symbol, dpi: dpi, path: path).draw(on: canvas)
    case .box(let b):
      let x = dots(b.x, dpi)
      let y = dots(b.y, dpi)
      let w = max(1, dots(b.width, dpi))
      let h = max(1, dots(b.height, dpi))
      let t = (b.fill ?? false) ? max(w, h) : min(max(1, dots(b.thickness ?? 0.3, dpi)), w, h)
      // The border lies inside the box, as ZPL's ^GB draws it.
      canvas.fillDots(x: x, y: y, width: w, height: min(t, h))
      canvas.fillDots(x: x, y: y + h - min(t, h), width: w, height: min(t, h))
      canvas.fillDots(x: x, y: y, width: min(t, w), height: h)
      canvas.fillDots(x: x + w - min(t, w), y: y, width: min(t, w), height: h)
    case .line(let l):
      let t = max(1, dots(l.thickness ?? 0.3, dpi))
      let (x1, y1, x2, y2) = (dots(l.x1, dpi), dots(l.y1, dpi), dots(l.x2, dpi), dots(l.y2, dpi))
      if x1 == x2 || y1 == y2 {
        canvas.fillDots(
          x: min(x1, x2), y: min(y1, y2), width: max(abs(x2 - x1), t), height: max(abs(y2 - y1), t))
      } else {
        cairo_set_line_width(canvas.cr, Double(t))
        cairo_set_line_cap(canvas.cr, CAIRO_LINE_CAP_SQUARE)
        cairo_move_to(canvas.cr, Double(x1) + 0.5, Double(y1) + 0.5)
        cairo_line_to(canvas.cr, Double(x2) + 0.5, Double(y2) + 0.5)
        cairo_stroke(canvas.cr)
      }
    case .image(let m):
      guard let png = Data(base64Encoded: m.png) else {
        throw DrawingError(field: "\(path).png", reason: "is not valid base64")
      }
      let image: InkImage
      do {
        image = try PNGCodec.decodeInk([UInt8](png))
      } catch {
        throw DrawingError(field: "\(path).png", reason: error.message)
      }
      let box = (width: max(1, dots(m.width, dpi)), height: max(1, dots(m.height, dpi)))
      canvas.place(x: dots(m.x, dpi), y: dots(m.y, dpi), local: box, rotation: m.rotation ?? 0)
      try ImageDrawing(image).draw(into: box, on: canvas, path: path)
    }
  }
}
