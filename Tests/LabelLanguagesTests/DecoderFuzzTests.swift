import LabelCore
import Testing

@testable import LabelLanguages

/// Bytes from outside reach the TSPL, EPL2, DYMO LabelWriter, P-touch and LabelManager
/// decoders (a client's native document, read
/// for its facts): random bytes, and valid jobs with bytes flipped, cut or repeated, must
/// each give a typed error or a bounded job, never a trap. Seeded: the same cases each run.
@Suite struct DecoderFuzzTests {
  struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 33
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
  }

  static func mutations(of job: [UInt8], seed: UInt64, count: Int) -> [[UInt8]] {
    var g = Generator(state: seed)
    var out: [[UInt8]] = []
    let alphabet = Array("0123456789,-. \n\rGWBITMAPSIZEGAPCLSPRINTNqQDmm".utf8)
    for _ in 0..<count {
      var bytes = job
      switch g.below(4) {
      case 0:  // flip a few bytes, often into command characters
        for _ in 0..<(1 + g.below(6)) where !bytes.isEmpty {
          bytes[g.below(bytes.count)] =
            g.below(2) == 0 ? alphabet[g.below(alphabet.count)] : UInt8(g.below(256))
        }
      case 1:  // cut short
        bytes = Array(bytes.prefix(g.below(bytes.count + 1)))
      case 2:  // a slice repeated
        let a = g.below(bytes.count)
        let b = min(bytes.count, a + g.below(64))
        bytes.insert(contentsOf: bytes[a..<b], at: g.below(bytes.count + 1))
      default:  // random bytes
        bytes = (0..<g.below(512)).map { _ in
          g.below(3) == 0 ? alphabet[g.below(alphabet.count)] : UInt8(g.below(256))
        }
      }
      out.append(bytes)
    }
    return out
  }

  /// Encodes two copies of `page` as a job of `driver`, mutates it 3000 times from `seed`
  /// and reads each mutation back: `decode` (the decoder's page count) gives a bounded job
  /// or a typed error, `alsoRead` whatever else reads a client's job (job facts). Some
  /// mutations stay valid: the decoder was exercised both ways.
  static func fuzz<D: LanguageDriver>(
    _ driver: D, page: Bitmap, dpi: Int, seed: UInt64,
    media: Media = Media(widthMM: 8, lengthMM: 5, kind: "labels"),
    decode: ([UInt8]) throws -> Int, alsoRead: (D, [UInt8]) -> Void = { _, _ in }
  ) throws {
    let job = try driver.encode(pages: [page, page], media: media, dpi: dpi)
    var decoded = 0
    for bytes in mutations(of: job, seed: seed, count: 3000) {
      if let pages = try? decode(bytes) {
        decoded += 1
        #expect(pages <= 100_000)
      }
      _ = driver.jobFacts(bytes)
      alsoRead(driver, bytes)
    }
    #expect(decoded > 0)
  }

  static func page(width: Int) -> Bitmap {
    var page = Bitmap(width: width, height: 40)
    page.fill(x: 3, y: 3, width: width / 2, height: 20)
    return page
  }

  @Test func tsplDecoder_neverTraps() throws {
    try Self.fuzz(
      TSPLDriver(model: DriverTable.genericTSPL), page: Self.page(width: 64), dpi: 203, seed: 15
    ) { try TSPLDecoder(dpi: 203).decode($0).pages.count }
  }

  @Test func epl2Decoder_neverTraps() throws {
    try Self.fuzz(
      EPL2Driver(model: DriverTable.genericEPL2), page: Self.page(width: 64), dpi: 203, seed: 16
    ) { try EPL2Decoder().decode($0).pages.count }
  }

  @Test func dymoLWDecoder_neverTraps() throws {
    var page = Self.page(width: 96)
    page.fill(x: 70, y: 10, width: 1, height: 5)
    let driver: DymoLWDriver = try languageDriver("DYMO LabelWriter 450", .dymoLW)
    try Self.fuzz(driver, page: page, dpi: 300, seed: 18) {
      try DymoLWDecoder().decode($0).pages.count
    }
  }

  @Test func dymoLW5Decoder_neverTraps() throws {
    let driver: DymoLW5Driver = try languageDriver("DYMO LabelWriter 550", .dymoLW5)
    try Self.fuzz(
      driver, page: Self.page(width: 96), dpi: 300, seed: 19,
      decode: { try DymoLW5Decoder().decode($0).pages.count },
      alsoRead: { driver, bytes in #expect(driver.statusRepliesCarried(by: bytes) <= 1000) })
  }

  @Test func brotherPTDecoder_neverTraps() throws {
    for (name, dpi, seed) in [("PT-P700", 180, UInt64(20)), ("PT-P900W", 360, 21)] {
      let driver: BrotherPTDriver = try languageDriver(name, .brotherPT)
      let decoder = BrotherPTRasterDecoder(model: driver.pt)
      try Self.fuzz(
        driver, page: Self.page(width: 70), dpi: dpi, seed: seed,
        media: Media(widthMM: 12, lengthMM: 0, kind: "tape"),
        decode: { bytes in
          let job = try decoder.decode(bytes)
          // Every kept line is the head's width, whatever the bytes said.
          #expect(job.pages.allSatisfy { $0.lines.allSatisfy { $0.count == decoder.bytesPerLine } })
          return job.pages.count
        },
        alsoRead: { driver, bytes in
          #expect(driver.jobFacts(bytes).pages <= bytes.count + 1)
          _ = try? decoder.decode(bytes, keepingLines: false)
        })
    }
  }

  @Test func dymoLMDecoder_neverTraps() throws {
    var page = Self.page(width: 64)
    page.fill(x: 60, y: 10, width: 1, height: 5)
    // The 420P's chain marks between labels, the 400's cuts; a decoder held to the head.
    for (name, seed) in [("DYMO LabelManager 420P", UInt64(20)), ("DYMO LabelManager 400", 21)] {
      let driver: DymoLMDriver = try languageDriver(name, .dymoLM)
      try Self.fuzz(
        driver, page: page, dpi: 180, seed: seed, media: Media(widthMM: 12, lengthMM: 0),
        decode: { try DymoLMDecoder(headDots: driver.printer.headDots).decode($0).pages.count },
        alsoRead: { _, bytes in _ = try? DymoLMDecoder().decode(bytes, drawing: false) })
    }
  }

  @Test func statusParsers_neverTrap() throws {
    var g = Generator(state: 17)
    let tspl = try TSPLDriver(model: DriverTable.genericTSPL)
    let epl2 = try EPL2Driver(model: DriverTable.genericEPL2)
    let dymo: DymoLWDriver = try languageDriver("DYMO LabelWriter 450", .dymoLW)
    let dymo5: DymoLW5Driver = try languageDriver("DYMO LabelWriter 550", .dymoLW5)
    let pt: BrotherPTDriver = try languageDriver("PT-P750W", .brotherPT)
    let pnp: DymoLMDriver = try languageDriver("DYMO LabelManager PnP", .dymoLM)
    let lm400: DymoLMDriver = try languageDriver("DYMO LabelManager 400", .dymoLM)
    for _ in 0..<3000 {
      let bytes = (0..<g.below(40)).map { _ in UInt8(g.below(256)) }
      _ = tspl.scanStatus(bytes[...])
      _ = epl2.scanStatus(bytes[...])
      _ = try? tspl.faults(inStatus: bytes)
      _ = try? epl2.faults(inStatus: bytes)
      _ = dymo.scanStatus(bytes[...])
      _ = try? dymo.faults(inStatus: bytes)
      _ = dymo5.scanStatus(bytes[...])
      _ = try? dymo5.faults(inStatus: bytes)
      _ = pt.scanStatus(bytes[...])
      _ = try? pt.faults(inStatus: bytes)
      for lm in [pnp, lm400] {
        if case .status(let status, let consumed) = lm.scanStatus(bytes[...]) {
          #expect(consumed == DymoLMStatus.replyLength && status.faults.count <= 4)
        }
        _ = try? lm.faults(inStatus: bytes)
      }
    }
    // Replies with the header and every other byte random: each typed, never a trap.
    for _ in 0..<3000 {
      let reply = BrotherStatusBlock.header + (0..<29).map { _ in UInt8(g.below(256)) }
      let status = try BrotherPTStatus(reply)
      #expect(status.detail.count < 400)
      guard case .status(let s, 32) = pt.scanStatus(reply[...]) else {
        Issue.record("a well-framed reply was not read")
        return
      }
      #expect(s.faults.count <= Reason.allCases.count)
    }
  }
}
