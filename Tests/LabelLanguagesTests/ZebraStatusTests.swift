import LabelCore
import Testing

@testable import LabelLanguages

/// A ~HS reply as the ZPL guide lays it out, with the fields the tests vary.
func hostStatus(
  paperOut: Int = 0, paused: Int = 0, length: String = "1245", bufferFull: Int = 0,
  underTemp: Int = 0, overTemp: Int = 0, headUp: Int = 0, ribbonOut: Int = 0,
  corruptRAM: Int = 0, remaining: String = "00000000"
) -> String {
  "\u{02}030,\(paperOut),\(paused),\(length),000,\(bufferFull),0,0,000,\(corruptRAM),"
    + "\(underTemp),\(overTemp)\u{03}\r\n"
    + "\u{02}001,0,\(headUp),\(ribbonOut),1,2,6,0,\(remaining),1,000\u{03}\r\n"
    + "\u{02}1234,0\u{03}\r\n"
}

/// A ~HQES reply with the documented framing and column padding.
func extendedStatus(errors: String, warnings: String = "0 00000000 00000000") -> String {
  "\u{02}\r\n\r\n  PRINTER STATUS\r\n   ERRORS:         \(errors)\r\n"
    + "   WARNINGS:       \(warnings)\r\n\u{03}\r\n"
}

struct ZebraHostStatusTests {
  @Test func readyPrinter_hasNoReasons() throws {
    let s = try ZebraHostStatus(hostStatus())
    #expect(s.conditions.isEmpty && s.reasons.isEmpty)
    #expect(s.labelLength == 1245 && s.labelsRemaining == 0 && s.thermalTransfer)
  }

  @Test(arguments: [
    (hostStatus(paperOut: 1), [Reason.mediaEmpty]),
    (hostStatus(paused: 1), [.paused]),
    (hostStatus(headUp: 1), [.coverOpen]),
    (hostStatus(ribbonOut: 1), [.ribbonEmpty]),
    (hostStatus(corruptRAM: 1), [.unknown]),
    (hostStatus(underTemp: 1), [.headError]),
    (hostStatus(underTemp: 1, overTemp: 1), [.headError]),
    (hostStatus(bufferFull: 1), []),
    (hostStatus(paperOut: 1, paused: 1, headUp: 1), [.mediaEmpty, .paused, .coverOpen]),
  ])
  func flags_mapToReasons(reply: String, reasons: [Reason]) throws {
    #expect(try ZebraHostStatus(reply).reasons == reasons)
  }

  @Test func extraTrailingFields_areAccepted() throws {
    let reply = hostStatus().replacingOccurrences(of: "1234,0", with: "1234,0,9")
    #expect(try ZebraHostStatus(reply).fields[2].count == 3)
  }

  @Test(arguments: [
    "",
    "garbage",
    String(hostStatus().prefix(40)),
    hostStatus(paperOut: 2),
    hostStatus(length: "12x5"),
    hostStatus(length: ""),
    hostStatus(remaining: "99999999999999999999"),
    hostStatus() + "\u{02}extra\u{03}\r\n",
    hostStatus().replacingOccurrences(of: ",000,0,0,0,000,", with: ","),
    "\u{02}\u{02}030\u{03}",
    "\u{03}",
    "x" + hostStatus(),
  ])
  func malformedReplies_throw(reply: String) {
    #expect(throws: ZebraStatusError.self) { try ZebraHostStatus(reply) }
  }
}

struct ZebraExtendedStatusTests {
  @Test func noErrors() throws {
    let s = try ZebraExtendedStatus(extendedStatus(errors: "0 00000000 00000000"))
    #expect(!s.errorFlag && s.errors.isEmpty && s.reasons.isEmpty)
  }

  /// The ~HQES error table: group 1 bits from the ZPL guide's nibble table.
  @Test(arguments: [
    ("1 00000000 00000001", [Reason.mediaEmpty]),
    ("1 00000000 00000002", [.ribbonEmpty]),
    ("1 00000000 00000004", [.coverOpen]),
    ("1 00000000 00000008", [.cutterError]),
    ("1 00000000 00000005", [.mediaEmpty, .coverOpen]),
    ("1 00000000 000000F0", [.headError, .unknown]),
    ("1 00000000 00000200", [.headError]),
    ("1 00000000 00001000", [.mediaJam]),
    ("1 00000000 00004000", [.mediaJam]),
    ("1 00000000 00010000", [.paused]),
    ("1 00000000 00080000", [.mediaMismatch]),
    ("1 00000000 00000000", [.unknown]),  // error flag with no bit
    ("1 00000001 00000000", [.unknown]),  // group 2: no documented bits
    ("1 0 1", [.mediaEmpty]),  // short groups still parse as groups
  ])
  func errorBits_mapToReasons(errors: String, reasons: [Reason]) throws {
    #expect(try ZebraExtendedStatus(extendedStatus(errors: errors)).reasons == reasons)
  }

  @Test func warnings_areKeptButAreNoFault() throws {
    let s = try ZebraExtendedStatus(
      extendedStatus(errors: "0 00000000 00000000", warnings: "1 00000000 00000002"))
    #expect(s.warningFlag && s.warnings == 0x2 && s.reasons.isEmpty)
  }

  @Test func missingWarningsLine_isAccepted() throws {
    let s = try ZebraExtendedStatus("ERRORS: 1 00000000 00000001\r\n")
    #expect(s.reasons == [.mediaEmpty] && s.warnings == 0)
  }

  @Test(arguments: [
    "",
    "PRINTER STATUS\r\n",
    extendedStatus(errors: "1 00000000"),
    extendedStatus(errors: "1 00000000 00000001 00000000"),
    extendedStatus(errors: "2 00000000 00000001"),
    extendedStatus(errors: "1 0000000G 00000001"),
    extendedStatus(errors: "1 000000001 00000001"),
    extendedStatus(errors: "1 00000000 00000001") + "ERRORS: 0 00000000 00000000\r\n",
    "\u{FF}\u{FE}garbage\u{00}",
  ])
  func malformedReplies_throw(reply: String) {
    #expect(throws: ZebraStatusError.self) { try ZebraExtendedStatus(reply) }
  }

  @Test func randomBytes_neverCrash() {
    for _ in 0..<500 {
      let bytes = (0..<Int.random(in: 0...80)).map { _ in UInt8.random(in: 0...255) }
      _ = try? ZebraExtendedStatus(bytes)
      _ = try? ZebraHostStatus(bytes)
      _ = try? BrotherQLStatus(bytes)
    }
  }
}
