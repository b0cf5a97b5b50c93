import LabelCore
import LabelLanguages
import Testing

struct LanguageDriverTests {
  static func page(_ w: Int, _ h: Int) -> Bitmap {
    var b = Bitmap(width: w, height: h)
    b.fill(x: 3, y: 2, width: w / 2, height: h / 3)
    return b
  }

  @Test func zplDriver_printsPagesAsGraphics_andReadsHQES() throws {
    let driver = try DriverTable.driver(for: DriverTable.genericZPL)
    #expect(driver.language == .zpl)
    let bytes = try driver.encode(
      pages: [Self.page(400, 200)], media: Media(widthMM: 50.8, lengthMM: 25.4), dpi: 203)
    let zpl = String(decoding: bytes, as: UTF8.self)
    // ^PW and ^LL are the media's (2 x 1 in at 203 dpi), not the page's: they persist.
    #expect(zpl.hasPrefix("^XA^PW406^LL203^LH0,0") && zpl.contains("^GFA,10000,10000,50,"))
    // Continuous media: the page gives the length; unknown media (width 0): no ^PW.
    let continuous = try driver.encode(
      pages: [Self.page(400, 200)], media: Media(widthMM: 50.8, lengthMM: 0), dpi: 203)
    #expect(String(decoding: continuous, as: UTF8.self).hasPrefix("^XA^PW406^LL200^LH0,0"))
    let unknown = try driver.encode(
      pages: [Self.page(400, 200)], media: Media(widthMM: 0, lengthMM: 0), dpi: 203)
    #expect(String(decoding: unknown, as: UTF8.self).hasPrefix("^XA^LL200^LH0,0^FO0,0^GFA"))
    #expect(driver.statusRequest == Array("~HQES".utf8))
    #expect(throws: DriverError.self) { try driver.faults(inStatus: Array("garbage".utf8)) }
  }

  @Test func brotherDriver_findsTheRoll_encodes_andReadsStatus() throws {
    let model = try #require(
      DriverTable.match(
        vendorID: 0x04F9, productID: nil,
        deviceID: DeviceID("MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;"))?.model)
    let driver = try DriverTable.driver(for: model)
    #expect(driver.language == .brotherQL)
    let job = try driver.encode(
      pages: [Self.page(696, 300)], media: Media(widthMM: 62, lengthMM: 0), dpi: 300)
    let decoded = try BrotherQLRasterDecoder(model: #require(BrotherQLModel.named("QL-820NWB")))
      .decode(job)
    #expect(decoded.pages.first?.printInformation.lineCount == 300)
    #expect(throws: DriverError.self) {
      try driver.encode(
        pages: [Self.page(696, 300)], media: Media(widthMM: 63, lengthMM: 0), dpi: 300)
    }
    #expect(driver.statusRequest == [0x1B, 0x69, 0x53])
    // A status reply with "cover open" (error 2, bit 0x10) on 62 mm continuous.
    var reply = [UInt8](repeating: 0, count: 32)
    reply[0] = 0x80
    reply[1] = 0x20
    reply[2] = 0x42
    reply[3] = 0x34
    reply[9] = 0x10
    reply[10] = 62
    reply[11] = 0x0A
    reply[18] = 0x02
    #expect(try driver.faults(inStatus: reply) == [.coverOpen])
    #expect(throws: DriverError.self) { try driver.faults(inStatus: Array(reply.prefix(10))) }
  }

  @Test func zebraModels_cannotBeDrivenAsBrother() {
    let zebra = DriverTable.models.first { $0.language == .zpl }!
    #expect(throws: DriverError.self) { try BrotherQLDriver(model: zebra) }
  }
}
