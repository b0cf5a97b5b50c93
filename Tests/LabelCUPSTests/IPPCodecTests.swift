import Foundation
import LabelTestKit
import Testing

@testable import LabelCUPS

/// IPP through libcups's reader and writer: every syntax labeld answers with comes back as
/// written; `IPPFraming` finds where the attributes end however the bytes arrive, and stops
/// what libcups 2.4.2 cannot bear (collections nested past 10 crash its reader).
@Suite struct IPPCodecTests {
  static let sample = IPPMessage(
    major: 2, minor: 0, code: 0x000B, requestID: 42,
    groups: [
      IPPAttributeGroup(
        .operation,
        [
          IPPAttribute("attributes-charset", .charset("utf-8")),
          IPPAttribute("attributes-natural-language", .naturalLanguage("en")),
          IPPAttribute("printer-uri", .uri("ipp://localhost/ipp/print/sim:zebra")),
          IPPAttribute("requested-attributes", [.keyword("all"), .keyword("media-col-database")]),
        ]),
      IPPAttributeGroup(
        .printer,
        [
          IPPAttribute("printer-name", .name("zebra")),
          IPPAttribute("printer-info", .text("A Zebra, simulated")),
          IPPAttribute("printer-state", .enumeration(3)),
          IPPAttribute("copies-supported", .range(1, 999)),
          IPPAttribute("color-supported", .boolean(false)),
          IPPAttribute("queued-job-count", .integer(0)),
          IPPAttribute("printer-resolution-supported", .resolution(x: 203, y: 203, perInch: true)),
          IPPAttribute(
            "document-format-supported",
            [.mimeMediaType("image/png"), .mimeMediaType("application/pdf")]),
          IPPAttribute("printer-current-time", .dateTime(1_765_000_000)),
          IPPAttribute("printer-alert", .octetString(Array("code=mediaEmpty".utf8))),
          IPPAttribute(
            "media-col-database",
            [
              .collection([
                IPPAttribute(
                  "media-size",
                  .collection([
                    IPPAttribute("x-dimension", .integer(5080)),
                    IPPAttribute("y-dimension", .integer(2540)),
                  ])),
                IPPAttribute("media-top-margin", .integer(0)),
              ]),
              .collection([
                IPPAttribute(
                  "media-size",
                  .collection([
                    IPPAttribute("x-dimension", .integer(6200)),
                    IPPAttribute("y-dimension", .range(2540, 100_000)),
                  ]))
              ]),
            ]),
          IPPAttribute("printer-more-info", .outOfBand(.unknown)),
        ]),
      IPPAttributeGroup(.job, [IPPAttribute("job-id", .integer(1))]),
      IPPAttributeGroup(.job, [IPPAttribute("job-id", .integer(2))]),
    ])

  @Test func everySyntax_comesBackAsWritten() throws {
    let back = try IPPCodec.roundTrip(Self.sample)
    #expect(back == Self.sample)
  }

  @Test func framing_findsTheEnd_howeverTheBytesArrive() throws {
    let bytes = try IPPCodec.encode(Self.sample) + Array("%PDF-1.7 the document".utf8)
    let end = bytes.count - 21
    for step in [1, 2, 3, 7, 64, bytes.count] {
      var framing = IPPFraming()
      var seen: [UInt8] = []
      var outcome = IPPFraming.Outcome.needMore
      var at = 0
      while at < bytes.count, outcome == .needMore {
        seen += bytes[at..<min(at + step, bytes.count)]
        at += step
        outcome = framing.scan(seen)
      }
      #expect(outcome == .complete(end: end), "step \(step)")
    }
    #expect(try IPPCodec.decode(bytes[..<end]) == Self.sample)
  }

