/// How to print a Brother QL job.
public struct BrotherQLOptions: Sendable, Equatable {
  public var model: BrotherQLModel
  public var media: BrotherQLMedia
  /// Cut after labels (ignored on a model without a cutter: a preference, not geometry).
  public var cut: Bool
  /// Cut after every n labels (1...255), when cutting.
  public var cutEvery: Int
  /// 600 dpi along the feed: each page has twice the lines for the same length.
  public var highResolution: Bool
  /// PackBits lines (`M 02`), when the model takes them; raw lines otherwise.
  public var compression: Bool
  /// The print-information "quality priority" flag (slower, better) rather than speed.
  public var qualityPriority: Bool
  /// Two-colour mode (`ESC i K` bit 0, each line as a black and a red `w` line): set by
  /// a red/black roll, which needs it even for a label with no red.
  public var twoColour: Bool { media.redBlack }

  public init(
    model: BrotherQLModel, media: BrotherQLMedia, cut: Bool = true, cutEvery: Int = 1,
    highResolution: Bool = false, compression: Bool = true, qualityPriority: Bool = true
  ) {
    self.model = model
    self.media = media
    self.cut = cut
    self.cutEvery = cutEvery
    self.highResolution = highResolution
    self.compression = compression
    self.qualityPriority = qualityPriority
  }

  /// Compression as it will be sent: only on models that accept `M 02`.
  public var compresses: Bool { compression && model.hasCompression }
  /// Cutting as it will be sent: only on models with a cutter.
  public var cuts: Bool { cut && model.hasCutter }
}

/// Command bytes of the QL raster language (Brother's raster command references).
enum BrotherQLCommand {
  static let esc: UInt8 = 0x1B
  static let initialize: [UInt8] = [0x1B, 0x40]  // ESC @
  static let rasterMode: [UInt8] = [0x1B, 0x69, 0x61, 0x01]  // ESC i a 01
  static let printInformation: [UInt8] = [0x1B, 0x69, 0x7A]  // ESC i z + 10 bytes
  static let variousMode: [UInt8] = [0x1B, 0x69, 0x4D]  // ESC i M n
  static let cutEvery: [UInt8] = [0x1B, 0x69, 0x41]  // ESC i A n
  static let expandedMode: [UInt8] = [0x1B, 0x69, 0x4B]  // ESC i K n
  static let margins: [UInt8] = [0x1B, 0x69, 0x64]  // ESC i d n1 n2 (little-endian dots)
  static let compression: UInt8 = 0x4D  // M n: 02 PackBits, 00 raw
  static let rasterLine: UInt8 = 0x67  // g 00 n data
  static let twoColourLine: UInt8 = 0x77  // w 01|02 n data: black, then red
  static let blankLine: UInt8 = 0x5A  // Z
  static let formFeed: UInt8 = 0x0C  // end of a page, more follow
  static let endOfJob: UInt8 = 0x1A  // ^Z: end of the last page

  /// `ESC i z` valid flags: media type, width, length (0x02, 0x04, 0x08), quality
  /// priority 0x40; 0x80 ("printer recovery always on") is set as brother_ql and
  /// Brother's examples do.
  static let validKind: UInt8 = 0x02
  static let validWidth: UInt8 = 0x04
  static let validLength: UInt8 = 0x08
  static let validQuality: UInt8 = 0x40
  static let validRecover: UInt8 = 0x80
  /// `ESC i M` bit: auto cut.
  static let autoCut: UInt8 = 0x40
  /// `ESC i K` bits: two-colour, cut at end, 600 dpi.
  static let twoColour: UInt8 = 0x01
  static let cutAtEnd: UInt8 = 0x08
  static let highResolution: UInt8 = 0x40
}

