/// The `ESC i z` print information of a page, as sent.
public struct BrotherQLPrintInformation: Sendable, Equatable {
  /// Which fields are valid (0x02 kind, 0x04 width, 0x08 length, 0x40 quality, 0x80 recover).
  public var validFlags: UInt8
  /// 0x0A continuous, 0x0B die-cut.
  public var mediaType: UInt8
  public var widthMM: Int
  public var lengthMM: Int
  /// Raster lines the page announces.
  public var lineCount: Int
  /// 0 for the first page, 1 for the others.
  public var pageIndex: UInt8
}

/// One page of a decoded job: its commands and its raster lines as the head takes them.
public struct BrotherQLDecodedPage: Sendable, Equatable {
  public var printInformation: BrotherQLPrintInformation
  /// `ESC i M` argument, when sent (0x40 = auto cut).
  public var variousMode: UInt8?
  /// `ESC i A` argument, when sent.
  public var cutEvery: Int?
  /// `ESC i K` argument, when sent (0x08 cut at end, 0x40 600 dpi).
  public var expandedMode: UInt8?
  /// `ESC i d` feed margin in dots, when sent.
  public var feedMargin: Int?
  /// Whether lines were PackBits-compressed.
  public var compressed: Bool
  /// Lines sent as `Z` (blank).
  public var blankLines: Int
  /// Each raster line, decompressed, mirrored as sent (a two-colour page's black plane).
  public var lines: [[UInt8]]
  /// A two-colour page's red plane (`w 02` lines), as `lines`; empty on a one-colour page.
  public var redLines: [[UInt8]] = []
  /// Lines sent as two-colour `w` pairs.
  public var twoColourLines = 0
  /// Red lines (`w 02`) seen; each follows its black line.
  var redLinesSeen = 0

  public var autoCut: Bool { (variousMode ?? 0) & BrotherQLCommand.autoCut != 0 }
  /// `ESC i K` bit 0: two-colour mode.
  public var twoColour: Bool { (expandedMode ?? 0) & BrotherQLCommand.twoColour != 0 }
  public var cutAtEnd: Bool { (expandedMode ?? 0) & BrotherQLCommand.cutAtEnd != 0 }
  public var highResolution: Bool {
    (expandedMode ?? 0) & BrotherQLCommand.highResolution != 0
  }

  /// The page as a bitmap `width` dots wide whose dot x was sent at head dot
  /// `margin + width - 1 - x` (the encoder's mirroring, undone).
  public func bitmap(width: Int, margin: Int, red: Bool = false) -> Bitmap {
    let plane = red ? redLines : lines
    var out = Bitmap(width: width, height: plane.count)
    for (y, line) in plane.enumerated() {
      for x in 0..<width {
        let dot = margin + width - 1 - x
        guard dot >= 0, dot < line.count * 8 else { continue }
        if line[dot / 8] & (0x80 >> UInt8(dot % 8)) != 0 { out[x, y] = true }
      }
    }
    return out
  }

  /// The printable area of `media` on `model`, un-mirrored.
  public func bitmap(media: BrotherQLMedia, model: BrotherQLModel, red: Bool = false) -> Bitmap {
    bitmap(width: media.printableWidth, margin: media.leftMargin(on: model), red: red)
  }
}

/// A decoded job.
public struct BrotherQLDecodedJob: Sendable, Equatable {
  /// NUL bytes before `ESC @`.
  public var invalidateCount: Int
  /// Whether `ESC i a 01` switched to raster mode.
  public var rasterModeSwitch: Bool
  /// `ESC i S` status requests inside the job (brother_ql sends one per page).
  public var statusRequests: Int
  public var pages: [BrotherQLDecodedPage]
}

/// Parses a QL raster job back into pages: the oracle for the encoder's tests, and a check
/// on jobs from elsewhere. Strict: an unknown command, a truncated command, a line of the
/// wrong size or a page whose line count differs from its `ESC i z` throws.
public struct BrotherQLRasterDecoder: Sendable {
  /// Bytes per raster line of the head the job is for (90 or 162).
  public let bytesPerLine: Int

  public init(bytesPerLine: Int) {
    precondition(bytesPerLine > 0, "a raster line has bytes")
    self.bytesPerLine = bytesPerLine
  }

