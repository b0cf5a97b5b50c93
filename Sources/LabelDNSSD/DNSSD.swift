import CAvahi
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// DNS-SD browsing for network printers, through Avahi's client library (loaded on the
/// first browse: a labeld nobody asks for devices never maps it). Discovery only shows
/// what is there, with the configuration line that would add it: labeld never prints to
/// a printer it found by itself.
package enum DNSSD {
  /// Raw-port printers (`_pdl-datastream._tcp`, what labeld drives) and IPP printers
  /// (`_ipp._tcp`, which belong in CUPS).
  package static let types = ["_pdl-datastream._tcp", "_ipp._tcp"]

  static let library: Result<Void, SharedLibrary.LoadError> = SharedLibrary.open([
    "libavahi-client.so.3", "libavahi-client.so",
  ]).map { cavahi_bind($0) }

  /// Why nothing could be looked for.
  package struct Failure: Error, Sendable {
    package var message: String
  }

  package struct Service: Sendable, Equatable {
    package var name: String
    package var type: String
    package var host: String
    package var address: String
    package var port: Int
    /// TXT record keys (lower-cased) and values.
    package var txt: [String: String]
  }

  /// The services of `types` answering within `timeoutMS`, or why none could be looked for.
  /// Blocking: call it off the cooperative pool.
  package static func browse(types: [String] = types, timeoutMS: Int32) -> Result<
    [Service], Failure
  > {
    if case .failure(let error) = library {
      return .failure(
        Failure(message: "DNS-SD: labeld cannot load Avahi's client library (\(error.message))"))
    }
    let max = 64
    var found = [cavahi_service](repeating: cavahi_service(), count: max)
    var error = [CChar](repeating: 0, count: 256)
    let cTypes = types.map { strdup($0) } + [nil]
    defer { for p in cTypes { free(p) } }
    let count = cTypes.withUnsafeBufferPointer { typesBuffer in
      typesBuffer.baseAddress!.withMemoryRebound(
        to: UnsafePointer<CChar>?.self, capacity: cTypes.count
      ) { typesPointer in
        found.withUnsafeMutableBufferPointer { out in
          error.withUnsafeMutableBufferPointer { e in
            cavahi_browse(
              typesPointer, timeoutMS, out.baseAddress, Int32(max), e.baseAddress, e.count)
          }
        }
      }
    }
    guard count >= 0 else {
      let why = String(
        decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return .failure(
        Failure(
          message:
            "DNS-SD: \(why) (is avahi-daemon running? labeld finds network printers through it)"
        ))
    }
    return .success(found.prefix(Int(count)).map(service))
  }

  private static func text<T>(_ value: T) -> String {
    withUnsafeBytes(of: value) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
  }

  private static func service(_ s: cavahi_service) -> Service {
    // TXT: "\"key=value\" \"key=value\"" as avahi prints it.
    var txt: [String: String] = [:]
    for part in text(s.txt).split(separator: "\"") where part.contains("=") {
      let kv = part.split(separator: "=", maxSplits: 1)
      txt[kv[0].lowercased()] = kv.count > 1 ? String(kv[1]) : ""
    }
    return Service(
      name: text(s.name), type: text(s.type), host: text(s.host), address: text(s.address),
      port: Int(s.port), txt: txt)
  }
}
