import Foundation
import Testing

@testable import LabelEvents

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The sequence record's format, one copy on disk, and where the sequence continues at
/// start-up from what survived.
struct AlertSequenceTests {
  static func tempDirectory() -> String {
    var template = Array("/tmp/labeld-seq-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
  }

  @Test func record_roundTrips_andDamageIsRecognised() {
    let record = SequenceRecord(
      generation: 7, reserved: 2048, gap: 1030...1042, sealed: false, degraded: true)
    let bytes = record.encoded()
    #expect(bytes.count == SequenceRecord.size)
    #expect(SequenceRecord.decode(bytes[...]) == .valid(record))
    #expect(SequenceRecord.decode([UInt8](repeating: 0, count: 64)[...]) == .empty)
    var torn = bytes
    torn[20] ^= 0x40
    #expect(SequenceRecord.decode(torn[...]) == .corrupt("checksum mismatch"))
    #expect(SequenceRecord.decode(bytes.prefix(40)) == .corrupt("short record (40 bytes)"))
    // A value no labeld writes (beyond 2^53) is corrupt, not a seq to continue from.
    let huge = SequenceRecord(reserved: UInt64.max - 3).encoded()
    guard case .corrupt = SequenceRecord.decode(huge[...]) else {
      Issue.record("a reservation beyond 2^53 was accepted")
      return
    }
  }

  @Test func file_keepsTheNewestRecord_andAWriteTornInOneSlotLeavesTheOther() throws {
    let dir = Self.tempDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/alert-seq"
    #expect(SequenceFile(path: path, syncs: true).read() == .missing)
    let file = SequenceFile(path: path, syncs: true)
    for (g, reserved) in [(1, 1024), (2, 2048), (3, 3072)] as [(UInt64, UInt64)] {
      let done = DispatchSemaphore(value: 0)
      file.write(SequenceRecord(generation: g, reserved: reserved)) { error in
        #expect(error == nil)
        done.signal()
      }
      done.wait()
    }
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect(attributes[.size] as? Int == 1024, "preallocated: two 512-byte slots")
    #expect(
      SequenceFile(path: path, syncs: true).read()
        == .valid(SequenceRecord(generation: 3, reserved: 3072)))
    // Generation 3 went to slot 0 (1, 2, 3 alternate 0, 1, 0): garble it.
    let fd = open(path, O_WRONLY)
    _ = pwrite(fd, "garbage", 7, 12)
    close(fd)
    #expect(
      SequenceFile(path: path, syncs: true).read()
        == .valid(SequenceRecord(generation: 2, reserved: 2048)))
  }

  @Test func file_refusesASymlinkPlantedInItsPlace() throws {
    let dir = Self.tempDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let victim = dir + "/victim"
    try "keep me".write(toFile: victim, atomically: true, encoding: .utf8)
    symlink(victim, dir + "/alert-seq")
    let done = DispatchSemaphore(value: 0)
    SequenceFile(path: dir + "/alert-seq", syncs: false).write(SequenceRecord(reserved: 5)) {
      #expect($0 != nil)
      done.signal()
    }
    done.wait()
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
  }

  // MARK: start-up

  static let now: UInt64 = 1_800_000_000_000
  typealias Copy = (name: String, read: SequenceFile.Read)
  static func copy(_ r: SequenceRecord?) -> Copy { ("f", r.map { .valid($0) } ?? .missing) }
  static func stored(_ max: UInt64, legacy: UInt64? = nil) -> SequenceStart.Stored {
    SequenceStart.Stored(maxSeq: max, legacyReserved: legacy, hasEvents: max > 0)
  }

  @Test func start_freshState_beginsAtOne() {
    let s = SequenceStart.decide(
      state: Self.copy(nil), mirror: Self.copy(nil), stored: Self.stored(0), nowMillis: Self.now)
    #expect(s.next == 1 && s.newest == 0 && !s.usesFloor && s.lost == nil)
  }

  @Test func start_afterACleanStop_continuesWithoutAJump() {
    let sealed = SequenceRecord(generation: 4, reserved: 40, sealed: true)
    let s = SequenceStart.decide(
      state: Self.copy(sealed), mirror: nil, stored: Self.stored(40), nowMillis: Self.now)
    #expect(s.next == 41 && s.newest == 40 && !s.usesFloor && s.generation == 4)
  }

  @Test func start_afterACrashConfirmedByTheMirror_jumpsPastTheReservation() {
    let r = SequenceRecord(generation: 9, reserved: 1064)
    let s = SequenceStart.decide(
      state: Self.copy(r), mirror: Self.copy(r), stored: Self.stored(40), nowMillis: Self.now)
    #expect(s.next == 1065 && s.newest == 40 && !s.usesFloor && s.lost == nil)
  }

  @Test func start_recordedGap_isLost() {
    let r = SequenceRecord(generation: 9, reserved: 1064, gap: 50...60)
    let s = SequenceStart.decide(
      state: Self.copy(r), mirror: Self.copy(r), stored: Self.stored(49), nowMillis: Self.now)
    #expect(s.lost == 50...60 && !s.usesFloor)
  }

  @Test func start_unreadableRows_areLost() {
    var stored = Self.stored(20)
    stored.unreadable = [9, 7]
    let sealed = SequenceRecord(generation: 1, reserved: 20, sealed: true)
    let s = SequenceStart.decide(
      state: Self.copy(sealed), mirror: nil, stored: stored, nowMillis: Self.now)
    #expect(s.lost == 7...9 && s.next == 21)
  }

  /// Each case cannot vouch for the seqs the last run handed out: the clock floor, and
  /// everything after the newest stored event counts as lost.
  @Test(arguments: [
    (
      "crash, no mirror", Optional(SequenceRecord(generation: 2, reserved: 1064)), Copy?.none,
      Optional(Self.stored(40))
    ),
    (
      "degraded", SequenceRecord(generation: 2, reserved: 1064, degraded: true),
      Self.copy(SequenceRecord(generation: 2, reserved: 1064, degraded: true)), Self.stored(40)
    ),
    (
      "journal ahead", SequenceRecord(generation: 2, reserved: 1064, sealed: true), nil,
      Self.stored(2000)
    ),
    ("file lost", nil, Self.copy(nil), Self.stored(40)),
    ("nothing readable", nil, Self.copy(nil), nil),
  ])
  func start_untrustworthy_takesTheClockFloor(
    _ what: String, _ state: SequenceRecord?, _ mirror: Copy?, _ stored: SequenceStart.Stored?
  ) {
    let s = SequenceStart.decide(
      state: Self.copy(state), mirror: mirror, stored: stored, nowMillis: Self.now)
    #expect(s.usesFloor, "\(what)")
    #expect(s.next == Self.now, "\(what)")
    #expect(s.lost == ((stored?.maxSeq ?? 0) + 1)...(Self.now - 1), "\(what)")
  }

  @Test func start_corruptCopy_isReported_andTakesTheFloor() {
    let r = SequenceRecord(generation: 2, reserved: 1064)
    let s = SequenceStart.decide(
      state: ("state", .corrupt("checksum mismatch")), mirror: ("mirror", .valid(r)),
      stored: Self.stored(40), nowMillis: Self.now)
    #expect(s.problems == ["the alert sequence file state cannot be read: checksum mismatch"])
    #expect(s.usesFloor && s.next == Self.now)
  }

  @Test func start_legacyReservation_isHonoured() {
    let s = SequenceStart.decide(
      state: Self.copy(nil), mirror: Self.copy(nil), stored: Self.stored(40, legacy: 1024),
      nowMillis: Self.now)
    #expect(s.next == 1025 && !s.usesFloor)
  }
}
