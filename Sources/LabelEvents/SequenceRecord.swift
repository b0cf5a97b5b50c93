/// What labeld keeps beside the alert journal so that a seq is never handed out twice and a
/// hole in the journal is never silent. Written before the events it covers are delivered.
///
/// Fixed size, little-endian, with a checksum, so a torn or foreign write is recognised
/// instead of trusted.
package struct SequenceRecord: Equatable, Sendable {
  /// Which write this is; the copy with the highest generation is the newest.
  package var generation: UInt64 = 0
  /// No seq above this was handed out while this record was the newest (unless a later
  /// write failed everywhere, which the next successful one reports as `degraded`).
  package var reserved: UInt64
  /// Seqs that may have reached clients without being in the journal.
  package var gap: ClosedRange<UInt64>?
  /// Written on a clean stop: `reserved` is the last seq used, so the next start continues
  /// without a jump.
  package var sealed = false
  /// A record could not be written to any copy since the run began: `reserved` may have been
  /// passed without a trace, so the next start takes the clock floor too.
  package var degraded = false

  /// The largest seq labeld hands out: JSON clients read integers exactly up to 2^53, and
  /// arithmetic on seqs can then never overflow. Larger stored values are corrupt.
  package static let maxSeq: UInt64 = 1 << 53

  package static let size = 64
  private static let magic: [UInt8] = Array("LBLDSEQ1".utf8)

  package func encoded() -> [UInt8] {
    var bytes = Self.magic
    let flags: UInt64 = (sealed ? 1 : 0) | (degraded ? 2 : 0)
    // The sixth field is spare (zero): room for one more without a new format.
    let fields: [UInt64] = [
      generation, reserved, gap?.lowerBound ?? 0, gap?.upperBound ?? 0, flags, 0,
    ]
    for field in fields {
      bytes += Self.littleEndian(field)
    }
    bytes += Self.littleEndian(Self.checksum(bytes))
    return bytes
  }

  package enum Decoded: Equatable {
    /// Never written (all zeros).
    case empty
    case valid(SequenceRecord)
    case corrupt(String)
  }

  package static func decode(_ bytes: ArraySlice<UInt8>) -> Decoded {
    let b = Array(bytes.prefix(size))
    if b.allSatisfy({ $0 == 0 }) { return .empty }
    guard b.count == size else { return .corrupt("short record (\(b.count) bytes)") }
    guard Array(b[0..<8]) == magic else { return .corrupt("not a sequence record") }
    let fields: [UInt64] = (0..<7).map { (i: Int) -> UInt64 in
      var v: UInt64 = 0
      for k in 0..<8 { v |= UInt64(b[8 + i * 8 + k]) << UInt64(8 * k) }
      return v
    }
    guard fields[6] == checksum(Array(b[0..<56])) else { return .corrupt("checksum mismatch") }
    let (gapFrom, gapThrough, flags) = (fields[2], fields[3], fields[4])
    guard fields[1] <= maxSeq, gapThrough <= maxSeq, gapFrom <= gapThrough, flags <= 3 else {
      return .corrupt(
        "impossible values (reserved \(fields[1]), gap \(gapFrom)-\(gapThrough), flags \(flags))")
    }
    return .valid(
      SequenceRecord(
        generation: fields[0], reserved: fields[1],
        gap: gapThrough == 0 ? nil : max(1, gapFrom)...gapThrough, sealed: flags & 1 != 0,
        degraded: flags & 2 != 0))
  }

  private static func littleEndian(_ v: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
  }

  /// FNV-1a, 64 bits: enough to tell a torn or stray write from a record.
  private static func checksum(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
  }

  /// The same hash, for naming a state directory's mirror in a shared runtime directory.
  package static func hash(_ text: String) -> UInt64 { checksum(Array(text.utf8)) }

  package init(
    generation: UInt64 = 0, reserved: UInt64, gap: ClosedRange<UInt64>? = nil,
    sealed: Bool = false, degraded: Bool = false
  ) {
    self.generation = generation
    self.reserved = reserved
    self.gap = gap
    self.sealed = sealed
    self.degraded = degraded
  }
}

/// The smallest range holding both (nil counts as empty).
package func hull(_ a: ClosedRange<UInt64>?, _ b: ClosedRange<UInt64>?) -> ClosedRange<UInt64>? {
  guard let a else { return b }
  guard let b else { return a }
  return min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound)
}
