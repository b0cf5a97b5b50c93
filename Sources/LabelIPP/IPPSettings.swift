import LabelHTTP

/// How the IPP front is set up (labeld's `--listen-ipp`, `ipp-print`).
package struct IPPSettings: Sendable, Equatable {
  /// Who may print (and cancel): operators signed in with a token (HTTP Basic, the token
  /// as password), or anyone who can reach the endpoint.
  package enum PrintAccess: String, Sendable, Equatable {
    case `operator`
    case anyone
  }

  package var listen: [HTTPAddress] = []
  /// The web endpoint's TLS settings: IPPS is served with the same certificate.
  package var tls = TLSFiles()
  package var printAccess = PrintAccess.operator
  package var limits = HTTPServer.Limits()
  /// The most one request may hold, its document included.
  package var maxRequestBytes = 64 << 20
  /// The most all requests being read may hold together.
  package var maxBytesInFlight = 256 << 20
  /// The status page's address (the web endpoint's, when it is on): printer-more-info.
  package var statusPage: String?

  /// Seconds a job made by Create-Job waits for its document before it is aborted
  /// (multiple-operation-time-out, RFC 8011 §5.4.28).
  static let multipleOperationTimeOut = 60

  package init() {}

  /// Why these settings cannot be served: a plain address off this machine (tokens would
  /// cross the network in the clear, and so would labels).
  package var problem: String? {
    if let problem = tls.problem { return problem }
    if !tls.configured, let open = listen.first(where: { !$0.isLocal }) {
      return "--listen-ipp \(open): plain IPP is for this machine only (unix:, 127.0.0.1, "
        + "[::1]); give --tls-cert and --tls-key, or --tls-self-signed, to serve IPPS"
    }
    return nil
  }
}
