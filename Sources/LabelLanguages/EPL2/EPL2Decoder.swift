import LabelCore

/// Why bytes are not an EPL2 job this decoder can read, and where.
public struct EPL2DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
  public var offset: Int
  public var message: String
  public var description: String { "EPL2 at byte \(offset): \(message)" }
}

/// One label an EPL2 job prints: the image buffer when `P` came (1 = black), as wide as
/// `q` and as long as `Q` (or as far as its graphics reach when no `Q` was sent).
public struct EPL2Page: Sendable, Equatable {
  public var image: Bitmap?
  public var widthDots: Int
  /// `Q`'s label length in dots; nil when the job sent no `Q`.
  public var lengthDots: Int?
  /// `Q`'s gap in dots (0: continuous media); nil when the job sent no `Q`.
  public var gapDots: Int?
  /// `P p1[,p2]`: p1 sets of p2 copies.
  public var copies: Int
}

public struct EPL2Job: Sendable, Equatable {
  public var pages: [EPL2Page]
  /// Each command line as sent (a `GW` without its data), when asked for.
  public var commands: [String]
}

/// Reads EPL2 as labeld's encoder and LPrint's `epl2_*` drivers write it (Zebra EPL2
/// Programming Guide): LF-terminated commands (CR ignored), `GWx,y,bytes,rows` followed by
/// its raw rows (a 0 bit is black), drawn into the buffer `N` cleared; `P` prints it.
/// Commands the printer draws itself (`A` text, `B` barcodes, `LO` lines) are kept in
/// `commands` but not drawn. Bytes from outside are read with limits; nothing traps.
public struct EPL2Decoder: Sendable {
  public var maxWidth = 8192
  public var maxLength = 32768
  public var maxPages = 100_000

  public init() {}

  public func decode(_ bytes: [UInt8], drawing: Bool = true, keepingCommands: Bool = false)
    throws(EPL2DecodeError) -> EPL2Job
  {
    var job = EPL2Job(pages: [], commands: [])
    var width = 0
    var length: Int?
    var gap: Int?
    var graphics: [(x: Int, y: Int, bytesPerRow: Int, rows: Int, data: ArraySlice<UInt8>)] = []
    var i = 0
    while i < bytes.count {
      if bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x20 || bytes[i] == 0x00 {
        i += 1
        continue
      }
      let start = i
      var end = i
      while end < bytes.count && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
      let line = String(decoding: bytes[start..<end], as: UTF8.self)
      i = end
      if keepingCommands { job.commands.append(line) }
      if line.hasPrefix("GW") {
        let fields = line.dropFirst(2).split(separator: ",").map { Int($0.trimmingSpaces) }
        guard fields.count == 4, let x = fields[0], let y = fields[1], let n = fields[2],
          let rows = fields[3], x >= 0, y >= 0, n >= 0, rows >= 0, x <= maxWidth,
          y <= maxLength, n <= maxWidth / 8 + 1, rows <= maxLength
        else { throw EPL2DecodeError(offset: start, message: "GW needs x,y,bytes,rows: \(line)") }
        // The data starts after the command's LF (CR LF taken as well).
        var dataStart = end
        if dataStart < bytes.count && bytes[dataStart] == 0x0D { dataStart += 1 }
        if dataStart < bytes.count && bytes[dataStart] == 0x0A { dataStart += 1 }
        let count = n * rows
        guard count <= bytes.count - dataStart else {
          throw EPL2DecodeError(
            offset: start, message: "GW promises \(count) bytes, \(bytes.count - dataStart) follow")
        }
        if drawing { graphics.append((x, y, n, rows, bytes[dataStart..<(dataStart + count)])) }
        i = dataStart + count
        continue
      }
      guard let first = line.first else { continue }
      let args = line.dropFirst().split(separator: ",").map { Int($0.trimmingSpaces) }
      switch first {
      case "N" where line == "N":
        graphics = []
      case "q":
        guard args.count == 1, let w = args[0], (0...maxWidth).contains(w) else {
          throw EPL2DecodeError(offset: start, message: "q needs a width in dots: \(line)")
        }
        width = w
      case "Q":
        guard args.count >= 2, let l = args[0], let g = args[1], (0...maxLength).contains(l),
          (0...maxLength).contains(g)
        else {
          throw EPL2DecodeError(offset: start, message: "Q needs a length and a gap: \(line)")
        }
        length = l
        gap = g
      case "P" where line.count > 1 && line.dropFirst().allSatisfy({ $0.isNumber || $0 == "," }):
        let sets = args.first ?? 1
        let each = args.count > 1 ? args[1] : 1
        guard let sets, let each, args.count <= 2, (1...maxPages).contains(sets),
          (1...maxPages).contains(each)
        else { throw EPL2DecodeError(offset: start, message: "P counts out of range: \(line)") }
        guard job.pages.count < maxPages else {
          throw EPL2DecodeError(offset: start, message: "more than \(maxPages) labels")
        }
        var image: Bitmap?
        if drawing { image = draw(graphics, width: width, length: length) }
        job.pages.append(
          EPL2Page(
            image: image, widthDots: width, lengthDots: length, gapDots: gap,
            copies: sets * each))
      default:
        break
      }
    }
    return job
  }

  /// The buffer: `width` across, `length` long (else as far as the graphics reach).
  private func draw(
    _ graphics: [(x: Int, y: Int, bytesPerRow: Int, rows: Int, data: ArraySlice<UInt8>)],
    width: Int, length: Int?
  ) -> Bitmap {
    let reach = graphics.map { $0.y + $0.rows }.max() ?? 0
    var image = Bitmap(width: width, height: min(length ?? reach, maxLength))
    for g in graphics {
      for row in 0..<g.rows {
        for column in 0..<g.bytesPerRow {
          let ink = ~g.data[g.data.startIndex + row * g.bytesPerRow + column]
          guard ink != 0 else { continue }
          for bit in 0..<8 where ink & (0x80 >> UInt8(bit)) != 0 {
            image[g.x + column * 8 + bit, g.y + row] = true
          }
        }
      }
    }
    return image
  }
}
