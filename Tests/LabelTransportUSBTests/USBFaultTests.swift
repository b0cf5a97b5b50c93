import Foundation
import LabelCore
import LabelLanguages
import LabelUSB
import Testing

@testable import LabelTransportUSB

/// libusb errors in the protocol's terms (the one table), and the udev rules that go with
/// the driver table.
struct USBFaultTests {
  @Test(arguments: [
    (USBError.access, Reason.permissionDenied), (.busy, .busy), (.noDevice, .disconnected),
    (.notFound, .disconnected), (.timeout, .communication), (.pipe, .communication),
    (.io, .communication), (.other, .unknown),
  ])
  func libusbError_mapsToReason(_ error: USBError, _ reason: Reason) {
    #expect(USBFaults.reason(error) == reason)
  }

  @Test func permissionDenied_namesTheUdevRuleToInstall() {
    let e = USBFaults.transportError(
      .access, printer: "QL-820NWB", device: "/dev/bus/usb/001/002", doing: "opening it")
    #expect(e.reason == .permissionDenied)
    #expect(e.message.contains("/etc/udev/rules.d/70-labeld.rules"))
    #expect(
      e.message.contains("udev/70-labeld.rules") && e.message.contains("/dev/bus/usb/001/002"))
  }

  @Test func busy_saysWhoMayHoldIt() {
    let e = USBFaults.transportError(
      .busy, printer: "QL-820NWB", device: "/dev/x", doing: "opening it")
    #expect(e.reason == .busy && e.message.contains("usblp"))
  }

  static let rules: String = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("udev/70-labeld.rules")
    return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
  }()

  @Test func udevRules_coverEveryModelOfTheDriverTable() {
    #expect(!Self.rules.isEmpty)
    for model in DriverTable.models {
      let vendor = USBProbe.hex(model.vendorID)
      if let product = model.productID {
        #expect(
          Self.rules.contains(
            "ATTR{idVendor}==\"\(vendor)\", ATTR{idProduct}==\"\(USBProbe.hex(product))\""),
          "\(model.name) is missing from udev/70-labeld.rules")
      } else {
        #expect(
          Self.rules.contains("ATTR{idVendor}==\"\(vendor)\", MODE"),
          "\(model.name): vendor \(vendor) is missing from udev/70-labeld.rules")
      }
    }
    for line in Self.rules.split(separator: "\n") where line.hasPrefix("ATTR{idVendor}") {
      #expect(line.contains("GROUP=\"labeld\"") && line.contains("TAG+=\"uaccess\""))
    }
  }

  @Test func brotherJobFacts_readTheRollAndCompareItWithTheStatus() throws {
    let ql = try #require(BrotherQLModel.named("QL-820NWB"))
    let encoder = try BrotherQLEncoder(
      BrotherQLOptions(model: ql, media: try #require(BrotherQLMedia.named("62"))))
    var page = Bitmap(width: 100, height: 200)
    page[1, 1] = true
    let driver = try DriverTable.driver(
      for: try #require(DriverTable.model(named: "QL-820NWB", language: .brotherQL)))
    let needs = driver.jobFacts(try encoder.encode([page, page]))
    #expect(needs.pages == 2 && needs.wants?.widthMM == 62)
    func status(width: UInt8, type: UInt8, length: UInt8) throws -> BrotherQLStatus {
      var b = [UInt8](repeating: 0, count: 32)
      b[0] = 0x80
      b[1] = 0x20
      b[2] = 0x42
      b[3] = 0x34
      b[10] = width
      b[11] = type
      b[17] = length
      return try BrotherQLStatus(b)
    }
    #expect(needs.mismatch(loaded: try status(width: 62, type: 0x0A, length: 0).loadedMedia) == nil)
    let why = needs.mismatch(loaded: try status(width: 29, type: 0x0B, length: 90).loadedMedia)
    #expect(why == "the job is for 62 mm continuous tape but 29 x 90 mm die-cut labels are loaded")
  }
}
