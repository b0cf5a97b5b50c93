import LabelCore

/// Why bytes are not a LabelManager job this decoder can read, and where.
public struct DymoLMDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
  public var offset: Int
  public var message: String
  public var description: String { "DYMO LabelManager data at byte \(offset): \(message)" }
}

/// One label of a LabelManager job: the lines fed before its cut or chain mark, white
/// feed lines included, in head orientation (column = head dot, row 0 printed first).
public struct DymoLMPage: Sendable, Equatable {
  /// How a label ends.
  public enum End: Sendable, Equatable {
    /// `ESC E`: the printer cuts.
    case cut
    /// A chain mark: a dashed line sent as `SYN` + 0x99 bytes at dot tab 0.
    case chainMark
    /// The job's bytes end.
    case end
  }

  public var image: Bitmap?
  /// The lines, white ones included.
  public var lines: Int
  public var end: End
}

public struct DymoLMJob: Sendable, Equatable {
  public var pages: [DymoLMPage]
  /// The last `ESC C` tape colour, if any.
  public var tapeColour: UInt8?
  /// `ESC A` status requests in the stream (DYMO's language monitor sends one before the
  /// first page; labelle one every 64 lines and two at the end).
  public var statusRequests: Int
}

/// Reads what LabelManager printers take, as labeld's encoder, DYMO's `raster2dymolm` and
/// labelle write it: NUL bytes (ignored), `ESC B n` dot tab (bytes), `ESC C n` tape colour,
/// `ESC D n` bytes per line (0: a `SYN` is a white line), `SYN` + n bytes (a line),
/// `ESC E` cut, `ESC A` status request, and the LabelManager 500TS's `ESC Y n` + 4-byte
/// block headers (skipped). A line of 0x99 bytes at dot tab 0 is a chain mark: it ends a
/// label and is not drawn. Bytes from outside are read with limits; nothing traps.
public struct DymoLMDecoder: Sendable {
  public var maxLines = 65_536
  public var maxPages = 100_000
  /// The most bytes of page images one decode draws, all pages together.
  public var maxImageBytes = 64 << 20
  /// The head's width: images are this wide, and a line past it is refused; nil: as wide
  /// as the widest line.
  public var headDots: Int?

  public init(headDots: Int? = nil) { self.headDots = headDots }

  public func decode(_ bytes: [UInt8], drawing: Bool = true) throws(DymoLMDecodeError)
    -> DymoLMJob
  {
    var job = DymoLMJob(pages: [], tapeColour: nil, statusRequests: 0)
    var bytesPerLine = 0
    var dotTab = 0
    var lines = DymoLines(drawing: drawing)
    var inked = false
    var drawn = 0
    var i = 0

    func fail(_ message: String) -> DymoLMDecodeError {
      DymoLMDecodeError(offset: i, message: message)
    }
    func need(_ count: Int) throws(DymoLMDecodeError) {
      guard bytes.count - i >= count else { throw fail("command cut short") }
    }
    func endPage(_ end: DymoLMPage.End) throws(DymoLMDecodeError) {
      guard job.pages.count < maxPages else { throw fail("more than \(maxPages) labels") }
      var image: Bitmap?
      if drawing {
        let width = headDots ?? lines.widthBytes * 8
        drawn += (width + 7) / 8 * lines.count
        guard drawn <= maxImageBytes else {
          throw fail("the labels' images pass \(maxImageBytes) bytes")
        }
        image = lines.draw(width: width)
      }
      job.pages.append(DymoLMPage(image: image, lines: lines.count, end: end))
      lines.removeAll()
      inked = false
    }

    while i < bytes.count {
      switch bytes[i] {
      case 0x16:  // SYN: a line of bytesPerLine bytes after the dot tab
        i += 1
        try need(bytesPerLine)
        let data = Array(bytes[i..<(i + bytesPerLine)])
        i += bytesPerLine
        if dotTab == 0 && data.count >= 4 && data.allSatisfy({ $0 == DymoLMEncoder.chainMarkByte })
        {
          try endPage(.chainMark)
          continue
        }
        if let headDots, (dotTab + data.count) * 8 > headDots, data.contains(where: { $0 != 0 }) {
          throw fail("a line reaches dot \((dotTab + data.count) * 8), past the head's \(headDots)")
        }
        guard lines.count < maxLines else { throw fail("more than \(maxLines) lines on a label") }
        lines.append(tab: dotTab, data)
        inked = inked || data.contains { $0 != 0 }
      case 0x1B:
        i += 1
        try need(1)
        let command = bytes[i]
        i += 1
        switch command {
        case 0x42:  // ESC B n: dot tab, in bytes
          try need(1)
          dotTab = Int(bytes[i])
          i += 1
        case 0x43:  // ESC C n: tape colour
          try need(1)
          job.tapeColour = bytes[i]
          i += 1
        case 0x44:  // ESC D n: bytes per line
          try need(1)
          bytesPerLine = Int(bytes[i])
          i += 1
        case 0x45: try endPage(.cut)
        case 0x41: job.statusRequests += 1
        case 0x59:  // ESC Y n s3 s2 s1 s0: a 500TS block header; its bytes follow as usual
          try need(5)
          i += 5
        default:
          throw fail("unknown command ESC \(hexByte(command))")
        }
      case 0x00:
        i += 1
      default:
        throw fail("byte \(hexByte(bytes[i])) outside a command")
      }
    }
    // Lines after the last cut: a label if any is inked (the feed to the cutter is not).
    if inked || (job.pages.isEmpty && lines.count > 0) { try endPage(.end) }
    return job
  }
}
