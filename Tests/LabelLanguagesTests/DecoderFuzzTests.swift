import LabelCore
import Testing

@testable import LabelLanguages

/// Bytes from outside reach the TSPL, EPL2 and DYMO LabelWriter decoders (a client's native document, read
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

  @Test func tsplDecoder_neverTraps() throws {
    var page = Bitmap(width: 64, height: 40)
    page.fill(x: 3, y: 3, width: 30, height: 20)
    let job = try TSPLDriver(model: DriverTable.genericTSPL).encode(
      pages: [page, page], media: Media(widthMM: 8, lengthMM: 5, kind: "labels"), dpi: 203)
    var decoded = 0
    for bytes in Self.mutations(of: job, seed: 15, count: 3000) {
      if let result = try? TSPLDecoder(dpi: 203).decode(bytes) {
        decoded += 1
        #expect(result.pages.count <= 100_000)
      }
      _ = try? TSPLDriver(model: DriverTable.genericTSPL).jobFacts(bytes)
    }
    #expect(decoded > 0)  // some mutations stay valid: the decoder was exercised both ways
  }

  @Test func epl2Decoder_neverTraps() throws {
    var page = Bitmap(width: 64, height: 40)
    page.fill(x: 3, y: 3, width: 30, height: 20)
    let job = try EPL2Driver(model: DriverTable.genericEPL2).encode(
      pages: [page, page], media: Media(widthMM: 8, lengthMM: 5, kind: "labels"), dpi: 203)
    var decoded = 0
    for bytes in Self.mutations(of: job, seed: 16, count: 3000) {
      if let result = try? EPL2Decoder().decode(bytes) {
        decoded += 1
        #expect(result.pages.count <= 100_000)
      }
      _ = try? EPL2Driver(model: DriverTable.genericEPL2).jobFacts(bytes)
    }
    #expect(decoded > 0)
  }

  @Test func dymoLWDecoder_neverTraps() throws {
    var page = Bitmap(width: 96, height: 40)
    page.fill(x: 3, y: 3, width: 60, height: 20)
    page.fill(x: 70, y: 10, width: 1, height: 5)
    let driver = try DymoLWDriver(
      model: #require(DriverTable.model(named: "DYMO LabelWriter 450", language: .dymoLW)))
    let job = try driver.encode(
      pages: [page, page], media: Media(widthMM: 8, lengthMM: 5, kind: "labels"), dpi: 300)
    var decoded = 0
    for bytes in Self.mutations(of: job, seed: 18, count: 3000) {
      if let result = try? DymoLWDecoder().decode(bytes) {
        decoded += 1
        #expect(result.pages.count <= 100_000)
      }
      _ = driver.jobFacts(bytes)
    }
    #expect(decoded > 0)
  }

  @Test func dymoLW5Decoder_neverTraps() throws {
    var page = Bitmap(width: 96, height: 40)
    page.fill(x: 3, y: 3, width: 60, height: 20)
    let driver = try DymoLW5Driver(
      model: #require(DriverTable.model(named: "DYMO LabelWriter 550", language: .dymoLW5)))
    let job = try driver.encode(
      pages: [page, page], media: Media(widthMM: 8, lengthMM: 5, kind: "labels"), dpi: 300)
    var decoded = 0
    for bytes in Self.mutations(of: job, seed: 19, count: 3000) {
      if let result = try? DymoLW5Decoder().decode(bytes) {
        decoded += 1
        #expect(result.pages.count <= 100_000)
      }
      _ = driver.jobFacts(bytes)
      #expect(driver.statusRepliesCarried(by: bytes) <= 1000)
    }
    #expect(decoded > 0)
  }

  @Test func statusParsers_neverTrap() throws {
    var g = Generator(state: 17)
    let tspl = try TSPLDriver(model: DriverTable.genericTSPL)
    let epl2 = try EPL2Driver(model: DriverTable.genericEPL2)
    let dymo = try DymoLWDriver(
      model: #require(DriverTable.model(named: "DYMO LabelWriter 450", language: .dymoLW)))
    let dymo5 = try DymoLW5Driver(
      model: #require(DriverTable.model(named: "DYMO LabelWriter 550", language: .dymoLW5)))
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
    }
  }
}
