import Foundation
import LabelCore
import Testing

@testable import LabelLanguages

/// labelle (PyPI 1.5.0, `make peers`) as a second opinion on the LabelManager PnP's
/// stream, beside DYMO's own filter (`DymoLMFilterPeerTests`): labelle's own stream builder
/// (`DymoLabeler.print`, with a stand-in USB device that keeps what is written and answers
/// `ESC A` as an idle PnP) turns the same label into its bytes; decoded with labeld's
/// decoder, they put the same dots on the same head dots as labeld's. Its stream differs
/// from DYMO's and labeld's:
/// - no NUL bytes first, no leader, no trailer, no feed to the cutter: it sends the
///   image's lines only (its margins are in the image);
/// - one `ESC D` for the job and every line whole (white ones as `SYN` + 8 zero bytes)
///   at dot tab 0, where DYMO trims each line's white bytes with `ESC B` / `ESC D`;
/// - `ESC C 0` and two `ESC A` for every 200 lines (it splits a label into 200-line
///   parts), and an `ESC A` before each 64 lines sent, whose answer it waits for. It
///   counts every 0x16 byte it sends as a line there, so an image byte of 0x16 can put an
///   `ESC A` between a `SYN` and its line (seen with labelle 1.5.0): the page here has none;
/// - on 6 mm tape it puts its 32-dot image on head dots 0–31, where DYMO's filter centres
///   the 45-dot page at dots 8–52; on 9 and 12 mm both start at dot 0 (labelle's image is
///   48 or 64 dots, DYMO keeps the page's first 64 columns).
@Suite(
  .enabled(if: PeerPython.interpreter("labelle") != nil, "labelle not installed: run `make peers`"))
struct DymoLMLabellePeerTests {
  /// labelle's stream for a head-orientation image on stdin (tape, width, height, then
  /// packed rows, 1 = burn), turned into labelle's label orientation with the inverse of
  /// labelle's own quarter turn.
  static let script = """
    import sys, struct
    from PIL import Image
    from labelle.lib.devices.dymo_labeler import DymoLabeler
    data = sys.stdin.buffer.read()
    tape, width, height = struct.unpack('<III', data[:12])
    head = Image.frombytes('1', (width, height), data[12:])
    label = head.transpose(Image.Transpose.ROTATE_90)
    class Out:
        def __init__(self): self.data = bytearray()
        def write(self, b): self.data += bytes(b); return len(b)
    class In:
        def read(self, n): return bytes([0x40, 0, 2, 100, 13, 186, 0, 0])
    class Device:
        def __init__(self): self.devout = Out(); self.devin = In()
        def dispose(self): pass
    labeler = DymoLabeler(tape_size_mm=tape)
    device = Device()
    labeler._device = device
    labeler.print(label)
    sys.stdout.buffer.write(bytes(device.devout.data))
    """

  static func labelle(_ head: Bitmap, tape: DymoLMTape) throws -> [UInt8] {
    let python = try #require(PeerPython.interpreter("labelle"))
    var input = Data()
    for v in [UInt32(tape.widthMM), UInt32(head.width), UInt32(head.height)] {
      withUnsafeBytes(of: v.littleEndian) { input.append(contentsOf: $0) }
    }
    input.append(contentsOf: head.bytes)
    return [UInt8](try PeerPython.run(python, script, input: input))
  }

  /// The rows `range` of `image`.
  static func rows(_ image: Bitmap, _ range: Range<Int>) -> Bitmap {
    var out = Bitmap(width: image.width, height: range.count)
    for y in range {
      for x in 0..<image.width where image[x, y] { out[x, y - range.lowerBound] = true }
    }
    return out
  }

  @Test func labelle_putsTheSameDotsOnThePnPsHead() throws {
    let driver: DymoLMDriver = try languageDriver("DYMO LabelManager PnP", .dymoLM)
    for (tape, labelleDots, columns) in [
      (DymoLMTape.mm12, 64, 64), (.mm9, 48, 48), (.mm6, 32, 24),
    ] {
      let media = Media(widthMM: Double(tape.widthMM), lengthMM: 0, kind: "tape")
      let width = min(try #require(try driver.pageArea(media: media, dpi: 180).width), columns)
      // 300 lines: labelle sends them as two parts (200 lines at most each). Edge columns,
      // a block and noise; no byte 0x16.
      var page = noise(width: width, height: 300, seed: 3, density: 3, skipping: { $0 % 9 == 4 })
      page.fill(x: 0, y: 20, width: 1, height: 30)
      page.fill(x: width - 1, y: 20, width: 1, height: 30)
      page.fill(x: width / 4, y: 60, width: width / 2, height: 25)
      page = Bitmap(
        width: width, height: 300, bytes: page.bytes.map { $0 == 0x16 ? 0x17 : $0 })
      // labelle's image: the page where DYMO's filter puts it on the head.
      let shift = driver.printer.placement(for: tape).shift
      var head = Bitmap(width: labelleDots, height: 300)
      for y in 0..<300 { for x in 0..<width where page[x, y] { head[x + shift, y] = true } }
      let decoder = DymoLMDecoder(headDots: 64)
      let theirs = try decoder.decode(try Self.labelle(head, tape: tape))
      #expect(theirs.statusRequests >= 4 && theirs.tapeColour == 0 && theirs.pages.count == 1)
      let theirImage = try #require(theirs.pages.first?.image)
      #expect(theirImage.height == 300 && theirImage.blackCount > 100)
      let ours = try decoder.decode(driver.encode(pages: [page], media: media, dpi: 180))
      let ourImage = try #require(ours.pages.first?.image)
      let leader = driver.printer.normalLeader - driver.printer.cutterLines
      #expect(Self.rows(ourImage, leader..<(leader + 300)) == theirImage, "\(tape)")
    }
  }
}
