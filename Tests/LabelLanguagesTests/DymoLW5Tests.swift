import LabelCore
import Testing

@testable import LabelLanguages

/// DYMO LabelWriter 550/5XL: the job a page becomes (checked against the LW 550 Series
/// Technical Reference and DYMO's own Linux driver for the series by hand), what it decodes
/// back to, and the 32-byte status.
@Suite struct DymoLW5Tests {
  static func driver(_ name: String = "DYMO LabelWriter 550", settings: LabelSettings = .init())
    throws -> DymoLW5Driver
  {
    try languageDriver(name, .dymoLW5, settings: settings)
  }

  static func status(
    print: UInt8 = 0, head: UInt8 = 0, bay: UInt8 = 8, sku: String = "30252",
    remaining: Int = 130, error: UInt8 = 0, voltage: UInt8 = 1
  ) -> [UInt8] {
    var b = [UInt8](repeating: 0, count: 32)
    b[0] = print
    b[8] = head
    b[9] = 100
    b[10] = bay
    for (k, c) in sku.utf8.enumerated() { b[11 + k] = c }
    b[23] = error
    b[27] = UInt8(remaining & 0xFF)
    b[28] = UInt8(remaining >> 8)
    b[30] = voltage
    b[31] = 0xFF
    return b
  }

  @Test func goldenBytes_jobLabelBlockAndEnd() throws {
    // 10 x 2 dots: row 0 dots 0 and 9, row 1 dot 1.
    var page = Bitmap(width: 10, height: 2)
    page[0, 0] = true
    page[9, 0] = true
    page[1, 1] = true
    let driver = try Self.driver(settings: LabelSettings(darkness: 0))
    let bytes = try driver.encode(
      pages: [page], media: Media(widthMM: 28.6, lengthMM: 88.9, kind: "labels"), dpi: 300)
    let esc: UInt8 = 0x1B
    let id = DymoLW5Encoder.jobID([page])
    let expected: [UInt8] =
      [esc, 0x73] + DymoLW5Encoder.le32(id)  // ESC s job id
      + [esc, 0x63, esc, 0x68]  // light, text mode
      + [esc, 0x4C, 0, 0, esc, 0x6E, 1, 0]  // die-cut, label 1
      + [esc, 0x44, 1, 2, 2, 0, 0, 0, 16, 0, 0, 0]  // 2 lines of 16 dots
      + [0x80, 0x40, 0x40, 0x00]  // the lines, 1 = black, pad dots white
      + [esc, 0x47]  // short form feed
      + [esc, 0x41, 0, esc, 0x45, esc, 0x51]  // status, form feed, end of job
    #expect(bytes == expected && id != 0)
    #expect(driver.statusRepliesCarried(by: bytes) == 1)
    // Two labels: a status request between them, indexes 1 and 2; continuous: ESC L FF FF.
    let two = try driver.encode(
      pages: [page, page], media: Media(widthMM: 28.6, lengthMM: 0, kind: "continuous"),
      dpi: 300)
    let job = try DymoLW5Decoder().decode(two)
    #expect(job.pages.map(\.index) == [1, 2] && job.pages.allSatisfy(\.continuous))
    #expect(job.statusRequests == 2 && job.ended && job.density == .light)
    #expect(driver.statusRepliesCarried(by: two) == 2)
    #expect(DymoLW5Encoder.jobID([page]) != DymoLW5Encoder.jobID([page, page]))
  }

