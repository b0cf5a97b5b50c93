import Testing

@testable import LabelTransportNet

/// The SNMPv2c GET labeld sends a Brother QL for its status, byte for byte, and the
/// answers it reads: net-snmp's snmpd's real answer, errors, and garbage (never a trap).
@Suite struct SNMPGetTests {
  static let oid: [UInt32] = [1, 3, 6, 1, 4, 1, 2435, 3, 3, 9, 1, 6, 1, 0]

  static func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var i = hex.startIndex
    while let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex), i < hex.endIndex {
      out.append(UInt8(hex[i..<j], radix: 16)!)
      i = j
    }
    return out
  }

  @Test func request_isTheBERNetSNMPAnswers() {
    // SEQUENCE { version 1 (v2c), "public", GetRequest { id 0x11, 0, 0, { { OID, NULL } } } }:
    // the packet net-snmp's snmpd 5.9 answered with the status block (the OID's 14 arcs
    // are 14 content bytes: 1.3 as 2B, 2435 as 93 03).
    let expected = Self.bytes(
      "302c02010104067075626c6963a01f02011102010002010030143012060e2b06010401930303030901060100"
        + "0500")
    #expect(SNMPGet.encodeGet(oid: Self.oid, community: "public", requestID: 0x11) == expected)
    #expect(SNMPGet.integer(128) == [0x02, 0x02, 0x00, 0x80])
    #expect(SNMPGet.integer(-1) == [0x02, 0x01, 0xFF])
    #expect(SNMPGet.length(200) == [0x81, 200] && SNMPGet.length(300) == [0x82, 0x01, 0x2C])
  }

  @Test func snmpdsAnswer_isTheStatusBlock_andErrorsAreTyped() throws {
    let answer = Self.bytes(
      "304c02010104067075626c6963a23f02011102010002010030343032060e2b0601040193030303090106"
        + "01000420802042344130000000103e0a0000000000000000000000000000000000000000")
    let value = try SNMPGet.decodeResponse(answer, requestID: 0x11).get()
    #expect(value.count == 32 && Array(value.prefix(3)) == [0x80, 0x20, 0x42] && value[9] == 0x10)
    // Another request's answer is not taken.
    #expect(throws: SNMPGet.Failure.self) { try SNMPGet.decodeResponse(answer, requestID: 0x12) }
    // noSuchObject, and an error status (2, noSuchName): failures that say so.
    let missing = Self.bytes(
      "302c02010104067075626c6963a21f02011102010002010030143012060e2b06010401930303030901060100"
        + "8000")
    #expect(throws: SNMPGet.Failure.self) {
      try SNMPGet.decodeResponse(missing, requestID: 0x11).get()
    }
    let error = Self.bytes(
      "302c02010104067075626c6963a21f02011102010202010130143012060e2b06010401930303030901060100"
        + "0500")
    #expect(throws: SNMPGet.Failure.self) {
      try SNMPGet.decodeResponse(error, requestID: 0x11).get()
    }
  }

  @Test func garbage_isAFailure_neverATrap() {
    var seed: UInt64 = 7
    let answer = Self.bytes(
      "304c02010104067075626c6963a23f02011102010002010030343032060e2b0601040193030303090106"
        + "01000420802042344130000000103e0a0000000000000000000000000000000000000000")
    for round in 0..<3000 {
      var b = answer
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let flips = Int(seed >> 60) + 1
      for k in 0..<flips {
        let at = Int((seed >> UInt64(8 * (k % 7))) % UInt64(b.count))
        b[at] = UInt8(truncatingIfNeeded: seed >> UInt64(k))
      }
      if round % 3 == 0 { b = Array(b.prefix(Int(seed % UInt64(b.count)))) }
      _ = try? SNMPGet.decodeResponse(b, requestID: 0x11)
    }
  }
}
