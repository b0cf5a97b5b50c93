/// A certificate pin: the SHA-256 of the server's leaf certificate (its DER), as labeld
/// logs it (hex pairs, colons allowed, any case). Compared the same way on every platform.
enum PinCheck {
  /// The 32 bytes of `fingerprint`; nil when it is not 64 hex digits.
  static func parse(_ fingerprint: String) -> [UInt8]? {
    let digits = Array(fingerprint.utf8.filter { $0 != 0x3A && $0 != 0x20 })
    guard digits.count == 64 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(32)
    var i = 0
    while i < 64 {
      guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
      out.append(high << 4 | low)
      i += 2
    }
    return out
  }

  /// Whether `seen` is the pin, in time that depends on the length only.
  static func matches(_ seen: [UInt8], _ pinned: [UInt8]) -> Bool {
    guard seen.count == pinned.count else { return false }
    var difference: UInt8 = 0
    for i in 0..<seen.count { difference |= seen[i] ^ pinned[i] }
    return difference == 0
  }

  /// Upper-case hex pairs joined by colons, as labeld logs a fingerprint.
  static func text(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return bytes.map {
      String(decoding: [digits[Int($0 >> 4)], digits[Int($0 & 15)]], as: UTF8.self)
    }
    .joined(separator: ":")
  }

  static func mismatch(seen: [UInt8], pinned: [UInt8]) -> String {
    "the server's certificate (SHA-256 \(text(seen))) is not the pinned one (\(text(pinned)))"
  }

  private static func value(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: c - 0x30
    case 0x41...0x46: c - 0x37
    case 0x61...0x66: c - 0x57
    default: nil
    }
  }
}
