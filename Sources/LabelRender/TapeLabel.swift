import LabelCore
import LabelLanguages

/// Labels on tape (Brother P-touch, DYMO LabelManager): a label reads along the tape, so
/// the tape is its height and its length runs along the tape. The template is drawn
/// scaled to the tape's printable height (at the resolution that makes its `lengthMM`
/// that many dots: text, bars and boxes keep their proportions), and is `widthMM` long,
/// or, when it grows, as long as its content: each text on one line at its size (its box
/// widened to the text, what starts past the box's end pushed along by as much), the label
/// ending `marginMM` after its last dot and never shorter than `minWidthMM`.
extension LabelRasteriser {
  /// The label as it reads on tape whose printable height is `height` dots: `height`
  /// dots high (the drawing centred in it), at most `maxLength` dots long. The driver's page
  /// is this turned a quarter (`Bitmap.turnedCounterClockwise`).
  public func renderTape(
    _ template: Template, data: [String: String], height: Int, maxLength: Int
  ) throws(DrawingError) -> Bitmap {
    guard height > 0, maxLength > 0 else {
      throw DrawingError(field: "media", reason: "the tape's printable area is not known")
    }
    let dpi = Self.tapeDPI(template, height: height)
    let longest = max(1, min(maxLength, Self.maxPixels / height))
    var drawn = template
    var full: Bitmap
    if template.media.grows {
      drawn = try grown(template, data: data, dpi: dpi)
      // Drawn on a canvas as long as its elements reach, with room to spare, not the
      // longest label the tape takes: a label costs what it is long. Should ink reach the
      // canvas's end all the same, it is drawn again on the longest.
      let spare = dots(template.media.margin, dpi) + 64
      let reach = min(longest, try contentEnd(drawn, data: data, dpi: dpi) + spare)
      drawn.media.widthMM = Double(reach) * 25.4 / Double(dpi)
      full = try render(drawn, data: data, dpi: dpi)
      if full.width < longest && Self.lastInkedColumn(full) >= full.width - 1 {
        drawn.media.widthMM = Double(longest) * 25.4 / Double(dpi)
        full = try render(drawn, data: data, dpi: dpi)
      }
    } else {
      full = try render(drawn, data: data, dpi: dpi)
    }
    var length = full.width
    if template.media.grows {
      let last = Self.lastInkedColumn(full)
      guard last < longest - 1 else {
        throw DrawingError(
          field: "media",
          reason: "the label's content runs past the \(Self.mm(longest, dpi)) mm a label may be "
            + "on this tape")
      }
      length = max(
        last + 1 + dots(template.media.margin, dpi),
        dots(
          template.media.minimumWidth, dpi))
    }
    guard length <= maxLength else {
      throw DrawingError(
        field: "media.widthMM",
        reason: "the label is \(Self.mm(length, dpi)) mm long on this tape; it may be at most "
          + "\(Self.mm(maxLength, dpi)) mm")
    }
    var out = Bitmap(width: max(1, length), height: height)
    let y0 = (full.height - height) / 2
    for y in 0..<height {
      for x in 0..<min(length, full.width) where full[x, y0 + y] { out[x, y] = true }
    }
    return out
  }

  /// The resolution the template is drawn at so that its height is the tape's `height`
  /// dots (rounded down: never taller).
  static func tapeDPI(_ template: Template, height: Int) -> Int {
    let exact = Double(height) * 25.4 / max(template.media.lengthMM, 0.1)
    return roundedClamped(exact.rounded(.down), to: 1...9600)
  }