  /// Collections nested 100,000 deep: refused by the framing before libcups sees them (a C
  /// program handing the same bytes to Debian's libcups 2.4.2 died of SIGSEGV).
  @Test func deepCollections_areRefused_beforeLibcupsReadsThem() {
    var bytes: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01]
    bytes += [0x34, 0, 1, 0x63, 0, 0]
    for _ in 1..<100_000 { bytes += [0x4A, 0, 0, 0, 1, 0x78, 0x34, 0, 0, 0, 0] }
    for _ in 0..<100_000 { bytes += [0x37, 0, 0, 0, 0] }
    bytes.append(0x03)
    var framing = IPPFraming(maxBytes: 4 << 20)
    #expect(framing.scan(bytes) == .refused("collections nest more than 10 deep"))
    var shallow = IPPFraming()
    let ten =
      [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01, 0x34, 0, 1, 0x63, 0, 0] as [UInt8]
      + Array(repeating: [0x4A, 0, 0, 0, 1, 0x78, 0x34, 0, 0, 0, 0] as [UInt8], count: 9).flatMap {
        $0
      }
      + Array(repeating: [0x37, 0, 0, 0, 0] as [UInt8], count: 10).flatMap { $0 } + [0x03]
    guard case .complete(let end) = shallow.scan(ten) else {
      Issue.record("ten levels are allowed")
      return
    }
    #expect(throws: Never.self) { _ = try IPPCodec.decode(ten[..<end]) }
  }

  /// A review found a message that the framing read one way and Debian's libcups
  /// another: tag 0x7F (which the framing took as an extension with a 4-byte tag and
  /// libcups as a one-byte value tag) put thousands of begCollections where the framing
  /// saw a name; 95 KB of it crashed labeld. Such tags are refused now, and a property
  /// holds for that message and its mutations: whatever the framing lets through, libcups
  /// reads with collections at most 10 deep.
  @Test func aMessageTheFramingReadsDifferently_isRefused() throws {
    let unit: [UInt8] = [0x34, 0, 0, 0, 0, 0x4A, 0, 0, 0, 1, 0x58]
    func attribute(_ tag: UInt8, _ name: String, _ value: [UInt8] = []) -> [UInt8] {
      [tag, UInt8(name.utf8.count >> 8), UInt8(name.utf8.count & 0xFF)] + Array(name.utf8)
        + [UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }
    var bytes: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01]
    bytes += attribute(0x47, "attributes-charset", Array("utf-8".utf8))
    bytes += attribute(0x48, "attributes-natural-language", Array("en".utf8))
    bytes += attribute(0x34, "a") + attribute(0x4A, "", [0x62])
    // As the framing read it: 7F, a 4-byte tag, a name 0x4A00 bytes long, a value; as
    // libcups reads it: a 7F value, a member name, then nested collections.
    bytes += [0x7F, 0, 0, 0, 0, 0x4A, 0, 0, 0, 1, 0x63]
    for _ in 0..<2000 { bytes += unit }
    bytes += attribute(0x21, "", [0, 0, 0, 1]) + [0x03]
    var framing = IPPFraming()
    guard case .refused = framing.scan(bytes) else {
      Issue.record("the framing let it through")
      return
    }
    func depth(_ values: [IPPValue]) -> Int {
      values.map { value in
        guard case .collection(let members) = value else { return 0 }
        return 1 + (members.map { depth($0.values) }.max() ?? 0)
      }.max() ?? 0
    }
    var g = SeededGenerator(seed: 11)
    for _ in 0..<2000 {
      var mutated = bytes
      for _ in 0..<Int.random(in: 1...4, using: &g) {
        let i = Int.random(in: 8..<mutated.count, using: &g)
        mutated[i] = [0x34, 0x37, 0x4A, 0x7F, 0x00, 0x03, 0x01][Int.random(in: 0...6, using: &g)]
      }
      var f = IPPFraming()
      guard case .complete(let end) = f.scan(mutated),
        let message = try? IPPCodec.decode(mutated[..<end])
      else { continue }
      let deepest = message.groups.flatMap(\.attributes).map { depth($0.values) }.max() ?? 0
      #expect(deepest <= IPPFraming.maxDepth)
    }
  }

  @Test func attributesPastTheBound_andNonsense_areRefused() throws {
    var big = IPPFraming(maxBytes: 1000)
    let long = IPPMessage(
      major: 2, minor: 0, code: 2, requestID: 1,
      groups: [
        IPPAttributeGroup(
          .operation,
          (0..<100).map { IPPAttribute("attr-\($0)", .text(String(repeating: "x", count: 50))) })
      ])
    #expect(
      big.scan(try IPPCodec.encode(long))
        == .refused("the request's attributes take more than 1000 bytes"))
    // Any version frames (IPP 0.0 is answered server-error-version-not-supported).
    var zero = IPPFraming()
    #expect(zero.scan([0, 0, 0, 2, 0, 0, 0, 1, 3]) == .complete(end: 9))
    // Bytes that frame but do not parse (a value length past its tag's syntax).
    let bad: [UInt8] = [2, 0, 0, 2, 0, 0, 0, 1, 0x01, 0x21, 0, 1, 0x61, 0, 3, 1, 2, 3, 0x03]
    var framing = IPPFraming()
    guard case .complete(let end) = framing.scan(bad) else {
      Issue.record("it frames")
      return
    }
    #expect(throws: IPPCodec.DecodeError.self) { _ = try IPPCodec.decode(bad[..<end]) }
  }

  /// Random bytes and mutations of a real request never trap the framing or the reader.
  @Test func mutatedRequests_neverTrap() throws {
    let base = try IPPCodec.encode(Self.sample)
    var g = SeededGenerator(seed: 7)
    for _ in 0..<3000 {
      var bytes = base
      for _ in 0..<Int.random(in: 1...8, using: &g) {
        let i = Int.random(in: 0..<bytes.count, using: &g)
        switch Int.random(in: 0...2, using: &g) {
        case 0: bytes[i] = UInt8.random(in: 0...255, using: &g)
        case 1: bytes.insert(UInt8.random(in: 0...255, using: &g), at: i)
        default: bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...20, using: &g)))
        }
        if bytes.count < 2 { bytes = base }
      }
      var framing = IPPFraming()
      if case .complete(let end) = framing.scan(bytes) {
        _ = try? IPPCodec.decode(bytes[..<end])
      }
    }
  }
}
