/// What a LabelManager job is printed on.
public struct DymoLMOptions: Sendable, Equatable {
  public var model: DymoLMModel
  public var tape: DymoLMTape
  /// `ESC C n`: the cassette's colours as DYMO numbers them (0 black on white, the
  /// default; `tape_color_t` in `LabelManagerDriver.h`).
  public var tapeColour: UInt8

  public init(model: DymoLMModel, tape: DymoLMTape, tapeColour: UInt8 = 0) {
    self.model = model
    self.tape = tape
    self.tapeColour = tapeColour
  }
}

/// Pages as a DYMO LabelManager takes them, byte for byte as DYMO's CUPS filter
/// `raster2dymolm` writes a label page size with its defaults (centred, cut, no chain
/// marks at the end; `CLabelManagerDriver` in `LabelManagerDriver.cpp`, dymo-cups-drivers
/// 1.4.0). Pages are in head orientation: a row is one line across the tape, column 0 the
/// first column of the CUPS raster page DYMO's PPD gives the tape, row 0 printed first.
///
/// - Once: as many NUL bytes as the head has bytes (DYMO's "clean": ends a half-sent
///   line), then `ESC C n`, the tape colour.
/// - Per page: white lines for the leader (`ESC D 0` then one `SYN` a line: a line of no
///   bytes); each row with ink as `SYN` + its bytes from the first inked byte to the last,
///   after `ESC B n` (dot tab: white bytes before it) and `ESC D n` (bytes per line) when
///   they change; white rows the same way as the leader; then the trailer, 75 lines, more
///   when the label is shorter than the model's least length. A 1 bit burns a dot; the
///   byte's high bit is the lower-numbered dot.
/// - Between pages: on a model with a cutter, the feed to the cutter and `ESC E` (cut);
///   on the others a chain mark (`ESC B 0`, `ESC D n`, `SYN` + n × 0x99: a dashed line to
///   cut at).
/// - At the end: the feed from the head to the cutter, and `ESC E` where there is a cutter.
///
/// The page sits on the head where DYMO's filter puts it (`DymoLMModel.placement`).
public enum DymoLMEncoder {
  static let esc: UInt8 = 0x1B
  static let syn: UInt8 = 0x16
  /// A chain mark's bytes.
  public static let chainMarkByte: UInt8 = 0x99

  public static func encode(_ pages: [Bitmap], options: DymoLMOptions) -> [UInt8] {
    var writer = Writer(options: options)
    writer.out += [UInt8](repeating: 0, count: writer.headBytes)
    writer.out += [esc, 0x43, options.tapeColour]
    for (i, page) in pages.enumerated() {
      writer.page(page, first: i == 0)
    }
    writer.skip(options.model.cutterLines)
    if options.model.autoCut { writer.out += [esc, 0x45] }
    return writer.out
  }

  /// The stream being written, and what the printer was last told.
  struct Writer {
    let model: DymoLMModel
    let headBytes: Int
    let shift: Int
    let columns: Int
    var out: [UInt8] = []
    var dotTab: Int?
    var bytesPerLine: Int?

    init(options: DymoLMOptions) {
      model = options.model
      headBytes = model.headBytes
      (shift, columns) = model.placement(for: options.tape)
    }

    mutating func page(_ page: Bitmap, first: Bool) {
      dotTab = nil
      bytesPerLine = nil
      var leader = model.normalLeader
      if first {
        leader -= model.cutterLines  // the last job left the tape at the cutter
      } else if model.autoCut {
        skip(model.cutterLines)
        leader -= model.cutterLines
        out += [esc, 0x45]
      } else {
        chainMark()
      }
      skip(leader)
      out.reserveCapacity(out.count + page.height * (headBytes + 4))
      let width = min(page.width, columns)
      let sourceBytes = min(page.bytesPerRow, (width + 7) / 8)
      // Dots past the page's printable columns in its last byte stay white.
      let keep: UInt8 = width % 8 == 0 ? 0xFF : ~(0xFF >> UInt8(width % 8))
      var line = [UInt8](repeating: 0, count: headBytes)
      var white = 0
      for y in 0..<page.height {
        for k in 0..<headBytes { line[k] = 0 }
        let row = page.row(y)
        for i in 0..<sourceBytes {
          var byte = row[row.startIndex + i]
          if i == sourceBytes - 1 { byte &= keep }
          guard byte != 0 else { continue }
          // The byte's first dot lands on head dot `base` (floor division: a negative
          // correction moves dots off the head's start).
          let base = i * 8 + shift
          let k = base >> 3
          let r = base & 7
          if k >= 0 && k < headBytes { line[k] |= byte >> UInt8(r) }
          if r != 0 && k + 1 >= 0 && k + 1 < headBytes { line[k + 1] |= byte << UInt8(8 - r) }
        }
        guard let first = line.firstIndex(where: { $0 != 0 }),
          let last = line.lastIndex(where: { $0 != 0 })
        else {
          white += 1
          continue
        }
        skip(white)
        white = 0
        if dotTab != first {
          out += [esc, 0x42, UInt8(first)]
          dotTab = first
        }
        let count = last - first + 1
        if bytesPerLine != count {
          out += [esc, 0x44, UInt8(count)]
          bytesPerLine = count
        }
        out.append(syn)
        out += line[first...last]
      }
      // The trailer, longer for a short label, and the white rows at the page's end.
      var trailer = model.normalLeader
      if page.height < model.minPageLines { trailer += model.minPageLines - page.height }
      skip(trailer + white)
    }

    /// `count` white lines: `ESC D 0`, then a `SYN` each.
    mutating func skip(_ count: Int) {
      guard count > 0 else { return }
      out += [esc, 0x44, 0]
      out += [UInt8](repeating: syn, count: count)
      bytesPerLine = nil
    }

    mutating func chainMark() {
      out += [esc, 0x42, 0, esc, 0x44, UInt8(headBytes), syn]
      out += [UInt8](repeating: chainMarkByte, count: headBytes)
      dotTab = nil
      bytesPerLine = nil
    }
  }
}