/// Turns page bitmaps into a Brother QL raster job.
///
/// A page bitmap is at most the media's printable width, 300 dpi (600 dpi along the feed
/// with `highResolution`); x = 0 is the left edge of the printable area as the label
/// comes out of the printer, and narrower bitmaps are padded on the right. Each raster
/// line is sent mirrored, as brother_ql does (it flips the image left-right before packing):
/// bitmap dot x lands on head dot `margin + printableWidth - 1 - x`, counted from the most
/// significant bit of the line's first byte, where `margin` is the media's left margin
/// plus the model's extra offset. Checked against brother_ql-next 0.12: for the same image
/// its jobs decode to the same lines and page commands as ours (QL-720NW 62, QL-1060N 102,
/// QL-700 29 raw, QL-820NWB 62x29); ours leave out its per-page `ESC i S` status request.
public struct BrotherQLEncoder: Sendable {
  public let options: BrotherQLOptions

  /// Checks the options against each other; wide media on a standard head, cutting every
  /// 0 labels or 600 dpi on a model without expanded mode throw.
  public init(_ options: BrotherQLOptions) throws(BrotherQLError) {
    let model = options.model
    let media = options.media
    guard media.fits(model) else {
      throw BrotherQLError(
        .mediaMismatch,
        media.redBlack && !model.twoColor
          ? "\(model.name) cannot print \(media.id) (red/black) rolls"
          : "\(media.id) mm media does not fit the \(model.name) head")
    }
    guard (1...255).contains(options.cutEvery) else {
      throw BrotherQLError(.invalidOption, "cut every \(options.cutEvery): must be 1...255")
    }
    guard !options.highResolution || model.hasHighResolution else {
      throw BrotherQLError(.invalidOption, "\(model.name) has no 600-dpi mode")
    }
    self.options = options
  }

  /// The job for `pages`, one label (or continuous length) each; on a red/black roll
  /// `red` holds each page's red plane (none: black only), and is refused on any other.
  public func encode(_ pages: [Bitmap], red: [Bitmap] = []) throws(BrotherQLError) -> [UInt8] {
    guard !pages.isEmpty else { throw BrotherQLError(.invalidOption, "a job needs a page") }
    let o = options
    guard red.isEmpty || o.twoColour else {
      throw BrotherQLError(
        .invalidOption, "red needs a red/black roll (62red); \(o.media.id) prints black only")
    }
    guard red.isEmpty || red.count == pages.count else {
      throw BrotherQLError(.invalidOption, "\(red.count) red planes for \(pages.count) pages")
    }
    let lineScale = o.highResolution ? 2 : 1
    for (i, page) in pages.enumerated() {
      guard page.width <= o.media.printableWidth else {
        throw BrotherQLError(
          .tooWide,
          "page \(i + 1) is \(page.width) dots wide; \(o.media.id) prints"
            + " \(o.media.printableWidth)")
      }
      guard page.height > 0 else {
        throw BrotherQLError(.invalidOption, "page \(i + 1) has no lines")
      }
      let maxLines =
        o.media.kind == .dieCut
        ? o.media.printableLength * lineScale : o.model.lineRange.upperBound * lineScale
      guard page.height <= maxLines else {
        throw BrotherQLError(
          .tooLong, "page \(i + 1) has \(page.height) lines; at most \(maxLines) fit")
      }
    }
    var out: [UInt8] = []
    out.reserveCapacity(o.model.invalidateCount + pages.reduce(0) { $0 + $1.height * 8 })
    out += repeatElement(0, count: o.model.invalidateCount)
    out += BrotherQLCommand.initialize
    if o.model.hasModeSwitch { out += BrotherQLCommand.rasterMode }
    // Continuous pages shorter than the model's minimum are fed out with blank lines at
    // the end: the printer (and brother_ql) refuse shorter ones.
    let minLines = o.media.kind == .dieCut ? 1 : o.model.lineRange.lowerBound * lineScale
    let blank = [UInt8](repeating: 0, count: o.model.bytesPerLine)
    for (i, page) in pages.enumerated() {
      let lines = max(page.height, minLines)
      appendPageHeader(lines: lines, index: i, to: &out)
      if o.twoColour {
        let plane = red.isEmpty ? nil : red[i]
        for y in 0..<page.height {
          appendLine(headLine(page, row: y), plane: 0x01, to: &out)
          let redLine = plane.map { y < $0.height ? headLine($0, row: y) : blank } ?? blank
          appendLine(redLine, plane: 0x02, to: &out)
        }
        for _ in page.height..<lines {
          appendLine(blank, plane: 0x01, to: &out)
          appendLine(blank, plane: 0x02, to: &out)
        }
      } else {
        for y in 0..<page.height { appendLine(headLine(page, row: y), to: &out) }
        for _ in page.height..<lines { appendLine(blank, to: &out) }
      }
      out.append(i == pages.count - 1 ? BrotherQLCommand.endOfJob : BrotherQLCommand.formFeed)
    }
    return out
  }

