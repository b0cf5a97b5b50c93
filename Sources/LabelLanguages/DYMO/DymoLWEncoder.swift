import LabelCore

/// How dark a LabelWriter prints (LW 450 Series Technical Reference, "Set Print Density":
/// the strobe time as a share of its standard duty cycle).
public enum DymoLWDensity: Int, Sendable, CaseIterable {
  /// `ESC c`, 75%.
  case light = 0
  /// `ESC d`, 87.5%.
  case medium = 1
  /// `ESC e`, 100%: the printer's default.
  case normal = 2
  /// `ESC g`, 112.5%.
  case dark = 3

  var command: UInt8 {
    switch self {
    case .light: 0x63
    case .medium: 0x64
    case .normal: 0x65
    case .dark: 0x67
    }
  }
}

/// What a LabelWriter page is printed on and how.
public struct DymoLWOptions: Sendable, Equatable {
  /// Dots across the print head: 672 (LW 300/400/450 series), 1248 (4XL).
  public var headDots: Int
  /// Die-cut labels (the printer finds each label's top by its sense hole); false:
  /// continuous tape.
  public var dieCut: Bool
  /// Die-cut labels' length in lines, where known: `ESC L` is the longer of it and the
  /// page's, so that an image shorter than its label still feeds to the next label's top.
  public var labelLines: Int?
  /// Nil: the printer's own setting.
  public var density: DymoLWDensity?

  public init(
    headDots: Int = 672, dieCut: Bool = true, labelLines: Int? = nil,
    density: DymoLWDensity? = nil
  ) {
    self.headDots = headDots
    self.dieCut = dieCut
    self.labelLines = labelLines
    self.density = density
  }
}

/// Pages as a DYMO LabelWriter 300/400/450/4XL takes them (LabelWriter 450 Series Printers
/// Technical Reference Manual, "Printer Commands"):
///
/// - once per job, 156 `ESC` bytes then `ESC @` ("Reset Printer"): the manual's way back to
///   command mode from a line left half sent (more `ESC`s than the longest line, 156 bytes
///   on the 4XL), then every setting to its default;
/// - per page `ESC D n` ("Set Bytes per Line"), `ESC B 0` ("Set Dot Tab": the image starts
///   at the head's first dot, the label's edge), `ESC L n1 n2` ("Set Label Length", high
///   byte first: on die-cut labels the page's lines, or the label's when longer, as it is
///   "the maximum distance the printer should travel while searching for the top-of-form
///   hole"; `FF FF`, negative, for continuous tape), `ESC h` ("Text Speed Mode": 300 x 300
///   dpi, one line per dot row) and the density when set;
/// - each row with ink as `SYN` + n bytes ("Transfer Print Data": 1 = black, the leftmost
///   dot in a byte's high bit) or, when shorter, `ETB` + runs ("Transfer Compressed Print
///   Data": one byte per run, bit 7 the colour, bits 0–6 its length less one, the runs
///   filling n bytes' dots); white rows as `ESC f 1 n` ("Skip Lines", at most 255 a time),
///   trailing ones too, so that a page on continuous tape is as long as its image;
/// - `ESC G` ("Short Form Feed") between pages and `ESC E` ("Form Feed", to the tear bar)
///   after the last, as DYMO's own CUPS driver does.
public enum DymoLWEncoder {
  static let esc: UInt8 = 0x1B
  static let syn: UInt8 = 0x16
  static let etb: UInt8 = 0x17
  /// The `ESC` run that ends any half-sent line (the 4XL's lines are 156 bytes).
  public static let resync = [UInt8](repeating: 0x1B, count: 156)

  public static func encode(_ pages: [Bitmap], options: DymoLWOptions) -> [UInt8] {
    var out = resync + [esc, 0x40]
    for (i, page) in pages.enumerated() {
      encode(page, options: options, into: &out)
      out += [esc, i == pages.count - 1 ? 0x45 : 0x47]
    }
    return out
  }

  static func encode(_ page: Bitmap, options o: DymoLWOptions, into out: inout [UInt8]) {
    let headBytes = max(1, min(o.headDots / 8, 255))
    let n = max(1, min(page.bytesPerRow, headBytes))
    // A die-cut label's length in lines, at most 0x7FFF (a larger value is negative:
    // continuous); continuous tape FF FF.
    let length = o.dieCut ? min(max(page.height, o.labelLines ?? 0, 1), 0x7FFF) : 0xFFFF
    out += [esc, 0x44, UInt8(n), esc, 0x42, 0, esc, 0x4C, UInt8(length >> 8), UInt8(length & 0xFF)]
    out += [esc, 0x68]
    if let density = o.density { out += [esc, density.command] }
    out.reserveCapacity(out.count + page.height * (n + 1))
    // Dots past the right edge in a row's last byte stay white, whatever the bitmap held.
    let keep: UInt8 = page.width % 8 == 0 ? 0xFF : ~(0xFF >> UInt8(page.width % 8))
    var line = [UInt8](repeating: 0, count: n)
    var runs: [UInt8] = []
    runs.reserveCapacity(n)
    var skipped = 0
    for y in 0..<page.height {
      let row = page.row(y)
      var inked = false
      for i in 0..<n {
        var byte = row[row.startIndex + i]
        if i == page.bytesPerRow - 1 { byte &= keep }
        line[i] = byte
        inked = inked || byte != 0
      }
      guard inked else {
        skipped += 1
        continue
      }
      skip(&skipped, into: &out)
      if compress(line, into: &runs) {
        out.append(etb)
        out += runs
      } else {
        out.append(syn)
        out += line
      }
    }
    skip(&skipped, into: &out)
  }

  /// `ESC f 1 n` for `count` white lines, 255 at a time.
  static func skip(_ count: inout Int, into out: inout [UInt8]) {
    while count > 0 {
      let n = min(count, 255)
      out += [esc, 0x66, 0x01, UInt8(n)]
      count -= n
    }
  }

  /// The line as `ETB` runs when they are fewer bytes than the line; false (and `runs`
  /// unspecified) when they are not.
  static func compress(_ line: [UInt8], into runs: inout [UInt8]) -> Bool {
    runs.removeAll(keepingCapacity: true)
    let dots = line.count * 8
    var x = 0
    while x < dots {
      let black = line[x >> 3] & (0x80 >> UInt8(x & 7)) != 0
      var length = 1
      let fill: UInt8 = black ? 0xFF : 0x00
      while length < 128 && x + length < dots {
        let next = x + length
        // Whole bytes of the run's colour at once.
        if next & 7 == 0 && length <= 120 && line[next >> 3] == fill {
          length += 8
          continue
        }
        let bit = line[next >> 3] & (0x80 >> UInt8(next & 7)) != 0
        if bit != black { break }
        length += 1
      }
      runs.append((black ? 0x80 : 0) | UInt8(length - 1))
      if runs.count >= line.count { return false }
      x += length
    }
    return true
  }
}
