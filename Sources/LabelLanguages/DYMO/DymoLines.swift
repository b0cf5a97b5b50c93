/// The lines of one page as DYMO's LabelWriter and LabelManager languages send them, both
/// the same way (`ESC B n` dot tab in bytes, then `SYN` + the line's bytes, 1 = black,
/// the high bit the lower-numbered dot): kept as sent and drawn when the page ends. What
/// the two decoders share; each keeps its own limits.
struct DymoLines {
  /// Each line's dot tab and bytes (nothing is kept when not drawing).
  private(set) var lines: [(tab: Int, data: [UInt8])] = []
  private(set) var count = 0
  let drawing: Bool

  init(drawing: Bool) { self.drawing = drawing }

  /// The widest line's reach, in bytes.
  var widthBytes: Int { lines.reduce(0) { max($0, $1.tab + $1.data.count) } }

  mutating func append(tab: Int, _ data: [UInt8]) {
    count += 1
    if drawing { lines.append((tab, data)) }
  }

  /// The lines as a bitmap `width` dots wide (at least as wide as the widest line).
  func draw(width: Int) -> Bitmap {
    var bitmap = Bitmap(width: max(width, widthBytes * 8), height: count)
    var y = 0
    for line in lines {
      for (k, byte) in line.data.enumerated() where byte != 0 {
        for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
          bitmap[(line.tab + k) * 8 + bit, y] = true
        }
      }
      y += 1
    }
    return bitmap
  }

  mutating func removeAll() {
    lines.removeAll()
    count = 0
  }
}