  /// Commands before each page's lines, in brother_ql's order: print information, various
  /// mode and cut count (cutter models), expanded mode, margins, compression.
  func appendPageHeader(lines: Int, index: Int, to out: inout [UInt8]) {
    typealias C = BrotherQLCommand
    let o = options
    var valid = C.validRecover | C.validKind | C.validWidth | C.validLength
    if o.qualityPriority { valid |= C.validQuality }
    out += C.printInformation
    out += [valid, o.media.kind.rawValue, UInt8(o.media.widthMM), UInt8(o.media.lengthMM)]
    out += brotherLittleEndian(UInt32(lines))
    out += [index == 0 ? 0 : 1, 0]
    if o.model.hasCutter {
      // Sent even when not cutting, so a cutter left on by the printer's own setting
      // does not cut (brother_ql sends nothing then).
      out += C.variousMode + [o.cuts ? C.autoCut : 0]
      if o.cuts { out += C.cutEvery + [UInt8(o.cutEvery)] }
    }
    if o.model.hasExpandedMode {
      var flags: UInt8 = 0
      if o.twoColour { flags |= C.twoColour }
      if o.cuts { flags |= C.cutAtEnd }
      if o.highResolution { flags |= C.highResolution }
      out += C.expandedMode + [flags]
    }
    out += C.margins + brotherLittleEndian(UInt16(o.media.feedMargin))
    if o.compresses { out += [C.compression, 0x02] }
  }

  /// One raster line: `Z` for a blank line when compressing (raw mode has no `Z` in
  /// brother_ql's output, so it is kept to PackBits jobs), else `g 00 n data`.
  func appendLine(_ line: [UInt8], to out: inout [UInt8]) {
    typealias C = BrotherQLCommand
    if options.compresses {
      if line.allSatisfy({ $0 == 0 }) {
        out.append(C.blankLine)
        return
      }
      out.append(C.rasterLine)
      out.append(0x00)
      let countAt = out.count
      out.append(0)
      PackBits.encode(line, into: &out)
      out[countAt] = UInt8(out.count - countAt - 1)
    } else {
      out += [C.rasterLine, 0x00, UInt8(line.count)]
      out += line
    }
  }

  /// One line of a two-colour page: `w`, the plane (01 black, 02 red), the length and
  /// the data, PackBits-compressed when the job is; a blank line is sent as a line (no
  /// `Z` in two-colour jobs: brother_ql sends none, and the QL-800 has no `Z`).
  func appendLine(_ line: [UInt8], plane: UInt8, to out: inout [UInt8]) {
    out.append(BrotherQLCommand.twoColourLine)
    out.append(plane)
    if options.compresses {
      let countAt = out.count
      out.append(0)
      PackBits.encode(line, into: &out)
      out[countAt] = UInt8(out.count - countAt - 1)
    } else {
      out.append(UInt8(line.count))
      out += line
    }
  }

  /// Row `y` of `page` as the head takes it: placed at the margin, mirrored.
  func headLine(_ page: Bitmap, row y: Int) -> [UInt8] {
    let last = options.media.leftMargin(on: options.model) + options.media.printableWidth - 1
    return page.mirroredLine(row: y, lastDot: last, bytes: options.model.bytesPerLine)
  }
}

func brotherLittleEndian(_ v: UInt32) -> [UInt8] {
  [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
}

func brotherLittleEndian(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
