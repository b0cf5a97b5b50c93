import Foundation
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
      // The printer computes the check digit from the first 12.
      zpl = "^FO\(x),\(y)^BY\(module)^BE\(o),\(height),\(readable),N^FD\(data.prefix(12))^FS"
    case .upca:
      zpl = "^FO\(x),\(y)^BY\(module)^BU\(o),\(height),\(readable),N,Y^FD\(data.prefix(11))^FS"
    case .code128:
      // In ^BC data '>' starts an invocation code; "><" is a literal '>'.
      let body = ZPLEncoder.escape(data.replacingOccurrences(of: ">", with: "><"))
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
    replacingOccurrences(of: "\r\n", with: "\n").split(
      separator: "\n", omittingEmptySubsequences: false
    )
    .map { ZPLEncoder.escape(String($0)) }.joined(separator: "\\&")
  }
}
