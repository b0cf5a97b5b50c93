/// SHA-1 (RFC 3174), for the one place RFC 6455 fixes it: the handshake's accept key
/// (§4.2.2, §1.3). Not for anything that needs a secure hash. Here, not in a library, so
/// both ends of the codec (labeld, and LabelKit on any platform) compute it the same way.
package enum SHA1 {
  package static func hash(_ message: [UInt8]) -> [UInt8] {
    var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    // Padding (§4): a 1 bit, zeros, then the length in bits as 64 bits, to a multiple of 64.
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    let bits = UInt64(truncatingIfNeeded: message.count) &* 8
    for i in (0..<8).reversed() {
      padded.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8)))
    }
    var w = [UInt32](repeating: 0, count: 80)
    for block in stride(from: 0, to: padded.count, by: 64) {
      for t in 0..<16 {
        let i = block + t * 4
        w[t] =
          UInt32(padded[i]) << 24 | UInt32(padded[i + 1]) << 16 | UInt32(padded[i + 2]) << 8
          | UInt32(padded[i + 3])
      }
      for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
      var (a, b, c, d, e) = h
      for t in 0..<80 {
        let f: UInt32
        let k: UInt32
        switch t {
        case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
        case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
        case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
        default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
        }
        let temp = rotl(a, 5) &+ f &+ e &+ w[t] &+ k
        (e, d, c, b, a) = (d, c, rotl(b, 30), a, temp)
      }
      h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }
    var out: [UInt8] = []
    out.reserveCapacity(20)
    for word in [h.0, h.1, h.2, h.3, h.4] {
      for shift in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
    }
    return out
  }

  private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}

/// Base64 (RFC 4648 §4), both ways, for the handshake's keys.
package enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  package static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
      let n = min(3, bytes.count - i)
      let b0 = bytes[i]
      let b1 = n > 1 ? bytes[i + 1] : 0
      let b2 = n > 2 ? bytes[i + 2] : 0
      out.append(alphabet[Int(b0 >> 2)])
      out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
      out.append(n > 1 ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : 0x3D)
      out.append(n > 2 ? alphabet[Int(b2 & 0x3F)] : 0x3D)
      i += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Nil when `text` is not canonical padded base64.
  package static func decode(_ text: String) -> [UInt8]? {
    let chars = Array(text.utf8)
    guard chars.count % 4 == 0 else { return nil }
    var out: [UInt8] = []
    var i = 0
    while i < chars.count {
      var values: [UInt8] = []
      for j in 0..<4 {
        let c = chars[i + j]
        if c == 0x3D {
          guard i + 4 == chars.count, j >= 2 else { return nil }
          continue
        }
        guard values.count == j, let v = alphabet.firstIndex(of: c) else { return nil }
        values.append(UInt8(v))
      }
      out.append(values[0] << 2 | values[1] >> 4)
      if values.count > 2 { out.append(values[1] << 4 | values[2] >> 2) }
      if values.count > 3 { out.append(values[2] << 6 | values[3]) }
      i += 4
    }
    return out
  }
}