  public init(model: BrotherQLModel) { self.init(bytesPerLine: model.bytesPerLine) }

  /// The job's pages. With `keepingLines` false the pages carry no lines (only their
  /// print information and counts): enough to check a job against the loaded roll, at a
  /// cost that does not grow with what `Z` lines would expand to.
  public func decode(_ data: [UInt8], keepingLines: Bool = true) throws(BrotherQLError)
    -> BrotherQLDecodedJob
  {
    var reader = BrotherByteReader<QLFamily>(data: data)
    var linesInPage = 0
    var job = BrotherQLDecodedJob(
      invalidateCount: 0, rasterModeSwitch: false, statusRequests: 0, pages: [])
    var initialized = false
    var compressed = false
    var page: BrotherQLDecodedPage?
    while let byte = reader.next() {
      switch byte {
      case 0x00:
        if !initialized { job.invalidateCount += 1 }
      case BrotherQLCommand.esc:
        let command = try reader.byte("ESC")
        if command == 0x40 {  // @
          initialized = true
          continue
        }
        guard command == 0x69 else {  // i
          throw BrotherQLError(.unknownCommand, "unknown command ESC \(hexByte(command))")
        }
        try escI(&reader, &job, &page, &compressed, linesInPage: linesInPage)
      case BrotherQLCommand.compression:
        let mode = try reader.byte("M")
        guard mode == 0 || mode == 2 else {
          throw BrotherQLError(.malformed, "compression mode \(hexByte(mode))")
        }
        compressed = mode == 2
        page?.compressed = compressed
      case BrotherQLCommand.rasterLine, BrotherQLCommand.blankLine:
        guard var current = page else {
          throw BrotherQLError(.malformed, "raster line before print information (ESC i z)")
        }
        page = nil  // `current` is then the only reference: appending does not copy
        let decoded: [UInt8]
        if byte == BrotherQLCommand.blankLine {
          decoded = [UInt8](repeating: 0, count: bytesPerLine)
          current.blankLines += 1
        } else {
          decoded = try line(&reader, compressed: compressed)
        }
        if keepingLines { current.lines.append(decoded) }
        linesInPage += 1
        guard linesInPage <= current.printInformation.lineCount else {
          throw BrotherQLError(
            .lineCountMismatch,
            "page \(job.pages.count + 1) has more than the \(current.printInformation.lineCount)"
              + " lines ESC i z announced")
        }
        page = current
      case BrotherQLCommand.twoColourLine:
        // `w 01 n data` (black) then `w 02 n data` (red): one raster line in two planes.
        guard var current = page else {
          throw BrotherQLError(.malformed, "raster line before print information (ESC i z)")
        }
        guard current.twoColour else {
          throw BrotherQLError(.malformed, "two-colour line (w) without ESC i K two-colour mode")
        }
        page = nil
        let plane = try reader.byte("w")
        let decoded = try line(&reader, compressed: compressed, command: "w")
        switch plane {
        case 0x01:
          guard current.twoColourLines == current.redLinesSeen else {
            throw BrotherQLError(.malformed, "two black lines (w 01) without a red one between")
          }
          if keepingLines { current.lines.append(decoded) }
          current.twoColourLines += 1
          linesInPage += 1
          guard linesInPage <= current.printInformation.lineCount else {
            throw BrotherQLError(
              .lineCountMismatch,
              "page \(job.pages.count + 1) has more than the "
                + "\(current.printInformation.lineCount) lines ESC i z announced")
          }
        case 0x02:
          guard current.redLinesSeen + 1 == current.twoColourLines else {
            throw BrotherQLError(.malformed, "a red line (w 02) without its black line (w 01)")
          }
          if keepingLines { current.redLines.append(decoded) }
          current.redLinesSeen += 1
        default:
          throw BrotherQLError(.malformed, "w \(hexByte(plane)): the planes are 01 and 02")
        }
        page = current
      case BrotherQLCommand.formFeed, BrotherQLCommand.endOfJob:
        guard let current = page else {
          throw BrotherQLError(.malformed, "page end without a page")
        }
        guard current.redLinesSeen == current.twoColourLines else {
          throw BrotherQLError(.malformed, "page ends between a black line and its red line")
        }
        guard linesInPage == current.printInformation.lineCount else {
          throw BrotherQLError(
            .lineCountMismatch,
            "page \(job.pages.count + 1) has \(linesInPage) lines; ESC i z announced"
              + " \(current.printInformation.lineCount)")
        }
        job.pages.append(current)
        page = nil
        linesInPage = 0
        if byte == BrotherQLCommand.endOfJob {
          guard reader.atEnd else {
            throw BrotherQLError(.malformed, "\(reader.remaining) bytes after the final ^Z")
          }
          return job
        }
      default:
        throw BrotherQLError(
          .unknownCommand, "unknown command \(hexByte(byte)) at offset \(reader.offset - 1)")
      }
    }
    throw BrotherQLError(.truncated, "job ends without ^Z (0x1A)")
  }

