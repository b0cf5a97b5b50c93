import CCairo
import LabelCore
import LabelLanguages

/// A barcode element laid out in device dots: a module is a whole number of dots, bars are
/// whole-dot rectangles, the human-readable line sits under the bars (EAN/UPC digits in
/// their groups with the guard bars drawn down between them, as GS1 shows them; Code 128
/// text centred). `x`/`y` is the top-left of the bars; EAN-13's and UPC-A's outer digits
/// sit in the quiet zones beside them.
struct BarcodeDrawing {
  let element: BarcodeElement
  let symbol: BarcodeSymbol
  let dpi: Int
  let path: String
  /// Dots per module.
  let module: Int
  /// Bar height in dots (linear codes).
  let barHeight: Int
  let readable: Bool

  init(element: BarcodeElement, symbol: BarcodeSymbol, dpi: Int, path: String) {
    self.element = element
    self.symbol = symbol
    self.dpi = dpi
    self.path = path
    let height = max(1, dots(element.height, dpi))
    if element.symbology == .qr {
      // moduleWidth when given, else the largest whole-dot module that fits `height`.
      module =
        element.moduleWidth.map { max(1, dots($0, dpi)) }
        ?? max(1, height / max(1, symbol.columns))
    } else {
      module = max(1, min(10, dots(element.moduleWidth ?? 0.33, dpi)))
    }
    barHeight = height
    readable = element.symbology != .qr && (element.humanReadable ?? true)
  }

  /// The height of the human-readable band under the bars.
  var textBand: Int { readable ? 9 * module : 0 }

  /// The symbol's footprint before rotation: bars (or QR matrix) and text band.
  var local: (width: Int, height: Int) {
    element.symbology == .qr
      ? (symbol.columns * module, symbol.rows * module)
      : (symbol.columns * module, barHeight + textBand)
  }

  func draw(on canvas: Canvas) throws(DrawingError) {
    let x = dots(element.x, dpi)
    let y = dots(element.y, dpi)
    let rotation = element.rotation ?? 0
    let quarter = rotation % 180 != 0
    // The bars (QR: the matrix) must lie on the label: a cut-off symbol does not scan.
    let across = quarter ? (element.symbology == .qr ? local.height : barHeight) : local.width
    let down = quarter ? local.width : (element.symbology == .qr ? local.height : barHeight)
    if x + across > canvas.width {
      throw DrawingError(
        field: "\(path).x",
        reason:
          "the \(element.symbology.rawValue) symbol is \(across) dots across at \(dpi) dpi and "
          + "runs past the label's right edge (\(canvas.width) dots); move it left or use a "
          + "smaller moduleWidth")
    }
    if y + down > canvas.height {
      throw DrawingError(
        field: "\(path).y",
        reason:
          "the \(element.symbology.rawValue) symbol is \(down) dots tall at \(dpi) dpi and "
          + "runs past the label's bottom edge (\(canvas.height) dots)")
    }
    // Rotation turns the element about the footprint of what must fit (bars, or matrix).
    let turned = (width: local.width, height: element.symbology == .qr ? local.height : barHeight)
    canvas.place(x: x, y: y, local: turned, rotation: rotation)
    if element.symbology == .qr {
      for r in 0..<symbol.rows {
        for c in 0..<symbol.columns where symbol[r, c] {
          canvas.fillDots(x: c * module, y: r * module, width: module, height: module)
        }
      }
      return
    }
    let guards = guardModules
    for c in 0..<symbol.columns where symbol[0, c] {
      let long = readable && guards.contains(c)
      canvas.fillDots(
        x: c * module, y: 0, width: module, height: barHeight + (long ? 5 * module : 0))
    }
    if readable { drawText(on: canvas) }
  }

  /// Modules of the guard patterns drawn long under EAN-13 and UPC-A (GS1 5.2.3: UPC-A's
  /// first and last digits' bars are long as well).
  private var guardModules: Set<Int> {
    switch element.symbology {
    case .ean13: return Set(Array(0...2) + Array(45...49) + Array(92...94))
    case .upca: return Set(Array(0...9) + Array(45...49) + Array(85...94))
    case .code128, .qr: return []
    }
  }

  private func drawText(on canvas: Canvas) {
    let digits = Array(symbol.text)
    let m = module
    func cell(_ text: ArraySlice<Character>, at u: Int, width: Int, small: Bool = false) {
      let cr = canvas.cr
      cairo_save(cr)
      cairo_translate(cr, Double(u), Double(barHeight) - Double(m) * 0.5)
      TextPainter.shared.draw(
        TextPainter.Request(
          text: String(text), family: TextPainter.defaultFamily, bold: false, points: 1,
          pixelSize: Double(small ? 7 * m : 9 * m), dpi: dpi, box: (width, textBand + m),
          align: .center, overflow: .clip),
        on: canvas)
      cairo_restore(cr)
    }
    switch element.symbology {
    case .ean13 where digits.count == 13:
      cell(digits[0...0], at: -8 * m, width: 7 * m)
      cell(digits[1...6], at: 3 * m, width: 42 * m)
      cell(digits[7...12], at: 50 * m, width: 42 * m)
    case .upca where digits.count == 12:
      cell(digits[0...0], at: -8 * m, width: 7 * m, small: true)
      cell(digits[1...5], at: 10 * m, width: 35 * m)
      cell(digits[6...10], at: 50 * m, width: 35 * m)
      cell(digits[11...11], at: 96 * m, width: 7 * m, small: true)
    default:
      cell(ArraySlice(Array(symbol.text)), at: 0, width: symbol.columns * m)
    }
  }
}
