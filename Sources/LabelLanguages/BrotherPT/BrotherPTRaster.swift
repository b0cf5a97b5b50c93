/// How to print a P-touch job.
public struct BrotherPTOptions: Sendable, Equatable {
  public var model: BrotherPTModel
  public var tape: BrotherPTTape
  /// Cut after each label (`ESC i M` bit 6, `ESC i A 1` where the model takes it).
  public var autoCut: Bool
  /// Cut only through the tape, not its backing (`ESC i K` bit 2), on models with a half
  /// cutter; ignored elsewhere.
  public var halfCut: Bool
  /// Leave the last label in the printer, uncut, for the next job (`ESC i K` bit 3 clear);
  /// off: the last label is fed and cut.
  public var chainPrinting: Bool
  /// Feed before and after the print area (`ESC i d`), in dots.
  public var feedDots: Int

  public init(
    model: BrotherPTModel, tape: BrotherPTTape, autoCut: Bool = true, halfCut: Bool = false,
    chainPrinting: Bool = false, feedDots: Int? = nil
  ) {
    self.model = model
    self.tape = tape
    self.autoCut = autoCut
    self.halfCut = halfCut
    self.chainPrinting = chainPrinting
    self.feedDots = feedDots ?? model.head.minimumFeed
  }

  /// Half cutting as it will be sent: only on models with a half cutter.
  public var halfCuts: Bool { halfCut && model.hasHalfCutter }
}

/// Command bytes of the P-touch raster language (Brother's Raster Command References,
/// "4. Printing Command Details").
enum BrotherPTCommand {
  static let initialize: [UInt8] = [0x1B, 0x40]  // ESC @
  static let rasterMode: [UInt8] = [0x1B, 0x69, 0x61, 0x01]  // ESC i a 01
  static let printInformation: [UInt8] = [0x1B, 0x69, 0x7A]  // ESC i z + 10 bytes
  static let variousMode: [UInt8] = [0x1B, 0x69, 0x4D]  // ESC i M n
  static let cutEvery: [UInt8] = [0x1B, 0x69, 0x41]  // ESC i A n
  static let advancedMode: [UInt8] = [0x1B, 0x69, 0x4B]  // ESC i K n
  static let margin: [UInt8] = [0x1B, 0x69, 0x64]  // ESC i d n1 n2 (little-endian dots)
  static let compression: UInt8 = 0x4D  // M n: 02 TIFF (PackBits), 00 none
  static let rasterLine: UInt8 = 0x47  // G n1 n2 data (little-endian length)
  static let blankLine: UInt8 = 0x5A  // Z
  static let formFeed: UInt8 = 0x0C  // print command: end of a page, more follow
  static let endOfJob: UInt8 = 0x1A  // print command with feeding: end of the last page

  /// `ESC i z` valid flags: media width (0x04) and "printer recovery always on" (0x80),
  /// as Brother's own example ("printing 100 mm on 24-mm-wide tape": 84 00 18 00 …) and
  /// driver send them; the media type byte is 00 (laminated or not, the PT-P900
  /// reference) and not flagged valid.
  static let validWidth: UInt8 = 0x04
  static let validRecover: UInt8 = 0x80
  /// `ESC i M` bits: auto cut, mirror printing.
  static let autoCut: UInt8 = 0x40
  static let mirror: UInt8 = 0x80
  /// `ESC i K` bits: draft, half cut, no chain printing, special tape, high resolution.
  static let draft: UInt8 = 0x01
  static let halfCut: UInt8 = 0x04
  static let noChainPrinting: UInt8 = 0x08
  static let highResolution: UInt8 = 0x40
}

/// Turns pages into a P-touch raster job.
///
/// A page is in head orientation: its width runs across the tape (at most the tape's
/// print area, `BrotherPTTape.printableDots`), its height along the tape, row 0 printed
/// first. Column 0 is the first column of the print area on the page a CUPS filter gets
/// for the tape (the page of the PPD's tape size, less the tape's width offset): page dot
/// x lands on head pin `leftPins + printableDots - 1 - x`, counted from the most
/// significant bit of the line's first byte, which is where `rastertoptch` puts column x
/// of such a page. A page narrower than the print area is placed from column 0 (the
/// rest of the area stays white); the renderer gives pages the full width, so a preview
/// is what prints.
///
/// A job: `invalidate` NULs, `ESC @`, `ESC i a 01` once; per page `ESC i z` (width,
/// lines, page 0 first, 1 after, 2 last on the PT-P900 family), `ESC i M` (auto cut),
/// `ESC i A 1` (auto cut, models that take it), `ESC i K` (half cut, chain printing),
/// `ESC i d` (feed), `M 02`, one `G n1 n2` PackBits line or `Z` per row, `FF` between
/// pages and `^Z` after the last: the order of section 2.1 "Print data overview".
public struct BrotherPTEncoder: Sendable {
  public let options: BrotherPTOptions

