import FoundationEssentials
import LabelCore

/// A text element as a ZPL field: `^A0` scalable font in a `^FB` field block for width,
/// alignment and line wrapping.
struct TextField {
  let zpl: String

  /// Font 0's average character width is about 0.55 of its height: the estimate behind
  /// shrink-to-fit (the printer has no "fit" command; rendering with real metrics comes
  /// with the rasteriser).
  static let averageWidthRatio = 0.55

  init(_ t: TextElement, text: String, dpi: Int) {
    let x = dots(t.x, dpi)
    let y = dots(t.y, dpi)
    let boxW = max(1, dots(t.width, dpi))
    let boxH = max(1, dots(t.height, dpi))
    // Points to dots: 1 pt = 1/72 in.
    var height = max(10, roundedClamped(Double(t.size ?? 10) * Double(dpi) / 72))
    height = min(height, boxH)
    let overflow = t.overflow ?? .shrink
    var lines = 1
    switch overflow {
    case .shrink:
      let longest =
        text.split(separator: "\n", omittingEmptySubsequences: false)
        .map(\.count).max() ?? 0
      if longest > 0 {
        let fitting = roundedClamped(
          (Double(boxW) / (Double(longest) * Self.averageWidthRatio)).rounded(.down))
        height = max(10, min(height, fitting))
      }
      lines = max(1, text.split(separator: "\n").count)
    case .wrap:
      lines = max(1, boxH / height)
    case .clip:
      lines = 1
    }
    let justify: String
    switch t.align ?? .left {
    case .left: justify = "L"
    case .center: justify = "C"
    case .right: justify = "R"
    }
    // Inside ^FB, "\&" is a line break; a literal backslash is escaped by ^FH.
    let body = text.replacingNewlines()
    let o = ZPLEncoder.orientation(t.rotation)
    zpl =
      "^FO\(x),\(y)^A0\(o),\(height),\(height)^FB\(boxW),\(lines),0,\(justify),0^FH_^FD\(body)^FS"
  }
}

/// A barcode element drawn by the printer: module width from `^BY` in whole dots.
struct BarcodeField {
  let zpl: String
  /// The symbol's width in dots where it is fixed by the symbology: EAN-13 and UPC-A are
  /// 95 modules (3 + 42 + 5 + 42 + 3, GS1 General Specifications 5.2.3). Nil otherwise.
  let widthDots: Int?

  /// `data` is what the symbol encodes (`BarcodeElement.filledData`): for EAN-13 the
  /// GTIN's 13 digits, for UPC-A its 12, check digits verified.
  init(_ b: BarcodeElement, data: String, dpi: Int) {
    let x = dots(b.x, dpi)
    let y = dots(b.y, dpi)
    let module = max(1, min(10, dots(b.moduleWidth ?? 0.33, dpi)))
    let height = max(1, dots(b.height, dpi))
    let readable = (b.humanReadable ?? true) ? "Y" : "N"
    let o = ZPLEncoder.orientation(b.rotation)
    let horizontal = (b.rotation ?? 0) % 180 == 0
    switch b.symbology {
    case .ean13, .upca: widthDots = horizontal ? 95 * module : nil
    case .code128, .qr: widthDots = nil
    }
    switch b.symbology {
    case .ean13:
      // `data` is the 13 digits of the GTIN (`Symbology.symbolData`), check digit verified.
      // Zebra's ZPL II Programming Guide, ^BE: field data is exactly 12 characters, padded
      // or truncated on the left, and the printer appends the mod-10 check digit. So send
      // the first 12: the printer draws exactly the GTIN. Sending all 13 would not: the
      // guide's rule keeps the last 12 (another number), and printers that instead drop
      // the 13th digit never check it.
      zpl = "^FO\(x),\(y)^BY\(module)^BE\(o),\(height),\(readable),N^FD\(data.prefix(12))^FS"
    case .upca:
      // The 12 digits of the GTIN-12. ^BU: field data is exactly 11 characters and the
      // printer appends the check digit (printed with e = Y), as ^BE does.
      zpl = "^FO\(x),\(y)^BY\(module)^BU\(o),\(height),\(readable),N,Y^FD\(data.prefix(11))^FS"
    case .code128:
      // In ^BC data '>' starts an invocation code; "><" is a literal '>'.
      let body = ZPLEncoder.escape(data.replacing(">", with: "><"))
      zpl = "^FO\(x),\(y)^BY\(module)^BC\(o),\(height),\(readable),N,N^FH_^FD\(body)^FS"
    case .qr:
      // Model 2, magnification = module size in dots; "MA," = error correction M,
      // automatic data mode.
      zpl = "^FO\(x),\(y)^BQ\(o),2,\(module)^FH_^FDMA,\(ZPLEncoder.escape(data))^FS"
    }
  }
}

extension String {
  /// Newlines as the `^FB` line break `\&`.
  fileprivate func replacingNewlines() -> String {
    replacing("\r\n", with: "\n").split(
      separator: "\n", omittingEmptySubsequences: false
    )
    .map { ZPLEncoder.escape(String($0)) }.joined(separator: "\\&")
  }
}
