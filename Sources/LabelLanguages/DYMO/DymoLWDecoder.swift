import LabelCore

/// Why bytes are not a LabelWriter job this decoder can read, and where.
public struct DymoLWDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
  public var offset: Int
  public var message: String
  public var description: String { "DYMO LabelWriter data at byte \(offset): \(message)" }
}

/// One label of a LabelWriter job: the lines sent before its form feed (1 = black), as
/// wide as the widest line's dot tab and bytes reach.
public struct DymoLWPage: Sendable, Equatable {
  public var image: Bitmap?
  /// `ESC L`'s label length in lines; nil when none was sent, or it was negative
  /// (continuous tape).
  public var labelLength: Int?
  /// `ESC L` with a negative length: continuous tape.
  public var continuous: Bool
  /// `ESC E` (true) or `ESC G` ended it.
  public var fullFeed: Bool
  /// The lines sent as `ETB` runs.
  public var compressedLines: Int
}

public struct DymoLWJob: Sendable, Equatable {
  public var pages: [DymoLWPage]
  /// The density command last sent (`c`, `d`, `e`, `g`), if any.
  public var density: DymoLWDensity?
  /// `ESC h` (false) or `ESC i` (true, 300 x 600 dpi) last sent.
  public var graphicsMode: Bool
}

/// Reads what LabelWriter 300/400/450/4XL printers take (the commands `DymoLWEncoder`
/// lists, with `ESC Q` "Set Line Tab", `ESC q` roll select, `ESC *`, `ESC y`/`ESC z`
/// resolution, `ESC A` status and `ESC V` revision requests, which draw nothing), as
/// labeld's encoder, LPrint's `dymo_lw-*` drivers and DYMO's `raster2dymolw` write it.
/// A run of `ESC`s is one `ESC` (the manual's resynchronisation). Bytes from outside are
/// read with limits; nothing traps.
public struct DymoLWDecoder: Sendable {
  public var maxLines = 65_536
  public var maxPages = 100_000
  /// The most bytes of page images one decode draws, all pages together.
  public var maxImageBytes = 64 << 20

  public init() {}

  public func decode(_ bytes: [UInt8], drawing: Bool = true) throws(DymoLWDecodeError)
    -> DymoLWJob
  {
    var job = DymoLWJob(pages: [], density: nil, graphicsMode: false)
    var bytesPerLine = 84
    var dotTab = 0
    var labelLength: Int?
    var continuous = false
    // The page being drawn: its lines (packed, each as long as it was sent, after its
    // dot tab) and how many were compressed.
    var lines = DymoLines(drawing: drawing)
    var compressed = 0
    var drawn = 0
    var i = 0

    func fail(_ message: String) -> DymoLWDecodeError {
      DymoLWDecodeError(offset: i, message: message)
    }
    func addLine(_ data: [UInt8]) throws(DymoLWDecodeError) {
      guard lines.count < maxLines else { throw fail("more than \(maxLines) lines on a page") }
      lines.append(tab: dotTab, data)
    }
    func endPage(full: Bool) throws(DymoLWDecodeError) {
      guard job.pages.count < maxPages else { throw fail("more than \(maxPages) labels") }
      var image: Bitmap?
      if drawing {
        drawn += lines.widthBytes * lines.count
        guard drawn <= maxImageBytes else {
          throw fail("the labels' images pass \(maxImageBytes) bytes")
        }
        image = lines.draw(width: 0)
      }
      job.pages.append(
        DymoLWPage(
          image: image, labelLength: continuous ? nil : labelLength, continuous: continuous,
          fullFeed: full, compressedLines: compressed))
      lines.removeAll()
      compressed = 0
    }
    func need(_ count: Int) throws(DymoLWDecodeError) {
      guard bytes.count - i >= count else { throw fail("command cut short") }
    }

    while i < bytes.count {
      switch bytes[i] {
      case 0x16:  // SYN: one line of bytesPerLine bytes
        i += 1
        try need(bytesPerLine)
        try addLine(Array(bytes[i..<(i + bytesPerLine)]))
        i += bytesPerLine
      case 0x17:  // ETB: runs filling bytesPerLine bytes' dots
        i += 1
        let dots = bytesPerLine * 8
        var line = [UInt8](repeating: 0, count: bytesPerLine)
        var x = 0
        while x < dots {
          try need(1)
          let run = bytes[i]
          i += 1
          let length = Int(run & 0x7F) + 1
          guard x + length <= dots else {
            throw fail("compressed runs pass the line's \(dots) dots")
          }
          if run & 0x80 != 0 {
            for d in x..<(x + length) { line[d >> 3] |= 0x80 >> UInt8(d & 7) }
          }
          x += length
        }
        compressed += 1
        try addLine(line)
      case 0x1B:
        i += 1
        try need(1)
        let command = bytes[i]
        i += 1
        switch command {
        case 0x1B: i -= 1  // ESC ESC: resynchronisation, the second ESC starts again
        case 0x40, 0x2A:  // ESC @ reset, ESC * defaults
          bytesPerLine = 84
          dotTab = 0
          labelLength = nil
          continuous = false
        case 0x42:  // ESC B n: dot tab, in bytes
          try need(1)
          dotTab = Int(bytes[i])
          i += 1
        case 0x44:  // ESC D n: bytes per line
          try need(1)
          guard bytes[i] > 0 else { throw fail("ESC D 0: no bytes per line") }
          bytesPerLine = Int(bytes[i])
          i += 1
        case 0x4C:  // ESC L n1 n2: label length, high byte first; negative: continuous
          try need(2)
          let value = Int(bytes[i]) << 8 | Int(bytes[i + 1])
          i += 2
          continuous = value >= 0x8000
          labelLength = continuous ? nil : value
        case 0x51:  // ESC Q n1 n2: line tab
          try need(2)
          i += 2
        case 0x71:  // ESC q n: roll
          try need(1)
          i += 1
        case 0x66:  // ESC f 1 n: skip n lines
          try need(2)
          guard bytes[i] == 0x01 else { throw fail("ESC f must be followed by 1") }
          let count = Int(bytes[i + 1])
          i += 2
          let white = [UInt8](repeating: 0, count: 1)
          for _ in 0..<count { try addLine(white) }
        case 0x63, 0x64, 0x65, 0x67:
          job.density = DymoLWDensity.allCases.first { $0.command == command }
        case 0x68: job.graphicsMode = false
        case 0x69: job.graphicsMode = true
        case 0x79, 0x7A, 0x41, 0x56: break  // resolution; status and revision requests
        case 0x45: try endPage(full: true)
        case 0x47: try endPage(full: false)
        default:
          throw fail("unknown command ESC \(hexByte(command))")
        }
      case 0x00:
        i += 1
      default:
        throw fail("byte \(hexByte(bytes[i])) outside a command")
      }
    }
    if lines.count > 0 { try endPage(full: false) }
    return job
  }
}
