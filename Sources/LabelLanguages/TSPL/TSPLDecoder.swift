import LabelCore

/// Why bytes are not a TSPL job this decoder can read, and where.
public struct TSPLDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
  public var offset: Int
  public var message: String
  public var description: String { "TSPL at byte \(offset): \(message)" }
}

/// One label a TSPL job prints: the image buffer when `PRINT` came (1 = black), and the
/// media `SIZE` and `GAP`/`BLINE` set for it.
public struct TSPLPage: Sendable, Equatable {
  public var image: Bitmap?
  public var widthMM: Double
  public var lengthMM: Double
  /// `GAP 0,0`: continuous media.
  public var continuous: Bool
  /// Whether the job said how labels are told apart (`GAP` or `BLINE`); without it the
  /// printer's own setting stands, and the job says nothing about the media's kind.
  public var sensingSet: Bool
  /// `PRINT m,n`: m sets of n copies.
  public var copies: Int
}

public struct TSPLJob: Sendable, Equatable {
  public var pages: [TSPLPage]
  /// Each command line as sent (a `BITMAP` without its data), when asked for.
  public var commands: [String]
}

/// Reads TSPL as labeld's encoder and LPrint's `tspl` driver write it (TSC TSPL/TSPL2
/// Programming Manual): command lines ending in LF or CR LF, `BITMAP` followed by its raw
/// rows (a 0 bit is black; modes 0 overwrite, 1 OR, 2 XOR, taken on the black dots),
/// `SIZE` in inches, `mm` or `dot`, immediate `<ESC>!x` commands skipped. Commands the
/// printer draws itself (`TEXT`, `BARCODE`, …) are kept in `commands` but not drawn.
///
/// Bytes from outside (a client's native document) are read with limits: a page is at most
/// `maxWidth` x `maxLength` dots, a job at most `maxPages` labels; nothing traps.
public struct TSPLDecoder: Sendable {
  public var dpi: Int
  public var maxWidth = 8192
  public var maxLength = 32768
  public var maxPages = 100_000

  public init(dpi: Int) { self.dpi = min(max(dpi, 1), 2400) }

  /// The job's pages; with `drawing` false, only their media and copies (no images, for
  /// reading a job's facts cheaply).
  public func decode(_ bytes: [UInt8], drawing: Bool = true, keepingCommands: Bool = false)
    throws(TSPLDecodeError) -> TSPLJob
  {
    var state = State()
    var job = TSPLJob(pages: [], commands: [])
    var i = 0
    while i < bytes.count {
      let byte = bytes[i]
      if byte == 0x1B {  // <ESC>!x: an immediate command, three bytes
        i += 3
        continue
      }
      if byte == 0x0D || byte == 0x0A || byte == 0x20 || byte == 0x00 {
        i += 1
        continue
      }
      let start = i
      if hasPrefix(bytes, at: i, "BITMAP") {
        let (header, end) = try bitmap(bytes, at: i, state: &state, drawing: drawing)
        if keepingCommands { job.commands.append(text(bytes[start..<header])) }
        i = skipLineEnd(bytes, at: end)
        continue
      }
      var end = i
      while end < bytes.count && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
      let line = text(bytes[start..<end])
      i = end
      if keepingCommands { job.commands.append(line) }
      try command(line, at: start, state: &state, job: &job, drawing: drawing)
    }
    return job
  }

  private struct State {
    var widthMM: Double?
    var lengthMM: Double?
    var continuous = false
    var sensingSet = false
    var canvas: Bitmap?
  }

  private func command(
    _ line: String, at offset: Int, state: inout State, job: inout TSPLJob, drawing: Bool
  ) throws(TSPLDecodeError) {
    let (name, args) = split(line)
    switch name {
    case "SIZE":
      guard args.count == 2, let w = distanceMM(args[0]), let l = distanceMM(args[1]) else {
        throw TSPLDecodeError(offset: offset, message: "SIZE needs a width and a length")
      }
      state.widthMM = w
      state.lengthMM = l
    case "GAP":
      guard let gap = args.first.flatMap(distanceMM) else {
        throw TSPLDecodeError(offset: offset, message: "GAP needs a distance")
      }
      state.continuous = gap == 0
      state.sensingSet = true
    case "BLINE":
      state.continuous = false
      state.sensingSet = true
    case "CLS":
      if drawing { state.canvas = try canvas(state, at: offset) }
    case "PRINT":
      let counts = args.map { Int($0.trimmingSpaces) }
      let sets = counts.first ?? 1
      let each = counts.count > 1 ? counts[1] : 1
      guard let sets, let each, counts.count <= 2, (1...maxPages).contains(sets),
        (1...maxPages).contains(each)
      else {
        throw TSPLDecodeError(offset: offset, message: "PRINT counts out of range: \(line)")
      }
      guard let w = state.widthMM, let l = state.lengthMM else {
        throw TSPLDecodeError(offset: offset, message: "PRINT before SIZE")
      }
      guard job.pages.count < maxPages else {
        throw TSPLDecodeError(offset: offset, message: "more than \(maxPages) labels")
      }
      var image: Bitmap?
      if drawing {
        if let current = state.canvas {
          image = current
        } else {
          image = try canvas(state, at: offset)
        }
      }
      job.pages.append(
        TSPLPage(
          image: image,
          widthMM: w, lengthMM: l, continuous: state.continuous, sensingSet: state.sensingSet,
          copies: sets * each))
    default:
      break
    }
  }

