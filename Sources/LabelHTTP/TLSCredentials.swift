import CHTTP

/// The certificate and key the HTTP endpoint presents (one set for every listener).
package enum TLSCredentials {
  /// Presents `certificate` (a PEM chain, the server's first) with `key` (PEM) on new
  /// connections from now on. Throws when either does not parse or they do not match.
  package static func install(certificate: [UInt8], key: [UInt8]) throws(HTTPError) {
    try HTTPLibraries.require()
    var error = [CChar](repeating: 0, count: 256)
    let rc = certificate.withUnsafeBytes { c in
      key.withUnsafeBytes { k in
        error.withUnsafeMutableBufferPointer { e in
          chttp_set_credentials(
            nil, c.baseAddress?.assumingMemoryBound(to: CChar.self), c.count,
            k.baseAddress?.assumingMemoryBound(to: CChar.self), k.count, e.baseAddress, e.count)
        }
      }
    }
    guard rc == 0 else { throw HTTPError(Self.text(error)) }
  }

  /// A new self-signed certificate for `hostname` (and localhost, 127.0.0.1, ::1) with its
  /// key, both PEM.
  package static func selfSigned(hostname: String) throws(HTTPError) -> (
    certificate: [UInt8], key: [UInt8]
  ) {
    try HTTPLibraries.require()
    var cert = [CChar](repeating: 0, count: 8192)
    var key = [CChar](repeating: 0, count: 8192)
    var certSize = cert.count
    var keySize = key.count
    var error = [CChar](repeating: 0, count: 256)
    let rc = cert.withUnsafeMutableBufferPointer { c in
      key.withUnsafeMutableBufferPointer { k in
        error.withUnsafeMutableBufferPointer { e in
          chttp_make_self_signed(
            hostname, c.baseAddress, &certSize, k.baseAddress, &keySize, e.baseAddress, e.count)
        }
      }
    }
    guard rc == 0 else { throw HTTPError("cannot make a certificate: \(Self.text(error))") }
    return (
      cert.prefix(min(certSize, cert.count)).map { UInt8(bitPattern: $0) },
      key.prefix(min(keySize, key.count)).map { UInt8(bitPattern: $0) }
    )
  }

  /// The SHA-256 fingerprint of the first certificate of a PEM chain, as clients pin it:
  /// upper-case hex pairs joined by colons. Nil when it is not a certificate.
  package static func fingerprint(certificate: [UInt8]) throws(HTTPError) -> String? {
    try HTTPLibraries.require()
    var out = [UInt8](repeating: 0, count: 32)
    let rc = certificate.withUnsafeBytes { c in
      out.withUnsafeMutableBufferPointer {
        chttp_certificate_sha256(
          c.baseAddress?.assumingMemoryBound(to: CChar.self), c.count, $0.baseAddress)
      }
    }
    guard rc == 0 else { return nil }
    return out.map { Digest.hex([$0]).uppercased() }.joined(separator: ":")
  }

  private static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
