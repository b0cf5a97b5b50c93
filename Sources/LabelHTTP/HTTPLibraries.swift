import CHTTP
import LabelPOSIX

/// libmicrohttpd and GnuTLS, opened the first time labeld serves HTTP: a labeld without
/// `--listen-http` never maps them.
package enum HTTPLibraries {
  /// Debian's sonames, then the development links.
  static let microhttpdNames = ["libmicrohttpd.so.12", "libmicrohttpd.so"]
  static let gnutlsNames = ["libgnutls.so.30", "libgnutls.so"]

  private static let loaded: Result<Void, SharedLibrary.LoadError> = SharedLibrary.open(
    gnutlsNames
  ).flatMap { gnutls in
    SharedLibrary.open(microhttpdNames).map { chttp_bind($0, gnutls) }
  }

  /// Opens both if they are not open yet.
  package static func require() throws(HTTPError) {
    if case .failure(let error) = loaded {
      throw HTTPError("labeld cannot load libmicrohttpd and GnuTLS: \(error.message)")
    }
  }
}

/// What went wrong serving HTTP or handling TLS material, as a sentence.
package struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
  package var description: String
  package init(_ description: String) { self.description = description }
}
