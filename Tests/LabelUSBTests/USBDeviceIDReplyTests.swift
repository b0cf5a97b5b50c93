import LabelLanguages
import LabelTestKit
import LabelUSB
import Testing

/// A USB printer's GET_DEVICE_ID reply, as any device may send it: the length prefix
/// either way round, too long, too short or missing, control characters around the id,
/// bytes changed and cut, random bytes. Read into an id or "", never a trap; the id is
/// never longer than the reply, and a good reply's id is exactly the text it carries.
@Suite struct USBDeviceIDReplyTests {
  static func reply(_ id: String, littleEndian: Bool = false) -> [UInt8] {
    let n = id.utf8.count + 2
    let prefix: [UInt8] = [UInt8(n >> 8), UInt8(n & 0xFF)]
    return (littleEndian ? prefix.reversed() : prefix) + Array(id.utf8)
  }

  @Test func goodReplies_carryTheirId_eitherByteOrder() {
    let id = "MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;CLS:PRINTER;"
    #expect(USBDeviceHandle.deviceIDText(Self.reply(id)) == id)
    #expect(USBDeviceHandle.deviceIDText(Self.reply(id, littleEndian: true)) == id)
    #expect(USBDeviceHandle.deviceIDText(Self.reply("\u{0}\u{0}" + id + "\n")) == id)
    #expect(USBDeviceHandle.deviceIDText([0x00]) == "")
    #expect(USBDeviceHandle.deviceIDText([0xFF, 0xFF]) == "")
  }

  @Test func damagedReplies_giveAnIdOrNothing() {
    var g = SeededGenerator(seed: 21)
    let good = Self.reply("MFG:Zebra Technologies;CMD:ZPL;MDL:ZTC GK420d;")
    var matched = 0
    for _ in 0..<5000 {
      var bytes = good
      switch g.below(4) {
      case 0:
        for _ in 0..<(1 + g.below(4)) { bytes[g.below(bytes.count)] = UInt8(g.below(256)) }
      case 1: bytes = Array(bytes.prefix(g.below(bytes.count + 1)))
      case 2: bytes[g.below(2)] = UInt8(g.below(256))
      default: bytes = (0..<g.below(1100)).map { _ in UInt8(g.below(256)) }
      }
      let text = USBDeviceHandle.deviceIDText(bytes)
      // Invalid UTF-8 reads as U+FFFD (three bytes for one): at most three times the reply.
      #expect(text.utf8.count <= 3 * bytes.count)
      let id = DeviceID(text)
      if DriverTable.match(vendorID: 0x0A5F, productID: nil, deviceID: id) != nil { matched += 1 }
    }
    #expect(matched > 0)
  }
}
