import LabelCore
import LabelLanguages
import Testing

struct DriverTableTests {
  @Test func deviceID_parsesLongAndShortKeys() {
    let id = DeviceID(
      "MANUFACTURER:Zebra Technologies;COMMAND SET:ZPL, EPL ;MODEL:ZTC ZD420-203dpi ZPL;CLASS:PRINTER;"
    )
    #expect(id.manufacturer == "Zebra Technologies")
    #expect(id.model == "ZTC ZD420-203dpi ZPL")
    #expect(id.commandSets == ["ZPL", "EPL"])
    #expect(DeviceID("garbage without pairs").fields.isEmpty)
  }

  @Test(arguments: [
    // USB ids alone, a Brother with its 1284 id, Zebras by MDL, a clone that speaks ZPL.
    (UInt16?(0x04F9), UInt16?(0x2044), "", "QL-720NW"),
    (
      UInt16?(0x04F9), UInt16?(nil), "MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;CLS:PRINTER;",
      "QL-820NWB"
    ),
    (UInt16?(0x0A5F), UInt16?(0x0080), "MFG:Zebra Technologies;CMD:ZPL;MDL:GK420d;", "Zebra GK420"),
    (
      UInt16?(0x0A5F), UInt16?(nil), "MFG:Zebra Technologies;CMD:ZPL;MDL:ZTC ZD421-300dpi ZPL;",
      "Zebra ZD421"
    ),
    (UInt16?(0x1234), UInt16?(0x0001), "MFG:Acme;CMD:ZPL II;MDL:LP-100;", "Generic ZPL printer"),
  ])
  func match_picksTheModel(vendor: UInt16?, product: UInt16?, id: String, expected: String) throws {
    let m = try #require(
      DriverTable.match(
        vendorID: vendor, productID: product, deviceID: id.isEmpty ? nil : DeviceID(id)))
    #expect(m.model.name == expected)
  }

  @Test func unknownDevices_matchNothing() {
    #expect(DriverTable.match(vendorID: 0x04F9, productID: 0xFFFF, deviceID: nil) == nil)
    #expect(
      DriverTable.match(
        vendorID: 0x1234, productID: 1, deviceID: DeviceID("MFG:HP;CMD:PCL;MDL:LaserJet;")) == nil)
  }

  @Test func theTableCoversBothLanguages_withCapabilities() {
    #expect(
      DriverTable.models.contains { $0.language == .zpl && $0.capabilities.darkness == 0...30 })
    let ql1060 = DriverTable.models.first { $0.name == "QL-1060N" }
    #expect(ql1060?.capabilities.widthMM.upperBound == 102)
    #expect(ql1060?.capabilities.finishing.contains(.cut) == true)
  }
}
