import LabelCore
import Testing

@testable import LabelLanguages

/// EPL2: the bytes a page becomes (checked against the Zebra EPL2 Programming Guide by
/// hand), what they decode back to, LPrint's dialect, the `^ee` error report, and the
/// driver's rows.
@Suite struct EPL2Tests {
  static func driver(_ name: String = "Generic EPL2 printer", settings: LabelSettings = .init())
    throws -> EPL2Driver
  {
    try languageDriver(name, .epl2, settings: settings)
  }

  @Test func goldenBytes_mediaThenTheInkedRowsAsGraphics() throws {
    // 10 x 4 dots: row 1 has dots 0 and 9 black, row 2 dot 1; rows 0 and 3 are white.
    var page = Bitmap(width: 10, height: 4)
    page[0, 1] = true
    page[9, 1] = true
    page[1, 2] = true
    let bytes = try Self.driver(settings: LabelSettings(darkness: 9)).encode(
      pages: [page], media: Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels"), dpi: 203)
    // q812 (4 in), Q1218,24 (6 in, a 3 mm gap), D9, one GW for rows 1-2 (0 bits black,
    // pad bits white), P1.
    let expected =
      Array("\nN\nq812\nQ1218,24\nD9\nGW0,1,2,2\n".utf8) + [0x7F, 0xBF, 0xBF, 0xFF]
      + Array("\nP1\n".utf8)
    #expect(bytes == expected)
    // Continuous media: Q with a gap of 0 and the image's length; unknown media: no Q.
    let roll = String(
      decoding: try Self.driver().encode(
        pages: [page], media: Media(widthMM: 50.8, lengthMM: 0, kind: "continuous"), dpi: 203),
      as: UTF8.self)
    #expect(roll.hasPrefix("\nN\nq406\nQ4,0\nGW"))
    let unknown = String(
      decoding: try Self.driver().encode(
        pages: [page], media: Self.driver().assumedMedia(labelWidthMM: nil), dpi: 203),
      as: UTF8.self)
    #expect(unknown.hasPrefix("\nN\nq10\nGW") && !unknown.contains("Q"))
  }

  @Test func pages_decodeBackToTheSameDots() throws {
    // some white rows between the runs
    let page = noise(width: 812, height: 1218, seed: 99, density: 4, skipping: { $0 % 7 == 3 })
    let driver = try Self.driver()
    let media = Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels")
    let bytes = try driver.encode(pages: [page, page], media: media, dpi: 203)
    let job = try EPL2Decoder().decode(bytes)
    #expect(job.pages.map(\.image) == [page, page])
    #expect(
      job.pages.allSatisfy { $0.widthDots == 812 && $0.lengthDots == 1218 && $0.gapDots == 24 })
    let facts = driver.jobFacts(bytes)
    #expect(
      facts == JobFacts(pages: 2, wants: MediaWant(dieCut: true, widthMM: 101.6, lengthMM: 152.4)))
    #expect(facts.mismatch(loaded: media) == nil)
  }

  /// LPrint 1.1's `epl2_*` drivers (lprint-epl2.c, and the bytes Debian's lprint writes):
  /// a leading LF, `N`, `D`, `q`, one `GW0,y,bytes,1` per inked line (white = 1), `P1`,
  /// and no `Q`.
  @Test func lprintsDialect_decodesToTheSameDots() throws {
    let job =
      Array("\nN\nD0\nq16\nGW0,5,2,1\n".utf8) + [0x00, 0xFF] + Array("\nGW0,6,2,1\n".utf8)
      + [0xFF, 0x0F] + Array("\nP1\n".utf8)
    let decoded = try EPL2Decoder().decode(job, keepingCommands: true)
    let image = try #require(decoded.pages.first?.image)
    #expect(decoded.pages.count == 1 && decoded.pages[0].lengthDots == nil)
    #expect(image.width == 16 && image.height == 7)  // as far as the graphics reach
    let black = (0..<7).flatMap { y in (0..<16).filter { image[$0, y] }.map { "\($0),\(y)" } }
    #expect(black == (0..<8).map { "\($0),5" } + (8..<12).map { "\($0),6" })
    #expect(decoded.commands == ["N", "D0", "q16", "GW0,5,2,1", "GW0,6,2,1", "P1"])
    #expect(try Self.driver().jobFacts(job) == JobFacts(pages: 1))
  }

  @Test func malformedJobs_areTypedErrors_neverATrap() {
    let cases: [(String, [UInt8])] = [
      ("data cut short", Array("N\nq16\nGW0,0,2,9\n".utf8) + [1, 2]),
      ("negative", Array("GW-1,0,1,1\n".utf8) + [0]),
      ("huge", Array("GW0,0,99999,99999\n".utf8)),
      ("not numbers", Array("GWa,b,c,d\n".utf8)),
      ("q too wide", Array("q999999\n".utf8)),
      ("P0", Array("P0\n".utf8)),
      ("P overflow", Array("P99999999999999999999\n".utf8)),
      ("Q garbage", Array("Qx,1\n".utf8)),
    ]
    for (name, bytes) in cases {
      #expect(throws: EPL2DecodeError.self, "\(name)") { try EPL2Decoder().decode(bytes) }
    }
    #expect((try? Self.driver().jobFacts(Array("^XA^XZ".utf8))) == JobFacts(pages: 1))
  }

  @Test func errorReport_eachCodeIsItsReason() throws {
    let table: [(String, [Reason])] = [
      ("00", []), ("07", [.mediaEmpty]), ("11", [.coverOpen]), ("12", [.paused]),
      ("13", [.headError]), ("81", [.cutterError]), ("84", [.mediaJam]), ("50", []),
      ("07,11", [.mediaEmpty, .coverOpen]), ("07P123L12345", [.mediaEmpty]),
      ("01", [.unknown]), ("82", [.unknown]),
    ]
    let driver = try Self.driver()
    for (line, reasons) in table {
      #expect(try EPL2Status(line: line).reasons == reasons, "\(line)")
      guard
        case .status(let status, let consumed) = driver.scanStatus(Array("\(line)\r\n".utf8)[...])
      else {
        Issue.record("no status in \(line)")
        continue
      }
      #expect(consumed == line.utf8.count + 2 && status.faults == reasons)
    }
    #expect(driver.scanStatus(Array("07".utf8)[...]) == .needMore)
    #expect(driver.scanStatus(Array("\r\n00\r\n".utf8)[...]) == .skip(1))
    guard case .unreadable = driver.scanStatus(Array("hello\r\n".utf8)[...]) else {
      Issue.record("garbage read as a status")
      return
    }
    #expect(throws: DriverError.self) { try driver.faults(inStatus: Array("ok".utf8)) }
    #expect(driver.statusRequest == Array("^ee\r\n".utf8))
  }

  @Test func rows_matchTheDeviceID_andZPLWinsWhenBothAreSpoken() throws {
    let lp = DriverTable.match(
      vendorID: 0x0A5F, productID: 0x0009,
      deviceID: DeviceID("MFG:Zebra;COMMAND SET:EPL;MODEL:LP 2844;"))
    #expect(lp?.model.name == "Zebra LP 2844" && lp?.model.language == .epl2)
    let generic = DriverTable.match(
      vendorID: nil, productID: nil, deviceID: DeviceID("COMMAND SET:EPL;"))
    #expect(generic?.model == DriverTable.genericEPL2)
    let both = DriverTable.match(
      vendorID: 0x0A5F, productID: nil, deviceID: DeviceID("MFG:Zebra;CMD:EPL,ZPL;MDL:ZP 505;"))
    #expect(both?.model.language == .zpl)
    let driver = try Self.driver("Zebra TLP 2844", settings: LabelSettings(darkness: 30))
    #expect(driver.density == 15)
    #expect(throws: DriverError.self) {
      try driver.pageArea(media: Media(widthMM: 110, lengthMM: 0), dpi: 203)
    }
  }
}
