import LabelCore
import LabelTestKit
import Testing

@testable import LabelServer

/// The Unix socket's framing: `\n`-ended lines, however the bytes are split, and a line
/// over the limit refused as soon as it is known to be.
struct LineFramerTests {
  private func take(_ framer: inout LineFramer, _ bytes: [UInt8], into out: inout [Inbound])
    -> Framed
  {
    bytes.withUnsafeBytes { framer.take($0, into: &out) }
  }

  @Test func linesSplitAtEveryByte_comeOutWholeAndInOrder() {
    let text = Array("{\"a\":1}\n\n{\"b\":[2,3]}\nxyz\n".utf8)
    for cut in 0...text.count {
      var framer = LineFramer(maxMessageBytes: 100)
      var out: [Inbound] = []
      _ = take(&framer, Array(text[..<cut]), into: &out)
      _ = take(&framer, Array(text[cut...]), into: &out)
      #expect(
        out == [
          .message(Array("{\"a\":1}".utf8), wireBytes: 8), .message([], wireBytes: 1),
          .message(Array("{\"b\":[2,3]}".utf8), wireBytes: 12),
          .message(Array("xyz".utf8), wireBytes: 4),
        ], "cut at \(cut)")
      #expect(framer.partialBytes == 0)
    }
  }

  @Test func partialLine_isHeldUntilItEnds_andCanBeDropped() {
    var framer = LineFramer(maxMessageBytes: 100)
    var out: [Inbound] = []
    _ = take(&framer, Array("one\ntw".utf8), into: &out)
    #expect(out == [.message(Array("one".utf8), wireBytes: 4)])
    #expect(framer.partialBytes == 2)
    #expect(framer.dropPartial() == 2)
    #expect(framer.partialBytes == 0)
    _ = take(&framer, Array("o\n".utf8), into: &out)
    #expect(out.last == .message(Array("o".utf8), wireBytes: 2), "what was dropped is gone")
  }

  @Test func lineAtTheLimit_isTaken_oneByteMore_isRefusedWithEverythingAfterIt() {
    var framer = LineFramer(maxMessageBytes: 5)
    var out: [Inbound] = []
    let fits = take(&framer, Array("12345\n".utf8), into: &out)
    #expect(fits == Framed())
    #expect(out == [.message(Array("12345".utf8), wireBytes: 6)])
    out = []
    let refused = take(&framer, Array("ok\n123456\nlater\n".utf8), into: &out)
    #expect(
      out == [.message(Array("ok".utf8), wireBytes: 3), .refused(.messageTooLarge(limitBytes: 5))])
    #expect(refused == Framed(discarded: 13, ended: true), "the long line and all after it")
    let after = take(&framer, Array("more\n".utf8), into: &out)
    #expect(after == Framed(discarded: 5), "nothing is framed after a refusal")
    #expect(out.count == 2)
  }

  @Test func unendedLineOverTheLimit_isRefusedBeforeItsEnd() {
    var framer = LineFramer(maxMessageBytes: 5)
    var out: [Inbound] = []
    #expect(take(&framer, Array("12345".utf8), into: &out) == Framed())
    #expect(out.isEmpty)
    #expect(take(&framer, Array("6".utf8), into: &out) == Framed(discarded: 6, ended: true))
    #expect(out == [.refused(.messageTooLarge(limitBytes: 5))])
    #expect(framer.partialBytes == 0)
  }

  @Test func everyByteTaken_isEitherInAMessageOrDiscardedOrHeld() {
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<200 {
      var framer = LineFramer(maxMessageBytes: 16)
      var out: [Inbound] = []
      var fed = 0
      var discarded = 0
      for _ in 0..<20 {
        let count = generator.below(24)
        let bytes = (0..<count).map { _ in generator.below(5) == 0 ? 0x0A : UInt8(0x61) }
        fed += bytes.count
        discarded += take(&framer, bytes, into: &out).discarded
      }
      let framed = out.reduce(0) { total, inbound in
        if case .message(let line, let wire) = inbound {
          #expect(wire == line.count + 1)
          #expect(!line.contains(0x0A) && line.count <= 16)
          return total + wire
        }
        return total
      }
      #expect(framed + discarded + framer.partialBytes == fed)
    }
  }
}
