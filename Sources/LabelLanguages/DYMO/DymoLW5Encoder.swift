import LabelCore

/// What a LabelWriter 550 page is printed on and how.
public struct DymoLW5Options: Sendable, Equatable {
  /// Dots across the head: 672 (550, 550 Turbo), 1248 (5XL).
  public var headDots: Int
  /// Die-cut labels; false: continuous tape.
  public var dieCut: Bool
  /// Nil: the printer's own setting (100%).
  public var density: DymoLWDensity?

  public init(headDots: Int = 672, dieCut: Bool = true, density: DymoLWDensity? = nil) {
    self.headDots = headDots
    self.dieCut = dieCut
    self.density = density
  }
}

/// Pages as a DYMO LabelWriter 550, 550 Turbo or 5XL takes them (LabelWriter 550 Series
/// Printers Technical Reference Manual, "Print Job Commands", as DYMO's own Linux driver
/// for the series sends them):
///
/// - `ESC s` + a job id (4 bytes, least significant first): "Start of Print Job";
/// - the density when set (`ESC c`/`d`/`e`/`g`, as DYMO's driver sends it) and `ESC h`
///   ("Print Quality": text mode, 300 x 300 dpi);
/// - per label `ESC L 00 00` (die-cut: the roll's NFC tag gives the length) or `FF FF`
///   (continuous), `ESC n` + the label's index from 1 (2 bytes, least significant first),
///   `ESC D` ("Start of Label Print Data") with 1 bit per dot, alignment 2, the label's
///   lines and its dots per line (a multiple of 8), each a 4-byte number least significant
///   first — the manual calls the first "width": it runs along the feed — then every line
///   as its bytes, 1 = black, the first dot in the first byte's high bit; then `ESC G`
///   ("Short Form Feed", after every label, as DYMO's driver sends it);
/// - `ESC A 02` before every label but the first and `ESC A 00` after the last ("Get
///   Printer Status"): the printer takes no more data after a label until its status is
///   read, and these are the requests DYMO's driver makes there (its answers are read by
///   the transport: `DymoLW5Driver.statusRepliesCarried`);
/// - `ESC E` ("Form Feed", to the tear bar) and `ESC Q` ("End of Print Job": the printer
///   is free for other hosts again).
public enum DymoLW5Encoder {
  static let esc: UInt8 = 0x1B

  public static func encode(_ pages: [Bitmap], options o: DymoLW5Options) -> [UInt8] {
    let id = jobID(pages)
    var out: [UInt8] = [esc, 0x73] + le32(id)
    if let density = o.density { out += [esc, density.command] }
    out += [esc, 0x68]
    let headBytes = max(1, o.headDots / 8)
    for (index, page) in pages.enumerated() {
      if index > 0 { out += [esc, 0x41, 0x02] }
      let n = min(page.bytesPerRow, headBytes)
      out += [esc, 0x4C] + (o.dieCut ? [0x00, 0x00] : [0xFF, 0xFF])
      out += [esc, 0x6E] + le16(UInt16(truncatingIfNeeded: index + 1))
      out += [esc, 0x44, 0x01, 0x02] + le32(UInt32(page.height)) + le32(UInt32(n * 8))
      out.reserveCapacity(out.count + n * page.height + 16)
      // Dots past the right edge in a row's last byte stay white, whatever the bitmap held.
      let keep: UInt8 = page.width % 8 == 0 ? 0xFF : ~(0xFF >> UInt8(page.width % 8))
      for y in 0..<page.height {
        let row = page.row(y)
        for i in 0..<n {
          let byte = row[row.startIndex + i]
          out.append(i == page.bytesPerRow - 1 ? byte & keep : byte)
        }
      }
      out += [esc, 0x47]
    }
    out += [esc, 0x41, 0x00, esc, 0x45, esc, 0x51]
    return out
  }

  /// A job id from the pages (FNV-1a): the same label is the same job, so a native
  /// preview equals what the printer gets; never 0, which a printer reports when idle.
  static func jobID(_ pages: [Bitmap]) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for page in pages {
      for byte in le32(UInt32(truncatingIfNeeded: page.width)) + page.bytes {
        hash = (hash ^ UInt32(byte)) &* 16_777_619
      }
    }
    return hash == 0 ? 1 : hash
  }

  static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
  static func le32(_ v: UInt32) -> [UInt8] {
    [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
  }
}
