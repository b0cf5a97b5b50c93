import CAvahi
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Announces services through avahi-daemon (DNS-SD), for as long as it lives: registered
/// again when avahi-daemon restarts, renamed on a name collision. The C side (`CAvahi`,
/// publish.c) owns every Avahi object on a thread of Avahi's; this object owns the C one.
package final class DNSSDPublisher: Sendable {
  private let handle: Handle

  /// One service: its instance name, type (`_ipps._tcp`), port, subtypes (written whole:
  /// `_print._sub._ipps._tcp`) and TXT record.
  package struct Service: Sendable, Equatable {
    package var name: String
    package var type: String
    package var port: Int
    package var subtypes: [String]
    package var txt: [(String, String)]

    package init(name: String, type: String, port: Int, subtypes: [String], txt: [(String, String)])
    {
      self.name = name
      self.type = type
      self.port = port
      self.subtypes = subtypes
      self.txt = txt
    }

    package static func == (a: Service, b: Service) -> Bool {
      a.name == b.name && a.type == b.type && a.port == b.port && a.subtypes == b.subtypes
        && a.txt.map { $0.0 + "=" + $0.1 } == b.txt.map { $0.0 + "=" + $0.1 }
    }
  }

  /// Starts Avahi's thread; a sentence when it cannot (Avahi's library missing).
  package init() throws(DNSSD.Failure) {
    if case .failure(let error) = DNSSD.library {
      throw DNSSD.Failure(message: "labeld cannot load Avahi's client library (\(error.message))")
    }
    var error = [CChar](repeating: 0, count: 256)
    let made = error.withUnsafeMutableBufferPointer {
      cavahi_publisher_new($0.baseAddress, $0.count)
    }
    guard let made else {
      throw DNSSD.Failure(
        message: String(
          decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    handle = Handle(pointer: made)
  }

  deinit { cavahi_publisher_free(handle.pointer) }

  /// Announces `service`; its id, to withdraw it, or nil when it cannot be kept.
  package func publish(_ service: Service) -> Int32? {
    let subtypes = service.subtypes.map { strdup($0) } + [nil]
    // A TXT string is at most 255 bytes (RFC 6763 §6.1).
    let txt =
      service.txt.map { strdup(String(($0.0 + "=" + $0.1).utf8.prefix(255)) ?? $0.0) } + [nil]
    defer {
      subtypes.forEach { free($0) }
      txt.forEach { free($0) }
    }
    let constSubtypes: [UnsafePointer<CChar>?] = subtypes.map { $0.map { UnsafePointer($0) } }
    let constTXT: [UnsafePointer<CChar>?] = txt.map { $0.map { UnsafePointer($0) } }
    let id = constSubtypes.withUnsafeBufferPointer { s in
      constTXT.withUnsafeBufferPointer { t in
        cavahi_publish(
          handle.pointer, service.name, service.type, UInt16(clamping: service.port), s.baseAddress,
          t.baseAddress)
      }
    }
    return id > 0 ? id : nil
  }

  package func withdraw(_ id: Int32) { cavahi_withdraw(handle.pointer, id) }

  /// The name service `id` is announced under now, and whether avahi-daemon has it
  /// registered; nil for no such service.
  package func name(_ id: Int32) -> (name: String, registered: Bool)? {
    var out = [CChar](repeating: 0, count: 256)
    let state = out.withUnsafeMutableBufferPointer {
      cavahi_published_name(handle.pointer, id, $0.baseAddress, $0.count)
    }
    guard state >= 0 else { return nil }
    return (
      String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
      state == 0
    )
  }

  /// The C publisher: Avahi's lock guards it inside; it is freed once, in deinit.
  private struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
  }
}
