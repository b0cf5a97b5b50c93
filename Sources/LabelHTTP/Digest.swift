import CHTTP

/// The hashes labeld needs, from GnuTLS: SHA-1 for the WebSocket handshake (RFC 6455
/// §4.2.2 fixes it) and SHA-256 for tokens and certificate fingerprints.
package enum Digest {
  package static func sha1(_ bytes: [UInt8]) throws(HTTPError) -> [UInt8] {
    try hash(bytes, size: 20, chttp_sha1)
  }

  package static func sha256(_ bytes: [UInt8]) throws(HTTPError) -> [UInt8] {
    try hash(bytes, size: 32, chttp_sha256)
  }

  private static func hash(
    _ bytes: [UInt8], size: Int,
    _ function: (UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?) -> Void
  ) throws(HTTPError) -> [UInt8] {
    try HTTPLibraries.require()
    var out = [UInt8](repeating: 0, count: size)
    bytes.withUnsafeBytes { b in
      out.withUnsafeMutableBufferPointer { function(b.baseAddress, b.count, $0.baseAddress) }
    }
    return out
  }

  /// Lower-case hex, two digits a byte.
  package static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Whether `a` and `b` are equal, in time that depends on their length only (a token's
  /// hash compared with the stored ones tells nothing by when it stops).
  package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in 0..<a.count { difference |= a[i] ^ b[i] }
    return difference == 0
  }
}
