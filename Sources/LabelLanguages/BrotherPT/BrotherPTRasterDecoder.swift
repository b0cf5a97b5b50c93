/// The `ESC i z` print information of a page, as sent.
public struct BrotherPTPrintInformation: Sendable, Equatable {
  /// Which fields are valid (0x02 media type, 0x04 width, 0x08 length, 0x80 recover).
  public var validFlags: UInt8
  /// 00 (laminated or not), 0x09 (high resolution or draft on the PT-P900 family)…
  public var mediaType: UInt8
  /// The tape width byte (mm; 4 for 3.5 mm tape).
  public var widthByte: UInt8
  public var lengthMM: Int
  /// Raster lines the page announces.
  public var lineCount: Int
  /// 0 the first page, 1 the others, 2 the last (PT-P900 family).
  public var pageIndex: UInt8

  /// The tape width the page is for, in mm, when the width is flagged valid.
  public var tapeWidthMM: Double? {
    validFlags & BrotherPTCommand.validWidth == 0 ? nil : widthByte == 4 ? 3.5 : Double(widthByte)
  }
}

/// One page of a decoded job: the settings in force for it and its raster lines as the
/// head takes them.
public struct BrotherPTDecodedPage: Sendable, Equatable {
  /// Its `ESC i z`, when one came before its lines (rastertoptch's older PPDs send none).
  public var printInformation: BrotherPTPrintInformation?
  /// `ESC i M` (0x40 auto cut, 0x80 mirror), as last set in the job.
  public var variousMode: UInt8?
  /// `ESC i K` (0x04 half cut, 0x08 no chain printing…), as last set.
  public var advancedMode: UInt8?
  /// `ESC i A`, as last set.
  public var cutEvery: Int?
  /// `ESC i d`, in dots, as last set.
  public var feedDots: Int?
  /// Whether lines were PackBits-compressed (`M 02`).
  public var compressed = false
  /// Lines sent as `Z`.
  public var blankLines = 0
  /// Raster lines, whether kept or not.
  public var lineCount = 0
  /// Each raster line, decompressed and padded to the head's bytes, as sent.
  public var lines: [[UInt8]] = []

  public var autoCut: Bool { (variousMode ?? 0) & BrotherPTCommand.autoCut != 0 }
  public var mirrored: Bool { (variousMode ?? 0) & BrotherPTCommand.mirror != 0 }
  public var halfCut: Bool { (advancedMode ?? 0) & BrotherPTCommand.halfCut != 0 }
  /// Chain printing: `ESC i K` bit 3 ("no chain printing") clear.
  public var chainPrinting: Bool {
    (advancedMode ?? 0) & BrotherPTCommand.noChainPrinting == 0
  }

  /// The page as the encoder takes it on `tape`: dot x from head pin
  /// `leftPins + printableDots - 1 - x` (the encoder's placement, undone).
  public func bitmap(tape: BrotherPTTape) -> Bitmap {
    var out = Bitmap(width: tape.printableDots, height: lines.count)
    let last = tape.leftPins + tape.printableDots - 1
    for (y, line) in lines.enumerated() {
      for x in 0..<tape.printableDots {
        let pin = last - x
        guard pin >= 0, pin < line.count * 8 else { continue }
        if line[pin / 8] & (0x80 >> UInt8(pin % 8)) != 0 { out[x, y] = true }
      }
    }
    return out
  }

  /// Inked pins outside `tape`'s print area, over all lines.
  public func dotsOutside(tape: BrotherPTTape) -> Int {
    var count = 0
    for line in lines {
      for pin in 0..<(line.count * 8)
      where pin < tape.leftPins || pin >= tape.leftPins + tape.printableDots {
        if line[pin / 8] & (0x80 >> UInt8(pin % 8)) != 0 { count += 1 }
      }
    }
    return count
  }
}

/// A decoded job.
public struct BrotherPTDecodedJob: Sendable, Equatable {
  /// NUL bytes before the first `ESC @`.
  public var invalidateCount = 0
  /// `ESC i a n` (or the older `ESC i R n`) argument: 1 is raster mode.
  public var commandMode: UInt8?
  /// `ESC i S` status requests inside the job.
  public var statusRequests = 0
  /// `ESC i D` print density, where sent.
  public var density: UInt8?
  public var pages: [BrotherPTDecodedPage] = []
}

/// Parses a P-touch raster job back into pages: the oracle for the encoder's tests, the
/// reader of `rastertoptch`'s output, and the check on a native document from a client
/// (bytes from outside: what it keeps is bounded by its input, and with `keepingLines`
/// false nothing grows with the lines). Mode settings stay in force until changed, as on
/// the printer (`rastertoptch` sends them once, before the first page); a page starts
/// at its first raster line. Strict: an unknown command, a truncated one, a line wider
/// than the head, a setting inside a page's lines or a page whose line count differs
/// from its `ESC i z` throws.
public struct BrotherPTRasterDecoder: Sendable {
  /// Bytes of the head's raster line (16 or 70).
  public let bytesPerLine: Int

  public init(bytesPerLine: Int) {
    precondition(bytesPerLine > 0, "a raster line has bytes")
    self.bytesPerLine = bytesPerLine
  }

  public init(model: BrotherPTModel) { self.init(bytesPerLine: model.head.bytesPerLine) }

