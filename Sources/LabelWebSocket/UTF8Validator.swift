/// Checks UTF-8 as it arrives, a fragment at a time, so a text message that is not UTF-8
/// fails as soon as its bytes prove it (RFC 6455 §8.1), not when it ends. The well-formed
/// sequences are those of the Unicode Standard's Table 3-7 (no overlongs, no surrogates,
/// nothing past U+10FFFF).
package struct UTF8Validator: Sendable {
  /// Continuation bytes still expected for the sequence begun.
  private var needed = 0
  /// The range the next continuation byte must be in (narrower after E0, ED, F0, F4).
  private var low: UInt8 = 0x80
  private var high: UInt8 = 0xBF

  package init() {}

  /// Takes more bytes; false once they cannot be UTF-8 whatever follows.
  package mutating func take<C: Collection<UInt8>>(_ bytes: C) -> Bool {
    for b in bytes {
      if needed == 0 {
        switch b {
        case 0x00...0x7F: continue
        case 0xC2...0xDF: needed = 1
        case 0xE0: (needed, low, high) = (2, 0xA0, 0xBF); continue
        case 0xE1...0xEC, 0xEE...0xEF: needed = 2
        case 0xED: (needed, low, high) = (2, 0x80, 0x9F); continue
        case 0xF0: (needed, low, high) = (3, 0x90, 0xBF); continue
        case 0xF1...0xF3: needed = 3
        case 0xF4: (needed, low, high) = (3, 0x80, 0x8F); continue
        default: return false
        }
        (low, high) = (0x80, 0xBF)
      } else {
        guard b >= low && b <= high else { return false }
        needed -= 1
        (low, high) = (0x80, 0xBF)
      }
    }
    return true
  }

  /// Whether the bytes so far end where a character ends (a message may end here).
  package var isComplete: Bool { needed == 0 }

  /// Whether `bytes` are UTF-8, whole.
  package static func isValid<C: Collection<UInt8>>(_ bytes: C) -> Bool {
    var v = UTF8Validator()
    return v.take(bytes) && v.isComplete
  }
}