  @Test func pages_decodeBackToTheSameDots() throws {
    let page = noise(width: 672, height: 375, seed: 11, density: 5)
    let driver = try Self.driver()
    let bytes = try driver.encode(
      pages: [page, page], media: Media(widthMM: 57.15, lengthMM: 31.75, kind: "labels"),
      dpi: 300)
    let job = try DymoLW5Decoder().decode(bytes)
    #expect(
      job.pages.map(\.image) == [page, page] && job.jobID == DymoLW5Encoder.jobID([page, page]))
    #expect(
      driver.jobFacts(bytes)
        == JobFacts(pages: 2, wants: MediaWant(dieCut: true, widthMM: nil, lengthMM: nil)))
    #expect(try Self.driver("DYMO LabelWriter 5XL").headDots == 1248)
  }

  @Test func malformedJobs_areTypedErrors() {
    let esc: UInt8 = 0x1B
    let cases: [(String, [UInt8])] = [
      ("block cut short", [esc, 0x44, 1, 2, 4, 0, 0, 0, 8, 0, 0, 0, 1, 2]),
      ("huge block", [esc, 0x44, 1, 2, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0, 0]),
      ("two bits a dot", [esc, 0x44, 2, 2, 1, 0, 0, 0, 8, 0, 0, 0, 0]),
      ("unknown", [esc, 0x7E]),
      ("stray", [0x16]),
      ("ESC s cut", [esc, 0x73, 1]),
    ]
    for (name, bytes) in cases {
      #expect(throws: DymoLWDecodeError.self, "\(name)") { try DymoLW5Decoder().decode(bytes) }
    }
  }

  @Test func status_eachFieldIsItsReason_andTheLabelsLeft() throws {
    let table: [([UInt8], [Reason])] = [
      (Self.status(), []), (Self.status(print: 1), []), (Self.status(bay: 7), []),
      (Self.status(bay: 1, sku: ""), [.coverOpen]), (Self.status(bay: 2, sku: ""), [.mediaEmpty]),
      (Self.status(bay: 5), [.mediaEmpty]), (Self.status(bay: 9), [.mediaJam]),
      (Self.status(bay: 10), [.mediaMismatch]), (Self.status(head: 1), [.headError]),
      (Self.status(voltage: 4), [.headError]), (Self.status(print: 3), [.jobAborted]),
      (Self.status(print: 5), [.busy]), (Self.status(print: 2), [.unknown]),
      (Self.status(error: 7), [.unknown]), (Self.status(print: 2, bay: 5), [.mediaEmpty]),
    ]
    let driver = try Self.driver()
    for (bytes, reasons) in table {
      #expect(try DymoLW5Status(bytes).reasons == reasons, "\(bytes)")
      guard case .status(let s, 32) = driver.scanStatus((bytes + [1, 2])[...]) else {
        Issue.record("no status")
        continue
      }
      #expect(s.faults == reasons)
    }
    let ok = try DymoLW5Status(Self.status(remaining: 300))
    #expect(ok.sku == "30252" && ok.labelsRemaining == 300)
    #expect(ok.deviceStatus.labelsRemaining == 300)
    #expect(ok.deviceStatus.detail.contains("roll 30252, 300 labels left"))
    #expect(
      try DymoLW5Status(Self.status(bay: 2, sku: "", remaining: 0)).deviceStatus.labelsRemaining
        == nil)
    #expect(driver.scanStatus(Array(Self.status().prefix(31))[...]) == .needMore)
    #expect(throws: DriverError.self) { try driver.faults(inStatus: [0, 0]) }
    #expect(driver.statusRequest == [0x1B, 0x41, 0x00])
  }

  @Test func rows_theSeriesIsItsOwnLanguage() throws {
    let id = { (mdl: String) in DeviceID("MFG:DYMO;CMD: ;MDL:\(mdl);") }
    let lw550 = DriverTable.match(
      vendorID: 0x0922, productID: 0x0028, deviceID: id("LabelWriter 550"))
    #expect(lw550?.model.name == "DYMO LabelWriter 550" && lw550?.model.language == .dymoLW5)
    let turbo = DriverTable.match(
      vendorID: 0x0922, productID: 0x0029, deviceID: id("LabelWriter 550 Turbo"))
    #expect(turbo?.model.name == "DYMO LabelWriter 550 Turbo")
    let xl = DriverTable.match(vendorID: 0x0922, productID: 0x002A, deviceID: nil)
    #expect(xl?.model.name == "DYMO LabelWriter 5XL")
    let lw450 = DriverTable.match(
      vendorID: 0x0922, productID: 0x0020, deviceID: id("LabelWriter 450"))
    #expect(lw450?.model.language == .dymoLW)
  }
}