  /// `template` with each unrotated one-line text's box widened to its text at `dpi`, and
  /// every element that starts at or past a widened box's end moved along by as much.
  private func grown(_ template: Template, data: [String: String], dpi: Int)
    throws(DrawingError) -> Template
  {
    let scratch: Canvas
    do { scratch = try Canvas(width: 1, height: 1) } catch {
      throw DrawingError(field: "media", reason: error.message)
    }
    var out = template
    var growth: [(end: Double, by: Double)] = []
    for (index, element) in template.elements.enumerated() {
      guard case .text(var t) = element, (t.rotation ?? 0) % 180 == 0, t.overflow != .wrap
      else { continue }
      let box = (width: max(1, dots(t.width, dpi)), height: max(1, dots(t.height, dpi)))
      let text = try t.filledText(data)
      let natural = TextPainter.shared.naturalWidth(
        Self.request(t, text: text, dpi: dpi, box: box), on: scratch)
      guard natural > box.width else { continue }
      let by = Double(natural - box.width) * 25.4 / Double(dpi)
      growth.append((t.x + t.width, by))
      t.width += by
      out.elements[index] = .text(t)
    }
    guard !growth.isEmpty else { return out }
    for (index, element) in out.elements.enumerated() {
      let start = element.startMM
      let shift = growth.filter { $0.end <= start + 0.001 }.reduce(0) { $0 + $1.by }
      if shift > 0 { out.elements[index] = element.moved(by: shift) }
    }
    return out
  }

  /// How far along the label `template`'s elements reach at `dpi`, in dots: each one's
  /// footprint as it is drawn (a barcode's from its symbol).
  private func contentEnd(_ template: Template, data: [String: String], dpi: Int)
    throws(DrawingError) -> Int
  {
    var end = 0
    for (index, element) in template.elements.enumerated() {
      let reach: Int
      switch element {
      case .text(let t):
        reach = dots(t.x + ((t.rotation ?? 0) % 180 == 0 ? t.width : t.height), dpi)
      case .box(let b): reach = dots(b.x + b.width, dpi)
      case .line(let l): reach = dots(max(l.x1, l.x2) + (l.thickness ?? 0.3), dpi) + 1
      case .image(let m):
        reach = dots(m.x + ((m.rotation ?? 0) % 180 == 0 ? m.width : m.height), dpi)
      case .barcode(let b):
        let path = "elements[\(index)]"
        let value = try b.filledData(data, path: path)
        let symbol: BarcodeSymbol
        do {
          symbol = try BarcodeSymbol(b.symbology, data: value)
        } catch {
          throw DrawingError(field: "\(path).data", reason: error.reason)
        }
        let local = BarcodeDrawing(element: b, symbol: symbol, dpi: dpi, path: path).local
        reach = dots(b.x, dpi) + ((b.rotation ?? 0) % 180 == 0 ? local.width : local.height)
      }
      end = max(end, reach)
    }
    return end
  }

  /// The last column with a black dot; -1 when there is none.
  private static func lastInkedColumn(_ bitmap: Bitmap) -> Int {
    var last = -1
    for y in 0..<bitmap.height {
      let row = bitmap.row(y)
      guard let i = row.lastIndex(where: { $0 != 0 }) else { continue }
      let byte = row[i]
      let x = (i - row.startIndex) * 8 + 7 - byte.trailingZeroBitCount
      last = max(last, x)
    }
    return last
  }

  private static func mm(_ dots: Int, _ dpi: Int) -> String {
    let value = (Double(dots) * 25.4 / Double(dpi) * 10).rounded() / 10
    return value == value.rounded() ? String(Int(value)) : String(value)
  }
}

extension Element {
  /// Where the element starts along the label, in mm.
  fileprivate var startMM: Double {
    switch self {
    case .text(let t): t.x
    case .barcode(let b): b.x
    case .box(let b): b.x
    case .line(let l): min(l.x1, l.x2)
    case .image(let m): m.x
    }
  }

  /// The element moved `mm` along the label.
  fileprivate func moved(by mm: Double) -> Element {
    switch self {
    case .text(var t):
      t.x += mm
      return .text(t)
    case .barcode(var b):
      b.x += mm
      return .barcode(b)
    case .box(var b):
      b.x += mm
      return .box(b)
    case .line(var l):
      l.x1 += mm
      l.x2 += mm
      return .line(l)
    case .image(var m):
      m.x += mm
      return .image(m)
    }
  }
}
