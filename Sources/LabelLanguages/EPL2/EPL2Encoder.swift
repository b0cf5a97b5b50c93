import LabelCore

/// What an EPL2 page is printed on and how.
public struct EPL2Options: Sendable, Equatable {
  public var dpi: Int
  /// Label width and length in mm; a length of 0 is continuous media (the page is as long
  /// as its image); a width of 0 is not known (the page is as wide as its image).
  public var widthMM: Double
  public var lengthMM: Double
  /// The gap between die-cut labels in mm when the media's kind is known (3 mm on common
  /// stock), 0 for continuous; nil: the media's kind is not known and `Q` is not sent.
  public var gapMM: Double?
  /// `D` density 0–15; nil: the printer's own setting.
  public var density: Int?

  public init(dpi: Int, widthMM: Double, lengthMM: Double, gapMM: Double?, density: Int? = nil) {
    self.dpi = dpi
    self.widthMM = widthMM
    self.lengthMM = lengthMM
    self.gapMM = gapMM
    self.density = density
  }
}

/// Pages as EPL2 (Zebra EPL2 Programming Guide): a line feed first (it ends any command a
/// previous sender left half-written), `N` (clear the image buffer), `q` (label width in
/// dots), `Q` (label length and gap in dots; a gap of 0 is continuous media) when the
/// media's kind is known, `D` (density) when configured, the image as `GW` graphics and
/// `P1`. Commands end in LF.
///
/// `GWx,y,bytes,rows` is followed by `bytes x rows` raw bytes, the leftmost dot in a byte's
/// high bit, and a 0 bit prints black (as TSPL, the opposite of labeld's bitmaps). Runs of
/// white rows are not sent: the buffer `N` cleared is white (LPrint's driver skips them
/// the same way, one `GW` per row; labeld sends each run of inked rows as one `GW`).
public enum EPL2Encoder {
  public static func encode(_ pages: [Bitmap], options: EPL2Options) -> [UInt8] {
    var out: [UInt8] = []
    for page in pages { out += encode(page, options: options) }
    return out
  }

  public static func encode(_ page: Bitmap, options o: EPL2Options) -> [UInt8] {
    let dpi = max(o.dpi, 1)
    let dots = { (mm: Double) in roundedClamped(mm * Double(dpi) / 25.4, to: 0...100_000) }
    let width = o.widthMM > 0 ? dots(o.widthMM) : page.width
    var out: [UInt8] = [0x0A]
    func line(_ text: String) { out += Array(text.utf8) + [0x0A] }
    line("N")
    line("q\(width)")
    if let gap = o.gapMM {
      let length = o.lengthMM > 0 ? dots(o.lengthMM) : page.height
      line("Q\(length),\(gap > 0 ? dots(gap) : 0)")
    }
    if let density = o.density { line("D\(min(max(density, 0), 15))") }
    let pad: UInt8 = page.width % 8 == 0 ? 0 : 0xFF >> UInt8(page.width % 8)
    var y = 0
    while y < page.height {
      guard page.row(y).contains(where: { $0 != 0 }) else {
        y += 1
        continue
      }
      var end = y + 1
      while end < page.height && page.row(end).contains(where: { $0 != 0 }) { end += 1 }
      line("GW0,\(y),\(page.bytesPerRow),\(end - y)")
      for row in y..<end {
        let bytes = page.row(row)
        for (i, byte) in bytes.enumerated() {
          out.append(i == bytes.count - 1 ? ~byte | pad : ~byte)
        }
      }
      out.append(0x0A)
      y = end
    }
    line("P1")
    return out
  }
}
