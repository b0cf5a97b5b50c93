import LabelCore

/// What a TSPL page is printed on and how.
public struct TSPLOptions: Sendable, Equatable {
  public var dpi: Int
  /// Label width and length in mm; a length of 0 is continuous media (the page is as long
  /// as its image); a width of 0 is not known (the page is as wide as its image).
  public var widthMM: Double
  public var lengthMM: Double
  /// How labels are told apart; nil: not sent, the printer keeps its own setting.
  public var gap: TSPLGap?
  /// `DENSITY` 0–15; nil: the printer's own setting.
  public var density: Int?
  public var finish: Finishing?

  public init(
    dpi: Int, widthMM: Double, lengthMM: Double, density: Int? = nil, finish: Finishing? = nil
  ) {
    self.dpi = dpi
    self.widthMM = widthMM
    self.lengthMM = lengthMM
    self.density = density
    self.finish = finish
  }
}

/// How the printer finds the next label ("Setup and System Commands": `GAP m,n` with
/// `GAP 0,0` for continuous media, `BLINE m,n` for black marks).
public enum TSPLGap: Sendable, Equatable {
  case continuous
  /// Die-cut labels with a gap of this many mm between them (3 mm on common stock, what
  /// LPrint and the vendors' filters send).
  case gap(mm: Double)
  /// A black mark this many mm high on the back of the liner.
  case blackMark(mm: Double)
}

/// Pages as TSPL (TSC TSPL/TSPL2 Programming Manual): per page the media setup ("Setup and
/// System Commands": `SIZE`, `GAP`, `DIRECTION`, `REFERENCE`, `DENSITY`, `SET`), `CLS`, the
/// image as one `BITMAP` ("Label Formatting Commands") and `PRINT 1,1`. Command lines end in
/// CR LF ("Document Conventions").
///
/// `BITMAP x,y,width_bytes,height,mode,data`: rows top to bottom, the leftmost dot in a
/// byte's high bit, and a 0 bit prints black (the opposite of labeld's bitmaps, so every
/// byte is inverted and the pad bits past the right edge come out white). Mode 0 overwrites
/// the area: the result does not depend on the buffer `CLS` left.
public enum TSPLEncoder {
  public static let lineEnd: [UInt8] = [0x0D, 0x0A]

  public static func encode(_ pages: [Bitmap], options: TSPLOptions) -> [UInt8] {
    var out: [UInt8] = []
    for page in pages { out += encode(page, options: options) }
    return out
  }

  public static func encode(_ page: Bitmap, options o: TSPLOptions) -> [UInt8] {
    let dpi = max(o.dpi, 1)
    let width = o.widthMM > 0 ? o.widthMM : mm(dots: page.width, dpi: dpi)
    let length = o.lengthMM > 0 ? o.lengthMM : mm(dots: page.height, dpi: dpi)
    var out: [UInt8] = []
    func line(_ text: String) { out += Array(text.utf8) + lineEnd }
    line("SIZE \(number(width)) mm,\(number(length)) mm")
    switch o.gap {
    case .continuous?: line("GAP 0,0")
    case .gap(let mm)?: line("GAP \(number(mm)) mm,0 mm")
    case .blackMark(let mm)?: line("BLINE \(number(mm)) mm,0 mm")
    case nil: break
    }
    line("DIRECTION 0,0")
    line("REFERENCE 0,0")
    if let density = o.density { line("DENSITY \(min(max(density, 0), 15))") }
    switch o.finish {
    case .tear?: line("SET CUTTER OFF"); line("SET PEEL OFF"); line("SET TEAR ON")
    case .cut?: line("SET TEAR OFF"); line("SET PEEL OFF"); line("SET CUTTER ON")
    case .peel?: line("SET CUTTER OFF"); line("SET TEAR OFF"); line("SET PEEL ON")
    case nil: break
    }
    line("CLS")
    out += Array("BITMAP 0,0,\(page.bytesPerRow),\(page.height),0,".utf8)
    out.reserveCapacity(out.count + page.bytes.count + 16)
    // Dots past the right edge in a row's last byte stay white, whatever the bitmap held.
    let pad: UInt8 = page.width % 8 == 0 ? 0 : 0xFF >> UInt8(page.width % 8)
    for (i, byte) in page.bytes.enumerated() {
      out.append(i % page.bytesPerRow == page.bytesPerRow - 1 ? ~byte | pad : ~byte)
    }
    out += lineEnd
    line("PRINT 1,1")
    return out
  }

  /// Dots as millimetres, to 0.01 mm: fine enough that the printer, taking `SIZE` back
  /// to dots, gets the image's own size (0.01 mm is 0.12 dots at 300 dpi).
  static func mm(dots: Int, dpi: Int) -> Double {
    (Double(dots) * 25.4 / Double(dpi) * 100).rounded() / 100
  }

  /// "101.6", "75.2", "29.15", "3": a number as TSPL takes it (no exponent, at most two
  /// decimals).
  static func number(_ value: Double) -> String {
    let hundredths = roundedClamped(value * 100, to: 0...10_000_000)
    let whole = hundredths / 100
    let fraction = hundredths % 100
    if fraction == 0 { return String(whole) }
    if fraction % 10 == 0 { return "\(whole).\(fraction / 10)" }
    return "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
  }
}
