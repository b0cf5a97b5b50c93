import LabelCore
import Testing

@testable import LabelLanguages

/// A status reply laid out as Brother's command reference documents it.
func brotherStatus(
  error1: UInt8 = 0, error2: UInt8 = 0, widthMM: UInt8 = 62, type: UInt8 = 0x0A,
  lengthMM: UInt8 = 0, statusType: UInt8 = 0, phase: UInt8 = 0, notification: UInt8 = 0
) -> [UInt8] {
  var b = [UInt8](repeating: 0, count: 32)
  b[0] = 0x80
  b[1] = 0x20
  b[2] = 0x42
  b[3] = 0x34  // '4': QL series
  b[4] = 0x38  // model code
  b[5] = 0x30
  b[6] = 0x30
  b[8] = error1
  b[9] = error2
  b[10] = widthMM
  b[11] = type
  b[17] = lengthMM
  b[18] = statusType
  b[19] = phase
  b[22] = notification
  return b
}

struct BrotherQLStatusTests {
  @Test func request_isEscIS() {
    #expect(BrotherQLStatus.request == [0x1B, 0x69, 0x53])
  }

  @Test func idleReply_withContinuousMedia() throws {
    let s = try BrotherQLStatus(brotherStatus())
    #expect(s.series == 0x34 && s.modelCode == 0x38 && s.model?.name == "QL-800")
    #expect(s.errors.isEmpty && s.reasons.isEmpty)
    #expect(s.statusType == .reply && s.phase == .receiving)
    #expect(s.mediaLoaded && s.media?.id == "62")
  }

  @Test func dieCutMedia_isRecognised() throws {
    let s = try BrotherQLStatus(brotherStatus(widthMM: 29, type: 0x0B, lengthMM: 90))
    #expect(s.media?.id == "29x90")
    #expect(try BrotherQLStatus(brotherStatus(widthMM: 0, type: 0)).mediaLoaded == false)
  }

  /// The error-bit → Reason table, one row per documented bit.
  @Test(
    arguments: [
      (0x01, 0x00, [Reason.mediaEmpty]),
      (0x02, 0x00, [.mediaEmpty]),
      (0x04, 0x00, [.cutterError]),
      (0x10, 0x00, [.busy]),
      (0x20, 0x00, [.offline]),
      (0x80, 0x00, [.unknown]),
      (0x00, 0x01, [.mediaMismatch]),
      (0x00, 0x02, [.jobRejected]),
      (0x00, 0x04, [.communication]),
      (0x00, 0x08, [.communication]),
      (0x00, 0x10, [.coverOpen]),
      (0x00, 0x40, [.mediaJam]),
      (0x00, 0x80, [.unknown]),
      (0x03, 0x14, [.mediaEmpty, .communication, .coverOpen]),
      (0x08, 0x00, [.unknown]),  // undocumented bit
    ] as [(UInt8, UInt8, [Reason])])
  func errorBits_mapToReasons(error1: UInt8, error2: UInt8, reasons: [Reason]) throws {
    let s = try BrotherQLStatus(brotherStatus(error1: error1, error2: error2, statusType: 0x02))
    #expect(s.statusType == .errorOccurred)
    #expect(s.reasons == reasons)
  }

  @Test func errorStatusWithoutBits_isUnknown() throws {
    #expect(try BrotherQLStatus(brotherStatus(statusType: 0x02)).reasons == [.unknown])
  }

  @Test func statusTypesAndPhases() throws {
    let done = try BrotherQLStatus(brotherStatus(statusType: 0x01, phase: 0x01))
    #expect(done.statusType == .printingCompleted && done.phase == .printing)
    let note = try BrotherQLStatus(brotherStatus(statusType: 0x05, notification: 0x03))
    #expect(note.statusType == .notification && note.notification == 0x03)
    #expect(try BrotherQLStatus(brotherStatus(statusType: 0x06)).statusType == .phaseChange)
    #expect(try BrotherQLStatus(brotherStatus(statusType: 0x77)).statusType == .other(0x77))
  }

  @Test(arguments: [
    [] as [UInt8],
    [0x80, 0x20, 0x42],
    Array(brotherStatus().prefix(31)),
    brotherStatus() + [0x00],
    [0x81] + Array(brotherStatus().dropFirst()),
    [UInt8](repeating: 0xFF, count: 32),
    Array("ERRORS: 1 00000000 00000001\r\n".utf8),
  ])
  func malformedReplies_throwBadStatus(reply: [UInt8]) {
    #expect {
      _ = try BrotherQLStatus(reply)
    } throws: { ($0 as? BrotherQLError)?.code == .badStatus }
  }
}
