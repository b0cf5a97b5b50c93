import LabelCore
import LabelLanguages
import LabelRender

/// printer-icons (PWG 5100.13 §6.6.10): a 128 x 128 picture of a label on its roll, drawn
/// once.
enum IPPIcon {
  static let png: [UInt8] = {
    var b = Bitmap(width: 128, height: 128)
    func box(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, fill: Bool = false) {
      for y in y0...y1 {
        for x in x0...x1 where fill || x == x0 || x == x1 || y == y0 || y == y1 { b[x, y] = true }
      }
    }
    box(16, 20, 111, 107)  // the label
    box(17, 21, 110, 22, fill: true)
    box(28, 36, 99, 44, fill: true)  // a line of text
    for x in stride(from: 28, through: 98, by: 3) where x % 7 != 0 {  // a barcode
      box(x, 56, x + (x % 2), 92, fill: true)
    }
    return (try? PNGCodec.encode(b)) ?? []
  }()
}

/// The little page a printer's more-info points at when the web endpoint's status page is
/// off: each printer's state and faults, from what labeld knows now.
enum IPPStatusPage {
  static func html(_ printers: [Printer]) -> String {
    var rows = ""
    for p in printers {
      let faults = p.reasons.map(\.phrase).joined(separator: "; ")
      rows +=
        "<tr><td>\(escape(p.id))</td><td>\(escape(p.model))</td><td>\(p.state.rawValue)</td>"
        + "<td>\(escape(faults.isEmpty ? "-" : faults))</td>"
        + "<td>\(p.labelsRemaining.map(String.init) ?? "")</td></tr>\n"
    }
    return """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><title>labeld printers</title>
      <meta name="viewport" content="width=device-width"></head>
      <body><h1>labeld printers</h1>
      <table><tr><th>Printer</th><th>Model</th><th>State</th><th>Faults</th><th>Labels left</th></tr>
      \(rows)</table>
      <p>Print to <code>ipp://HOST:PORT/ipp/print/PRINTER</code> from any IPP client.</p>
      </body></html>

      """
  }

  static func escape(_ text: String) -> String {
    var out = ""
    for c in text {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }
}
