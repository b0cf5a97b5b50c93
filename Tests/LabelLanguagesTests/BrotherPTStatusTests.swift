import LabelCore
import Testing

@testable import LabelLanguages

/// A P-touch status reply laid out as Brother's Raster Command References document it.
func ptStatus(
  error1: UInt8 = 0, error2: UInt8 = 0, widthMM: UInt8 = 24, type: UInt8 = 0x01,
  statusType: UInt8 = 0, extended: UInt8 = 0, tape: UInt8 = 0x01, text: UInt8 = 0x08,
  model: UInt8 = 0x66
) -> [UInt8] {
  var b = [UInt8](repeating: 0, count: 32)
  b[0...5] = [0x80, 0x20, 0x42, 0x30, model, 0x30]
  b[7] = extended
  b[8] = error1
  b[9] = error2
  b[10] = widthMM
  b[11] = type
  b[18] = statusType
  b[24] = tape
  b[25] = text
  return b
}

/// The P-touch status reader against the references' tables (1)–(9) and (11): each error
/// bit, each media type and status type, the tape and its colours.
@Suite struct BrotherPTStatusTests {
  static func status(_ bytes: [UInt8]) throws -> BrotherPTStatus { try BrotherPTStatus(bytes) }

  @Test func eachErrorBit_isItsReason() throws {
    // Table (1), error information 1, and (2), error information 2 (PT-P900 reference,
    // which lists every bit the PT-E550W reference does and more).
    let info1: [(UInt8, Reason, String)] = [
      (0x01, .mediaEmpty, "no media"), (0x02, .mediaEmpty, "end of media"),
      (0x04, .cutterError, "cutter jam"), (0x08, .unknown, "weak batteries"),
      (0x10, .busy, "printer in use"), (0x40, .unknown, "high-voltage adapter"),
    ]
    for (bit, reason, name) in info1 {
      let s = try Self.status(ptStatus(error1: bit, statusType: 0x02))
      #expect(s.reasons == [reason], "error information 1 bit \(bit)")
      #expect(s.detail.hasPrefix(name), "\(s.detail)")
    }
    let info2: [(UInt8, Reason, String)] = [
      (0x01, .mediaMismatch, "wrong media"), (0x02, .jobRejected, "expansion buffer full"),
      (0x04, .communication, "communication error"),
      (0x08, .communication, "communication buffer full"), (0x10, .coverOpen, "cover open"),
      (0x20, .headError, "overheating"), (0x40, .unknown, "black mark not detected"),
      (0x80, .unknown, "system error"),
    ]
    for (bit, reason, name) in info2 {
      let s = try Self.status(ptStatus(error2: bit, statusType: 0x02))
      #expect(s.reasons == [reason], "error information 2 bit \(bit)")
      #expect(s.detail.hasPrefix(name), "\(s.detail)")
    }
    // Bits the references mark "not used" are still faults, unnamed.
    #expect(try Self.status(ptStatus(error1: 0x80)).reasons == [.unknown])
    #expect(try Self.status(ptStatus(error1: 0x20)).reasons == [.unknown])
    // Several at once, in table order without repeats.
    let many = try Self.status(ptStatus(error1: 0x03, error2: 0x11, statusType: 0x02))
    #expect(many.reasons == [.mediaEmpty, .mediaMismatch, .coverOpen])
    #expect(many.detail.hasPrefix("no media, end of media, wrong media, cover open; "))
    #expect(many.detail.hasSuffix("error bits 03 11"))
    // An error status naming nothing is an unknown fault; a clean reply none.
    #expect(try Self.status(ptStatus(statusType: 0x02)).reasons == [.unknown])
    #expect(try Self.status(ptStatus()).reasons == [])
  }