  /// Checks the options: the tape must be one the model's head takes, the feed within
  /// 0–127 mm (2.3.3 "Feed amount").
  public init(_ options: BrotherPTOptions) throws(BrotherPTError) {
    if let problem = Self.problem(with: options) { throw problem }
    self.options = options
  }

  /// What is wrong with `options`, if anything.
  static func problem(with options: BrotherPTOptions) -> BrotherPTError? {
    let head = options.model.head
    guard head.tapes.contains(options.tape) else {
      return BrotherPTError(.mediaMismatch, "\(options.model.name) does not take \(options.tape)")
    }
    let maxFeed = 127 * head.dpi * 10 / 254
    guard (0...maxFeed).contains(options.feedDots) else {
      return BrotherPTError(
        .invalidOption, "a feed of \(options.feedDots) dots: must be 0...\(maxFeed)")
    }
    return nil
  }

  /// The job printing `pages`, one label each.
  public func encode(_ pages: [Bitmap]) throws(BrotherPTError) -> [UInt8] {
    guard !pages.isEmpty else { throw BrotherPTError(.invalidOption, "a job needs a page") }
    let o = options
    let head = o.model.head
    for (i, page) in pages.enumerated() {
      guard page.width <= o.tape.printableDots else {
        throw BrotherPTError(
          .tooWide,
          "page \(i + 1) is \(page.width) dots across; \(o.tape) prints \(o.tape.printableDots)")
      }
      guard page.height > 0 else {
        throw BrotherPTError(.invalidOption, "page \(i + 1) has no lines")
      }
      guard page.height <= head.lineRange.upperBound else {
        throw BrotherPTError(
          .tooLong,
          "page \(i + 1) has \(page.height) lines; \(o.model.name) prints at most "
            + "\(head.lineRange.upperBound)")
      }
    }
    var out: [UInt8] = []
    out.reserveCapacity(o.model.invalidateCount + pages.reduce(0) { $0 + $1.height * 6 })
    out += repeatElement(0, count: o.model.invalidateCount)
    out += BrotherPTCommand.initialize
    out += BrotherPTCommand.rasterMode
    // A page shorter than the head's shortest is fed out with blank lines at its end.
    let last = o.tape.leftPins + o.tape.printableDots - 1
    for (i, page) in pages.enumerated() {
      let lines = max(page.height, head.lineRange.lowerBound)
      appendPageHeader(lines: lines, index: i, of: pages.count, to: &out)
      for y in 0..<page.height {
        appendLine(page.mirroredLine(row: y, lastDot: last, bytes: head.bytesPerLine), to: &out)
      }
      for _ in page.height..<lines { out.append(BrotherPTCommand.blankLine) }
      out.append(i == pages.count - 1 ? BrotherPTCommand.endOfJob : BrotherPTCommand.formFeed)
    }
    return out
  }

  /// The control codes Brother's references send before each page's raster data.
  func appendPageHeader(lines: Int, index: Int, of count: Int, to out: inout [UInt8]) {
    typealias C = BrotherPTCommand
    let o = options
    let page: UInt8 =
      o.model.marksLastPage && index == count - 1 ? 2 : index == 0 ? 0 : 1
    out += C.printInformation
    out += [C.validRecover | C.validWidth, 0x00, o.tape.widthByte, 0x00]
    out += brotherLittleEndian(UInt32(lines))
    out += [page, 0x00]
    // Sent when not cutting too, so a cutter left on by another job does not cut.
    out += C.variousMode + [o.autoCut ? C.autoCut : 0]
    if o.autoCut && o.model.hasCutEvery { out += C.cutEvery + [1] }
    var advanced: UInt8 = 0
    if o.halfCuts { advanced |= C.halfCut }
    if !o.chainPrinting { advanced |= C.noChainPrinting }
    out += C.advancedMode + [advanced]
    out += C.margin + brotherLittleEndian(UInt16(o.feedDots))
    out += [C.compression, 0x02]
  }

  /// One raster line: `Z` when blank, else `G n1 n2` and the line in PackBits, or as one
  /// literal run where PackBits would come out longer than the line ("the data is
  /// treated as being all different", the references' "Select compression mode").
  func appendLine(_ line: [UInt8], to out: inout [UInt8]) {
    if line.allSatisfy({ $0 == 0 }) {
      out.append(BrotherPTCommand.blankLine)
      return
    }
    out.append(BrotherPTCommand.rasterLine)
    let countAt = out.count
    out += [0, 0]
    PackBits.encode(line, into: &out)
    if out.count - countAt - 2 > line.count {
      out.removeSubrange((countAt + 2)...)
      out.append(UInt8(line.count - 1))
      out += line
    }
    let count = out.count - countAt - 2
    out[countAt] = UInt8(count & 0xFF)
    out[countAt + 1] = UInt8(count >> 8)
  }
}
