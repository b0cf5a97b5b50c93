import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A `Decimal`'s sign, exponent and mantissa, read from its bytes. Off Apple's platforms
/// swift-foundation keeps these fields internal. Its layout (read off this toolchain's,
/// 6.3): an `Int8` exponent; a byte holding the mantissa's length in 16-bit words (high 4
/// bits), the sign (bit 3) and the compact flag (bit 2); two reserved bytes; then eight
/// `UInt16` mantissa words, low word first, little-endian. The layout is checked once,
/// against `description`, on values of every length, sign and exponent; if a Foundation
/// ever lays it out otherwise, `layoutHolds` is false and nothing reads it.
package enum DecimalBytes {
  package struct Parts: Equatable, Sendable {
    package var negative: Bool
    package var exponent: Int
    package var mantissa: UInt64
  }

  package static let layoutHolds: Bool = {
    let probes: [Decimal] = [
      Decimal(string: "2.49")!, Decimal(string: "-0.5")!, Decimal(string: "1e-7")!,
      Decimal(string: "5E+3")!, Decimal(string: "-1.000")!, Decimal(string: "123456.78")!,
      Decimal(string: "-98765432101234.5")!, Decimal(UInt64.max), Decimal(string: "1e-100")!,
      Decimal(sign: .minus, exponent: 40, significand: 4_294_967_297),
    ]
    return probes.allSatisfy { probe in
      guard let parts = parts(probe) else { return false }
      var bytes: [UInt8] = []
      write(parts, into: &bytes)
      return bytes.elementsEqual(probe.description.utf8)
    }
  }()

  /// The parts of a decimal whose mantissa fits 64 bits; nil for NaN, zero and wider ones.
  /// Meaningful only where `layoutHolds`.
  package static func parts(_ value: Decimal) -> Parts? {
    guard MemoryLayout<Decimal>.size == 20 else { return nil }
    return withUnsafeBytes(of: value) { raw -> Parts? in
      let flags = raw[1]
      let words = Int(flags >> 4)
      guard (1...4).contains(words) else { return nil }
      var mantissa: UInt64 = 0
      for w in 0..<words {
        let word = UInt64(raw[4 + 2 * w]) | UInt64(raw[5 + 2 * w]) << 8
        mantissa |= word << (16 * w)
      }
      return Parts(
        negative: flags & 0x08 != 0, exponent: Int(Int8(bitPattern: raw[0])), mantissa: mantissa)
    }
  }

  /// The parts as `Decimal.description` writes them: the mantissa's digits, a point
  /// `-exponent` digits from the right (with "0." and zeros before a shorter mantissa), or
  /// `exponent` zeros after them.
  package static func write(_ parts: Parts, into bytes: inout [UInt8]) {
    var digits: [UInt8] = []
    var rest = parts.mantissa
    repeat {
      digits.append(UInt8(truncatingIfNeeded: rest % 10) + 0x30)
      rest /= 10
    } while rest > 0
    digits.reverse()
    if parts.negative { bytes.append(UInt8(ascii: "-")) }
    if parts.exponent >= 0 {
      bytes.append(contentsOf: digits)
      bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: parts.exponent))
      return
    }
    let fraction = -parts.exponent
    if digits.count > fraction {
      bytes.append(contentsOf: digits[..<(digits.count - fraction)])
      bytes.append(UInt8(ascii: "."))
      bytes.append(contentsOf: digits[(digits.count - fraction)...])
    } else {
      bytes.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: ".")])
      bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: fraction - digits.count))
      bytes.append(contentsOf: digits)
    }
  }
}