  /// `BITMAP x,y,width_bytes,height,mode,` and its rows; returns where the rows start and
  /// the offset after them.
  private func bitmap(_ bytes: [UInt8], at start: Int, state: inout State, drawing: Bool)
    throws(TSPLDecodeError) -> (header: Int, end: Int)
  {
    var i = start + 6
    var fields: [Int] = []
    var current = ""
    while fields.count < 5 {
      guard i < bytes.count, current.utf8.count < 16 else {
        throw TSPLDecodeError(offset: start, message: "BITMAP header is cut short or malformed")
      }
      let b = bytes[i]
      i += 1
      if b == UInt8(ascii: ",") {
        guard let n = Int(current.trimmingSpaces), n >= 0 else {
          throw TSPLDecodeError(
            offset: start, message: "BITMAP field \"\(current)\" is not a count")
        }
        fields.append(n)
        current = ""
      } else {
        current.append(Character(Unicode.Scalar(b)))
      }
    }
    let (x, y, widthBytes, height, mode) = (fields[0], fields[1], fields[2], fields[3], fields[4])
    guard widthBytes <= maxWidth / 8 + 1, height <= maxLength, x <= maxWidth, y <= maxLength,
      mode <= 2
    else {
      throw TSPLDecodeError(offset: start, message: "BITMAP \(fields) is beyond what a label holds")
    }
    let count = widthBytes * height
    guard count <= bytes.count - i else {
      throw TSPLDecodeError(
        offset: start, message: "BITMAP promises \(count) bytes, \(bytes.count - i) follow")
    }
    if drawing {
      guard var canvas = state.canvas else {
        throw TSPLDecodeError(offset: start, message: "BITMAP before CLS")
      }
      for row in 0..<height {
        for column in 0..<widthBytes {
          let ink = ~bytes[i + row * widthBytes + column]
          for bit in 0..<8 {
            let px = x + column * 8 + bit
            let black = ink & (0x80 >> UInt8(bit)) != 0
            switch mode {
            case 0: canvas[px, y + row] = black
            case 1: if black { canvas[px, y + row] = true }
            default: if black { canvas[px, y + row] = !canvas[px, y + row] }
            }
          }
        }
      }
      state.canvas = canvas
    }
    return (i, i + count)
  }

  private func canvas(_ state: State, at offset: Int) throws(TSPLDecodeError) -> Bitmap {
    guard let w = state.widthMM, let l = state.lengthMM else {
      throw TSPLDecodeError(offset: offset, message: "CLS before SIZE")
    }
    let width = roundedClamped(w * Double(dpi) / 25.4, to: 0...maxWidth)
    let length = roundedClamped(l * Double(dpi) / 25.4, to: 0...maxLength)
    return Bitmap(width: width, height: length)
  }

  /// A `SIZE`/`GAP` distance in mm: "101.6 mm", "4" (inches), "812 dot".
  private func distanceMM(_ field: String) -> Double? {
    let parts = field.trimmingSpaces.split(separator: " ", omittingEmptySubsequences: true)
    guard let first = parts.first, let value = Double(first), value.isFinite, value >= 0,
      value < 100_000
    else { return nil }
    switch parts.count > 1 ? parts[1].lowercased() : "" {
    case "mm": return value
    case "dot": return value * 25.4 / Double(dpi)
    case "": return value * 25.4
    default: return nil
    }
  }

  private func split(_ line: String) -> (String, [String]) {
    let trimmed = line.trimmingSpaces
    guard let space = trimmed.firstIndex(of: " ") else { return (trimmed.uppercased(), []) }
    let name = String(trimmed[..<space]).uppercased()
    let args = trimmed[trimmed.index(after: space)...].split(separator: ",").map(String.init)
    return (name, args)
  }

  private func hasPrefix(_ bytes: [UInt8], at i: Int, _ word: String) -> Bool {
    let w = Array(word.utf8)
    return bytes.count - i > w.count && bytes[i..<(i + w.count)].elementsEqual(w)
      && bytes[i + w.count] == 0x20
  }

  private func skipLineEnd(_ bytes: [UInt8], at i: Int) -> Int {
    var j = i
    if j < bytes.count && bytes[j] == 0x0D { j += 1 }
    if j < bytes.count && bytes[j] == 0x0A { j += 1 }
    return j
  }

  private func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
  }
}