  public func decode(_ data: [UInt8], keepingLines: Bool = true) throws(BrotherPTError)
    -> BrotherPTDecodedJob
  {
    var reader = BrotherByteReader<PTFamily>(data: data)
    var job = BrotherPTDecodedJob()
    var initialized = false
    var settings = BrotherPTDecodedPage()  // what the next page starts with
    var page: BrotherPTDecodedPage?  // the page whose lines are arriving
    while let byte = reader.next() {
      switch byte {
      case 0x00:
        if !initialized { job.invalidateCount += 1 }
      case 0x1B:
        let command = try reader.byte("ESC")
        if command == 0x40 {  // @
          initialized = true
          continue
        }
        guard command == 0x69 else {  // i
          throw BrotherPTError(.unknownCommand, "unknown command ESC \(hexByte(command))")
        }
        guard page == nil else {
          throw BrotherPTError(
            .malformed, "ESC i inside the lines of page \(job.pages.count + 1)")
        }
        try escI(&reader, &job, &settings)
      case BrotherPTCommand.compression:
        guard page == nil else {
          throw BrotherPTError(.malformed, "M inside the lines of page \(job.pages.count + 1)")
        }
        let mode = try reader.byte("M")
        guard mode == 0 || mode == 2 else {
          throw BrotherPTError(.malformed, "compression mode \(hexByte(mode))")
        }
        settings.compressed = mode == 2
      case BrotherPTCommand.rasterLine, BrotherPTCommand.blankLine:
        let starting = page == nil
        var current = page ?? settings
        page = nil  // `current` is then the only reference: appending does not copy
        if starting { settings.printInformation = nil }  // each ESC i z is one page's
        let line: [UInt8]
        if byte == BrotherPTCommand.blankLine {
          current.blankLines += 1
          line = keepingLines ? [UInt8](repeating: 0, count: bytesPerLine) : []
        } else {
          line = try self.line(&reader, compressed: current.compressed)
        }
        if keepingLines { current.lines.append(line) }
        current.lineCount += 1
        if let info = current.printInformation, current.lineCount > info.lineCount {
          throw BrotherPTError(
            .lineCountMismatch,
            "page \(job.pages.count + 1) has more than the \(info.lineCount) lines "
              + "ESC i z announced")
        }
        page = current
      case BrotherPTCommand.formFeed, BrotherPTCommand.endOfJob:
        guard let current = page else {
          throw BrotherPTError(.malformed, "a print command without raster lines")
        }
        if let info = current.printInformation, current.lineCount != info.lineCount {
          throw BrotherPTError(
            .lineCountMismatch,
            "page \(job.pages.count + 1) has \(current.lineCount) lines; ESC i z announced "
              + "\(info.lineCount)")
        }
        job.pages.append(current)
        page = nil
        if byte == BrotherPTCommand.endOfJob {
          guard reader.atEnd else {
            throw BrotherPTError(.malformed, "\(reader.remaining) bytes after the final ^Z")
          }
          return job
        }
      default:
        throw BrotherPTError(
          .unknownCommand, "unknown command \(hexByte(byte)) at offset \(reader.offset - 1)")
      }
    }
    throw BrotherPTError(.truncated, "job ends without ^Z (0x1A)")
  }

  /// `ESC i` commands, which set what the next page starts with.
  private func escI(
    _ reader: inout BrotherByteReader<PTFamily>, _ job: inout BrotherPTDecodedJob,
    _ settings: inout BrotherPTDecodedPage
  ) throws(BrotherPTError) {
    let command = try reader.byte("ESC i")
    switch command {
    case 0x61, 0x52:  // a: switch command mode; R: the older "transfer mode"
      job.commandMode = try reader.byte("ESC i a")
    case 0x53:  // S: status request
      job.statusRequests += 1
    case 0x21:  // !: automatic status notification
      _ = try reader.byte("ESC i !")
    case 0x44:  // D: print density (rastertoptch's PrintDensity)
      job.density = try reader.byte("ESC i D")
    case 0x7A:  // z: print information
      let p = try reader.bytes(10, "ESC i z")
      settings.printInformation = BrotherPTPrintInformation(
        validFlags: p[0], mediaType: p[1], widthByte: p[2], lengthMM: Int(p[3]),
        lineCount: Int(p[4]) | Int(p[5]) << 8 | Int(p[6]) << 16 | Int(p[7]) << 24,
        pageIndex: p[8])
    case 0x4D: settings.variousMode = try reader.byte("ESC i M")
    case 0x41: settings.cutEvery = Int(try reader.byte("ESC i A"))
    case 0x4B: settings.advancedMode = try reader.byte("ESC i K")
    case 0x64:  // d: feed amount, little-endian dots
      let n = try reader.bytes(2, "ESC i d")
      settings.feedDots = Int(n[0]) | Int(n[1]) << 8
    default:
      throw BrotherPTError(.unknownCommand, "unknown command ESC i \(hexByte(command))")
    }
  }

  /// `G n1 n2 data`: one line of `n1 + 256 n2` bytes, unpacked when compressed. A line
  /// shorter than the head is filled with white, as the printer fills it; a longer one is
  /// for another head and throws.
  private func line(_ reader: inout BrotherByteReader<PTFamily>, compressed: Bool)
    throws(BrotherPTError)
    -> [UInt8]
  {
    let n = try reader.bytes(2, "G")
    let data = try reader.bytes(Int(n[0]) | Int(n[1]) << 8, "raster line")
    guard var line = compressed ? PackBits.decode(data) : data else {
      throw BrotherPTError(.malformed, "PackBits line ends inside a run")
    }
    guard line.count <= bytesPerLine else {
      throw BrotherPTError(
        .malformed, "raster line of \(line.count) bytes; the head takes \(bytesPerLine)")
    }
    if line.count < bytesPerLine { line += repeatElement(0, count: bytesPerLine - line.count) }
    return line
  }
}
