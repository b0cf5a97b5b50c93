import LabelCore

/// One label of a LabelWriter 550 job: its `ESC D` block (1 = black).
public struct DymoLW5Page: Sendable, Equatable {
  public var image: Bitmap?
  /// `ESC n`: the label's index in its job.
  public var index: Int
  /// `ESC L FF FF` (or any negative length) before it: continuous tape.
  public var continuous: Bool
}

public struct DymoLW5Job: Sendable, Equatable {
  /// `ESC s`: nil when the job did not start with one.
  public var jobID: UInt32?
  public var pages: [DymoLW5Page]
  /// The `ESC A` requests it carries, each answered by 32 status bytes.
  public var statusRequests: Int
  /// `ESC Q` came: the printer is released.
  public var ended: Bool
  public var density: DymoLWDensity?
}

/// Reads what LabelWriter 550/550 Turbo/5XL printers take (LW 550 Series Technical
/// Reference, "Print Job Commands": the commands `DymoLW5Encoder` lists, with `ESC C n`
/// density in percent, `ESC T` speed, `ESC M` media type, `ESC q` roll, `ESC o`, `ESC U`/
/// `ESC V` requests and `ESC @` restart, which draw nothing). A label's data is its
/// `ESC D` block; bytes from outside are read with limits and nothing traps.
public struct DymoLW5Decoder: Sendable {
  public var maxLines = 65_536
  public var maxDots = 4096
  public var maxPages = 100_000
  /// The most bytes of page images one decode draws, all pages together.
  public var maxImageBytes = 64 << 20

  public init() {}

  public func decode(_ bytes: [UInt8], drawing: Bool = true) throws(DymoLWDecodeError)
    -> DymoLW5Job
  {
    var job = DymoLW5Job(jobID: nil, pages: [], statusRequests: 0, ended: false, density: nil)
    var continuous = false
    var index = 0
    var drawn = 0
    var i = 0
    func fail(_ message: String) -> DymoLWDecodeError {
      DymoLWDecodeError(offset: i, message: "LW 550: " + message)
    }
    func need(_ count: Int) throws(DymoLWDecodeError) {
      guard bytes.count - i >= count else { throw fail("command cut short") }
    }
    func le(_ at: Int, _ count: Int) -> Int {
      (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
    while i < bytes.count {
      guard bytes[i] == 0x1B else {
        if bytes[i] == 0x00 {
          i += 1
          continue
        }
        throw fail("byte \(hexByte(bytes[i])) outside a command")
      }
      i += 1
      try need(1)
      let command = bytes[i]
      i += 1
      switch command {
      case 0x1B: i -= 1
      case 0x73:  // ESC s: job id
        try need(4)
        job.jobID = UInt32(le(i, 4))
        i += 4
      case 0x41:  // ESC A n: status request
        try need(1)
        job.statusRequests += 1
        i += 1
      case 0x4C:  // ESC L: label length; negative is continuous
        try need(2)
        continuous = le(i, 2) >= 0x8000
        i += 2
      case 0x6E:  // ESC n: label index
        try need(2)
        index = le(i, 2)
        i += 2
      case 0x44:  // ESC D bpp align lines dots, then the block
        try need(10)
        guard bytes[i] == 1 else { throw fail("ESC D with \(bytes[i]) bits per dot") }
        let lines = le(i + 2, 4)
        let dots = le(i + 6, 4)
        i += 10
        guard lines <= maxLines, dots <= maxDots else {
          throw fail("ESC D block of \(lines) lines x \(dots) dots is too large")
        }
        let perLine = (dots + 7) / 8
        try need(lines * perLine)
        guard job.pages.count < maxPages else { throw fail("more than \(maxPages) labels") }
        var image: Bitmap?
        if drawing {
          drawn += lines * perLine
          guard drawn <= maxImageBytes else {
            throw fail("the labels' images pass \(maxImageBytes) bytes")
          }
          image = Bitmap(
            width: perLine * 8, height: lines, bytes: Array(bytes[i..<(i + lines * perLine)]))
        }
        i += lines * perLine
        job.pages.append(DymoLW5Page(image: image, index: index, continuous: continuous))
      case 0x43, 0x54, 0x71, 0x6F:  // density %, speed, roll, label count: one byte
        try need(1)
        i += 1
      case 0x4D:  // ESC M: media type, 8 bytes
        try need(8)
        i += 8
      case 0x63, 0x64, 0x65, 0x67:
        job.density = DymoLWDensity.allCases.first { $0.command == command }
      case 0x68, 0x69, 0x47, 0x45, 0x40, 0x55, 0x56, 0x2A: break
      case 0x51: job.ended = true
      default: throw fail("unknown command ESC \(hexByte(command))")
      }
    }
    return job
  }
}