  @Test func eachMediaType_andTheTapeAndItsColours() throws {
    let types: [(UInt8, BrotherPTStatus.MediaType, String)] = [
      (0x00, .none, "no tape"), (0x01, .laminated, "laminated tape"),
      (0x03, .nonLaminated, "non-laminated tape"), (0x04, .fabric, "fabric tape"),
      (0x11, .heatShrink2to1, "heat-shrink tube 2:1"), (0x13, .fileTape, "file tape"),
      (0x14, .flexibleID, "flexible ID tape"), (0x15, .satin, "satin tape"),
      (0x17, .heatShrink3to1, "heat-shrink tube 3:1"), (0xFF, .incompatible, "incompatible tape"),
    ]
    #expect(types.count == BrotherPTStatus.MediaType.allCases.count)
    for (byte, type, name) in types {
      let s = try Self.status(ptStatus(widthMM: 12, type: byte))
      #expect(s.mediaType == type && type.name == name)
      #expect(s.reasons == (type == .incompatible ? [.mediaMismatch] : []))
      #expect(s.detail.contains("12 mm \(name)"))
    }
    #expect(try Self.status(ptStatus(type: 0x42)).mediaType == nil)
    // Table (3): 3.5 mm tape reports 4; the width is the loaded tape.
    let narrow = try Self.status(ptStatus(widthMM: 4))
    #expect(narrow.loadedMedia == Media(widthMM: 3.5, lengthMM: 0, kind: "tape"))
    #expect(
      narrow.detail == "3.5 mm laminated tape, black on white; error bits 00 00")
    let gold = try Self.status(ptStatus(widthMM: 36, tape: 0x08, text: 0x0A))
    #expect(gold.detail == "36 mm laminated tape, gold on black; error bits 00 00")
    // No tape: width 0 or the no-media bit.
    #expect(try Self.status(ptStatus(widthMM: 0, type: 0)).loadedMedia == nil)
    #expect(try Self.status(ptStatus(error1: 0x01)).loadedMedia == nil)
  }

  @Test func eachStatusType_isItsKind() throws {
    let kinds: [(UInt8, DeviceStatus.Kind)] = [
      (0x00, .reply), (0x01, .pagePrinted), (0x02, .error), (0x03, .other), (0x04, .turnedOff),
      (0x05, .other), (0x06, .other), (0x21, .other),
    ]
    for (byte, kind) in kinds {
      #expect(try Self.status(ptStatus(statusType: byte)).deviceStatus.kind == kind)
    }
  }

  @Test func extendedErrors_ofTheP900Family() throws {
    #expect(try Self.status(ptStatus(extended: 0x21)).reasons == [.mediaMismatch])
    #expect(try Self.status(ptStatus(extended: 0x10)).reasons == [.mediaEmpty])
    #expect(try Self.status(ptStatus(extended: 0x1D)).reasons == [.jobRejected])
    let odd = try Self.status(ptStatus(extended: 0x55))
    #expect(odd.reasons == [.unknown] && odd.detail.hasPrefix("extended error 55; "))
  }

  @Test func modelCodes_andRefusedReplies() throws {
    #expect(try Self.status(ptStatus(model: 0x66)).model?.name == "PT-E550W")
    #expect(try Self.status(ptStatus(model: 0x68)).model?.name == "PT-P750W")
    #expect(try Self.status(ptStatus(model: 0x70)).model?.name == "PT-P950NW")
    #expect(throws: BrotherPTError.self) { try BrotherPTStatus(ptStatus().prefix(31)) }
    var bad = ptStatus()
    bad[2] = 0x43
    #expect(throws: BrotherPTError(.badStatus, "status reply starts 80 20 43; expected 80 20 42")) {
      try BrotherPTStatus(bad)
    }
  }

  @Test func theDriverScansReplies_andQLRepliesReadAsBefore() throws {
    let driver: BrotherPTDriver = try languageDriver("PT-P950NW", .brotherPT)
    let open = ptStatus(error2: 0x10, statusType: 0x02)
    #expect(driver.scanStatus([0x00] + open[...]) == .skip(1))
    guard case .status(let s, 32) = driver.scanStatus(open[...]) else {
      Issue.record("no status")
      return
    }
    #expect(s.kind == .error && s.faults == [.coverOpen])
    #expect(s.media == Media(widthMM: 24, lengthMM: 0, kind: "tape"))
    #expect(driver.scanStatus(open.prefix(20)) == .needMore)
    #expect(try driver.faults(inStatus: ptStatus(error1: 0x04)) == [.cutterError])
    #expect(driver.statusPreamble.count == 202 && driver.statusRequest == [0x1B, 0x69, 0x53])
    #expect(!driver.answersStatusOverSocket)
    #expect(driver.snmpStatusOID == [1, 3, 6, 1, 4, 1, 2435, 3, 3, 9, 1, 6, 1, 0])
    // The same bytes read by the QL's table keep the QL's meaning: bit 0x2000 of a QL is
    // unnamed, its media continuous tape.
    let ql = try BrotherQLStatus(brotherStatus(error2: 0x20, widthMM: 62, statusType: 0x02))
    #expect(ql.reasons == [.unknown] && ql.loadedMedia?.kind == "continuous")
    #expect(ql.deviceStatus.detail == "error bits 00 20")
  }
}
