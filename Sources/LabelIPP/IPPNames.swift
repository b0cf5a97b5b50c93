import LabelHTTP

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Where labeld's printers are on IPP: `/ipp/print/ID`, their ids percent-encoded (a
/// printer id's `:` is a path character as it is), and their stable UUIDs.
enum IPPNames {
  static let prefix = "/ipp/print/"
  static let iconPath = "/ipp/icon.png"

  /// This machine's host name (for DNS-SD's `NAME.local`).
  static var hostName: String {
    var name = [CChar](repeating: 0, count: 256)
    gethostname(&name, name.count - 1)
    let host = String(
      decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return host.isEmpty ? "localhost" : host
  }

  /// `/ipp/print/sim:zebra`.
  static func path(printer id: String) -> String {
    var out = prefix
    for byte in id.utf8 {
      switch byte {
      case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E, 0x3A, 0x40:
        out.append(Character(Unicode.Scalar(byte)))
      default:
        out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
      }
    }
    return out
  }

  /// `ipp://host:port/ipp/print/sim:zebra`.
  static func uri(base: String, printer id: String) -> String { base + path(printer: id) }

  /// The printer id a printer-uri (or a request's path) names; nil for none.
  static func printer(fromURI uri: String) -> String? {
    var path = Substring(uri)
    if let scheme = path.firstRange(of: "://") {
      path = path[scheme.upperBound...]
      guard let slash = path.firstIndex(of: "/") else { return nil }
      path = path[slash...]
    }
    if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
    guard path.hasPrefix(prefix) else { return nil }
    return percentDecoded(path.dropFirst(prefix.count))
  }

  private static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var utf8 = text.utf8.makeIterator()
    while let byte = utf8.next() {
      if byte == 0x25 {
        guard let high = utf8.next(), let low = utf8.next(),
          let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
        else { return nil }
        bytes.append(value)
      } else {
        bytes.append(byte)
      }
    }
    guard !bytes.isEmpty, !bytes.contains(0x2F) else { return nil }
    return String(validating: bytes, as: UTF8.self)
  }

  /// A printer's UUID (RFC 4122, version 5 form from SHA-256): the same for the same
  /// labeld state and printer id, across restarts; different between two labelds.
  static func uuid(seed: [UInt8], printer id: String) -> String {
    var hash =
      (try? Digest.sha256(seed + Array("\u{0}labeld ipp printer\u{0}\(id)".utf8)))
      ?? [UInt8](repeating: 0, count: 32)
    hash[6] = (hash[6] & 0x0F) | 0x50
    hash[8] = (hash[8] & 0x3F) | 0x80
    let hex = hash.prefix(16).map { String($0, radix: 16).leftPadded(2) }.joined()
    let h = Array(hex)
    return "urn:uuid:"
      + [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(h[$0]) }
      .joined(separator: "-")
  }
}

extension String {
  func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