  /// `ESC i` commands.
  private func escI(
    _ reader: inout BrotherByteReader<QLFamily>, _ job: inout BrotherQLDecodedJob,
    _ page: inout BrotherQLDecodedPage?,
    _ compressed: inout Bool, linesInPage: Int
  ) throws(BrotherQLError) {
    let command = try reader.byte("ESC i")
    switch command {
    case 0x61:  // a: command mode, 01 = raster
      let mode = try reader.byte("ESC i a")
      guard mode == 0x01 else {
        throw BrotherQLError(.malformed, "ESC i a \(hexByte(mode)): only raster mode (01) is known")
      }
      job.rasterModeSwitch = true
    case 0x53:  // S: status request
      job.statusRequests += 1
    case 0x21:  // !: automatic status notification
      _ = try reader.byte("ESC i !")
    case 0x7A:  // z: print information
      let p = try reader.bytes(10, "ESC i z")
      if page != nil, linesInPage > 0 {
        throw BrotherQLError(.malformed, "ESC i z inside page \(job.pages.count + 1)")
      }
      let count = Int(p[4]) | Int(p[5]) << 8 | Int(p[6]) << 16 | Int(p[7]) << 24
      let info = BrotherQLPrintInformation(
        validFlags: p[0], mediaType: p[1], widthMM: Int(p[2]), lengthMM: Int(p[3]),
        lineCount: count, pageIndex: p[8])
      page = BrotherQLDecodedPage(
        printInformation: info, compressed: compressed, blankLines: 0, lines: [])
    case 0x4D, 0x41, 0x4B, 0x64:  // M, A, K, d: settings of the page just announced
      let argument =
        command == 0x64 ? try reader.bytes(2, "ESC i d") : [try reader.byte("ESC i")]
      guard page != nil, linesInPage == 0 else {
        throw BrotherQLError(
          .malformed,
          "ESC i \(hexByte(command)) outside a page header (before ESC i z or in lines)")
      }
      switch command {
      case 0x4D: page?.variousMode = argument[0]
      case 0x41: page?.cutEvery = Int(argument[0])
      case 0x4B: page?.expandedMode = argument[0]
      default: page?.feedMargin = Int(argument[0]) | Int(argument[1]) << 8
      }
    default:
      throw BrotherQLError(.unknownCommand, "unknown command ESC i \(hexByte(command))")
    }
  }

  /// `g 00 n data` (or, after `w`'s plane byte, `n data`): one line, checked to be
  /// exactly `bytesPerLine` once unpacked.
  private func line(
    _ reader: inout BrotherByteReader<QLFamily>, compressed: Bool, command: String = "g"
  )
    throws(BrotherQLError) -> [UInt8]
  {
    let count = command == "g" ? try reader.bytes(2, "g")[1] : try reader.byte(command)
    let data = try reader.bytes(Int(count), "raster line")
    let line = compressed ? PackBits.decode(data) : data
    guard let line else { throw BrotherQLError(.malformed, "PackBits line ends inside a run") }
    guard line.count == bytesPerLine else {
      throw BrotherQLError(
        .malformed, "raster line of \(line.count) bytes; the head takes \(bytesPerLine)")
    }
    return line
  }
}

func hexByte(_ b: UInt8) -> String {
  let s = String(b, radix: 16, uppercase: true)
  return b < 16 ? "0" + s : s
}
