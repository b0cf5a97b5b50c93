import LabelCore
import Testing

@testable import LabelLanguages

/// Every parser of what a printer sends back, fed valid replies with bytes changed, cut
/// short or repeated, and random bytes: Zebra's ~HS and ~HQES, Brother's status block (QL
/// and P-touch), each language driver's status scanner and fault reader, IEEE-1284 device
/// ids and the driver match made from them. Each gives a value or a typed error, never a trap, and
/// what it keeps is bounded by what it was given. Seeded: the same cases each run.
@Suite struct PrinterInputFuzzTests {
  typealias Generator = DecoderFuzzTests.Generator

  /// Every language's driver, on its default model.
  static func drivers() throws -> [any LanguageDriver] {
    try PrinterLanguage.allCases.map { language throws -> any LanguageDriver in
      try DriverTable.driver(for: language, settings: LabelSettings())
    }
  }

  /// A valid reply of each kind labeld reads, to mutate.
  static let replies: [[UInt8]] = [
    Array(hostStatus().utf8),
    Array(hostStatus(paperOut: 1, headUp: 1, remaining: "00000042").utf8),
    Array(extendedStatus(errors: "0 00000000 00000000").utf8),
    Array(extendedStatus(errors: "1 00000000 00000005", warnings: "1 00000000 00000002").utf8),
    brotherStatus(),
    brotherStatus(error1: 0x01, error2: 0x10, widthMM: 29, type: 0x0B, statusType: 0x02),
    Array(hostStatus().utf8) + brotherStatus() + Array(extendedStatus(errors: "0 0 0").utf8),
    ptStatus(error1: 0x09, error2: 0x30, widthMM: 4, type: 0xFF, statusType: 0x02, extended: 0x21),
  ]

  @Test func zebraReplies_areReadOrRefused() {
    var read = 0
    for (n, reply) in Self.replies.enumerated() {
      for bytes in DecoderFuzzTests.mutations(of: reply, seed: 100 + UInt64(n), count: 1500) {
        if let s = try? ZebraHostStatus(bytes) {
          read += 1
          #expect(s.fields.joined().count <= bytes.count)
          _ = s.reasons
        }
        if let s = try? ZebraExtendedStatus(bytes) {
          read += 1
          _ = s.reasons
        }
      }
    }
    #expect(read > 0, "no mutated reply was read: the mutations never reach the parsers")
  }

  @Test func brotherStatusBlocks_areReadOrRefused() {
    var read = 0
    var g = Generator(state: 7)
    for (n, reply) in Self.replies.enumerated() {
      for bytes in DecoderFuzzTests.mutations(of: reply, seed: 200 + UInt64(n), count: 1500) {
        if let s = try? BrotherQLStatus(bytes) {
          read += 1
          _ = s.reasons
          _ = s.mediaLoaded
        }
        if let s = try? BrotherPTStatus(bytes) {
          read += 1
          _ = s.reasons
          #expect(s.detail.count < 400)
        }
      }
    }
    // Status blocks of the right length and header, every other byte random.
    for _ in 0..<3000 {
      var block = (0..<32).map { _ in UInt8(g.below(256)) }
      block[0] = 0x80
      block[1] = 0x20
      if let s = try? BrotherQLStatus(block) {
        read += 1
        _ = s.reasons
      }
    }
    #expect(read > 0)
  }

  @Test func everyDriversStatusScanner_takesOnlyWhatItWasGiven() throws {
    for driver in try Self.drivers() {
      var seed: UInt64 = 300
      for reply in Self.replies {
        seed += 1
        for bytes in DecoderFuzzTests.mutations(of: reply, seed: seed, count: 600) {
          switch driver.scanStatus(bytes[...]) {
          case .status(_, let consumed), .unreadable(_, let consumed):
            #expect(consumed >= 1 && consumed <= bytes.count, "\(driver.model.name)")
          case .skip(let count):
            #expect(count >= 1 && count <= bytes.count, "\(driver.model.name)")
          case .needMore: break
          }
          _ = try? driver.faults(inStatus: bytes)
          #expect(driver.statusRepliesCarried(by: bytes) <= bytes.count + 1)
        }
      }
    }
  }

  @Test func deviceIDs_areReadWhateverTheyHold() {
    let ids = [
      "MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;CLS:PRINTER;",
      "MANUFACTURER:Zebra Technologies;COMMAND SET:ZPL;MODEL:ZTC GK420d;",
      "MFG:DYMO;CMD: ;MDL:LabelWriter 450;CLASS:PRINTER;DES:DYMO LabelWriter 450;",
    ]
    var matched = 0
    for (n, id) in ids.enumerated() {
      for bytes in DecoderFuzzTests.mutations(
        of: Array(id.utf8), seed: 400 + UInt64(n), count: 2000)
      {
        let text = String(decoding: bytes, as: UTF8.self)
        let parsed = DeviceID(text)
        // (Invalid UTF-8 became U+FFFD, three bytes each: the text is the bound.)
        #expect(parsed.fields.count <= text.utf8.count)
        for value in parsed.fields.values { #expect(value.utf8.count <= text.utf8.count) }
        if DriverTable.match(vendorID: nil, productID: nil, deviceID: parsed) != nil {
          matched += 1
        }
      }
    }
    #expect(matched > 0)
  }
}
