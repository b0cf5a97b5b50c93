import FoundationEssentials
import LabelCore
import LabelHTTP
import LabelLog
import LabelPOSIX
import LabelServer
import LabelWebSocket
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// How the web endpoint is set up (labeld's `--listen-http`, `--tls-*`, `web-origin`).
package struct WebSettings: Sendable, Equatable {
  package var listen: [HTTPAddress] = []
  /// PEM files; both or neither.
  package var certificatePath: String?
  package var keyPath: String?
  /// Without a certificate, make a self-signed one in `stateDirectory` (for addresses
  /// other than this machine's own, which are served with TLS only).
  package var selfSigned = false
  package var stateDirectory = "/var/lib/labeld"
  /// Browser origins allowed besides the page's own (`https://pos.example.com`).
  package var allowedOrigins: [String] = []
  package var limits = HTTPServer.Limits()
  /// The protocol's message limit, as on the Unix socket.
  package var maxMessageBytes = 1 << 20

  package init() {}

  package var usesTLS: Bool { certificatePath != nil || selfSigned }
}

/// labeld over HTTP: protocol v1 over a WebSocket at `/v1/ws` (the Unix socket's pipeline
/// with a second framing), the status page at `/`, its script as `/v1/client.js`, and
/// `/metrics`. Off unless configured; every request but the page's files needs a token;
/// HTTP is parsed by libmicrohttpd (`LabelHTTP`), never here.
package final class WebEndpoint: Sendable {
  private struct Listener: Sendable {
    var address: HTTPAddress
    var fd: Int32
    var tls: Bool
    /// What the address is bound to (the port chosen for port 0).
    var bound: String
    var opened: HTTPListener
  }

  private let settings: WebSettings
  private let server: Server
  private let tokens: WebTokens
  private let metrics: @Sendable () async -> [UInt8]
  private let log: Logger
  private let listeners = Mutex<[Listener]>([])
  private let servers = Mutex<[HTTPServer]>([])
  private let pending = Mutex<[UInt64: Caller]>([:])
  private let nextTag = Atomic<UInt64>(1)
  /// Requests answered later (`/metrics`): libmicrohttpd must not stop while one is still
  /// suspended (it aborts the process), so `stop` answers those left 503 first.
  private let deferred = Mutex<[UInt64: HTTPReply]>([:])
  private let stopping = Atomic<Bool>(false)

  package init(
    settings: WebSettings, server: Server, tokens: WebTokens,
    metrics: @escaping @Sendable () async -> [UInt8], log: Logger
  ) {
    self.settings = settings
    self.server = server
    self.tokens = tokens
    self.metrics = metrics
    self.log = log
  }

  /// Checks the settings without opening anything: a plain address off this machine is an
  /// error (tokens would cross the network in the clear).
  package static func validate(_ settings: WebSettings) -> String? {
    if (settings.certificatePath == nil) != (settings.keyPath == nil) {
      return "--tls-cert and --tls-key go together"
    }
    if !settings.usesTLS, let open = settings.listen.first(where: { !$0.isLocal }) {
      return "--listen-http \(open): plain HTTP is for this machine only (unix:, 127.0.0.1, "
        + "[::1]); give --tls-cert and --tls-key, or --tls-self-signed, to serve it with TLS"
    }
    return nil
  }

  /// Opens the listeners and serves. Throws a sentence for the log.
  package func start() throws(HTTPError) {
    guard !settings.listen.isEmpty else { return }
    if let problem = Self.validate(settings) { throw HTTPError(problem) }
    try HTTPLibraries.require()
    if settings.usesTLS { try loadCredentials() }
    for address in settings.listen {
      let opened = try HTTPListener(address, flag: "--listen-http")
      let tls = settings.usesTLS && !opened.isUnix
      let listener = Listener(
        address: address, fd: opened.fd, tls: tls, bound: opened.bound, opened: opened)
      do {
        let http = try HTTPServer(
          listenFD: opened.fd, tls: tls, limits: settings.limits,
          onRequest: { [weak self] request in self?.handle(request, listener) },
          onUpgrade: { [weak self] tag, socket, early in
            self?.upgraded(tag: tag, socket: socket, early: early)
          })
        servers.withLock { $0.append(http) }
      } catch {
        opened.close()
        throw HTTPError("--listen-http \(address): \(error)")
      }
      listeners.withLock { $0.append(listener) }
      log.info("web endpoint on \(tls ? "https" : "http")://\(listener.bound) (WebSocket /v1/ws)")
    }
    if tokens.isEmpty {
      log.warning(
        "no web tokens: nothing can sign in yet (labelctl tokens create NAME --role viewer)")
    }
  }

  /// Requests read and not answered yet (a `/metrics` being made).
  package var answersInProgress: Int { deferred.withLock { $0.count } }

  /// Where it listens, as bound (`127.0.0.1:43817`).
  package var boundAddresses: [String] { listeners.withLock { $0.map(\.bound) } }

  /// Stops the HTTP servers and closes the listeners; the WebSocket connections are the
  /// Unix socket's server's and close with it, before.
  package func stop() {
    stopping.store(true, ordering: .sequentiallyConsistent)
    let waiting = deferred.withLock { d in
      defer { d = [:] }
      return Array(d.values)
    }
    for reply in waiting { reply.respond(status: 503, headers: [("Retry-After", "5")]) }
    let all = servers.withLock { s in
      defer { s = [] }; return s
    }
    for http in all { http.stop() }
    for listener in listeners.withLock({ l in
      defer { l = [] }; return l
    }) {
      listener.opened.close()
    }
  }

  /// Reads the certificate and key again (SIGHUP); a failure keeps the ones in use.
  package func reloadCredentials() {
    guard !listeners.withLock({ $0.isEmpty }), settings.usesTLS else { return }
    do {
      try loadCredentials()
    } catch {
      log.error("TLS: \(error); still presenting the certificate loaded before")
    }
  }

  private func loadCredentials() throws(HTTPError) {
    var files = TLSFiles()
    files.certificatePath = settings.certificatePath
    files.keyPath = settings.keyPath
    files.selfSigned = settings.selfSigned
    files.stateDirectory = settings.stateDirectory
    let installed = try files.install()
    if installed.made { log.notice("made a self-signed certificate in \(installed.path)") }
    log.info("TLS certificate \(installed.path), SHA-256 \(installed.fingerprint ?? "?")")
  }

  // MARK: requests

  private func handle(_ request: HTTPRequest, _ listener: Listener) {
    guard request.method == "GET" || request.method == "HEAD" else {
      request.reply.respond(status: 405, headers: [("Allow", "GET, HEAD")])
      return
    }
    switch request.path {
    case "/v1/ws": websocket(request, listener)
    case "/metrics": serveMetrics(request, listener)
    default:
      guard let asset = WebAssets.named(request.path) else {
        request.reply.respond(
          status: 404, headers: [("Content-Type", "text/plain; charset=utf-8")],
          body: Array("not found\n".utf8))
        return
      }
      request.reply.respond(
        status: 200, headers: Self.pageHeaders + [("Content-Type", asset.type)], body: asset.bytes)
    }
  }

  /// For the page's files: only this origin's scripts and sockets, never framed.
  private static let pageHeaders: [(String, String)] = [
    (
      "Content-Security-Policy",
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"
    ),
    ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-cache"),
  ]

  /// 401 and nothing else said.
  private func unauthorized(_ request: HTTPRequest) {
    request.reply.respond(status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"labeld\"")])
  }

  /// The caller a request's bearer token names: the Authorization header, or (browsers
  /// cannot set headers on a WebSocket) a `bearer.SECRET` subprotocol.
  private func caller(_ request: HTTPRequest) -> Caller? {
    var secret: Substring?
    if let auth = request.authorization, auth.lowercased().hasPrefix("bearer ") {
      secret = auth.dropFirst(7).drop { $0 == " " }
    } else if let offered = request.websocketProtocol {
      secret = offered.split(separator: ",").map { $0.drop { $0 == " " } }
        .first { $0.hasPrefix("bearer.") }?.dropFirst(7)
    }
    guard let secret, let found = tokens.authenticate(String(secret)) else { return nil }
    return Caller(token: found.name, role: found.role)
  }

  /// A browser's page may open a socket only from this endpoint's own origin or one
  /// allowed: otherwise any site the user visits could drive labeld with the user's
  /// session (cross-site WebSocket hijacking).
  private func originAllowed(_ request: HTTPRequest, _ listener: Listener) -> Bool {
    guard let origin = request.origin else { return true }  // not a browser
    if settings.allowedOrigins.contains(origin) { return true }
    guard let host = request.host else { return false }
    return origin == (listener.tls ? "https://" : "http://") + host
  }

  private func websocket(_ request: HTTPRequest, _ listener: Listener) {
    guard request.upgrade?.lowercased() == "websocket",
      request.connection?.lowercased().contains("upgrade") == true,
      let key = request.websocketKey, WebSocketHandshake.isValidKey(key)
    else {
      request.reply.respond(
        status: 400, headers: [("Content-Type", "text/plain; charset=utf-8")],
        body: Array("a WebSocket handshake (RFC 6455 §4.1) is expected here\n".utf8))
      return
    }
    guard request.websocketVersion == "13" else {
      request.reply.respond(status: 426, headers: [("Sec-WebSocket-Version", "13")])
      return
    }
    guard originAllowed(request, listener) else {
      log.warning("web: refused a WebSocket from origin \(request.origin ?? "")")
      request.reply.respond(status: 403)
      return
    }
    guard let caller = caller(request) else {
      unauthorized(request)
      return
    }
    let offered = request.websocketProtocol?.split(separator: ",").map {
      $0.trimmingPrefix(" ")
    }
    let chosen =
      offered?.contains(Substring(WebSocketHandshake.subprotocol)) == true
      ? WebSocketHandshake.subprotocol : nil
    let tag = nextTag.add(1, ordering: .relaxed).oldValue
    pending.withLock { $0[tag] = caller }
    // A revocation between the sign-in above and the line before found nothing of this
    // connection to close: the token is checked again now that `closeConnections` would
    // find it (the same secret, so a token revoked and made again under its name does not
    // pass for the old one).
    if self.caller(request)?.tokenName != caller.tokenName {
      pending.withLock { _ = $0.removeValue(forKey: tag) }
      unauthorized(request)
      return
    }
    request.reply.acceptWebSocket(
      accept: WebSocketHandshake.accept(key: key), protocol: chosen, tag: tag)
  }

  /// The handshake is answered and the socket handed over: the connection is served,
  /// unless its token was revoked meanwhile (`closeConnections` took it out of `pending`).
  /// Under `pending`'s lock, so a revocation sees it either waiting or served.
  private func upgraded(tag: UInt64, socket: UpgradedSocket, early: Int) {
    pending.withLock { waiting in
      guard let caller = waiting.removeValue(forKey: tag) else {
        socket.close()
        return
      }
      guard early == 0 else {
        // RFC 6455 §4.1: a client sends nothing before the handshake's answer.
        log.warning("web: \(caller.description) sent frames before its handshake was answered")
        socket.close()
        return
      }
      server.adopt(
        fd: socket.fd, caller: caller,
        framer: WebSocketFramer(maxMessageBytes: settings.maxMessageBytes),
        closeDescriptor: { _ in socket.close() })
    }
  }

  /// Closes every WebSocket signed in with the token `name`: those served, and those whose
  /// handshake is answered but whose socket libmicrohttpd has not handed over yet (they
  /// would otherwise be served after the revocation). Returns how many.
  package func closeConnections(signedInWith name: String) -> Int {
    pending.withLock { waiting in
      let doomed = waiting.filter { $0.value.tokenName == name }.map(\.key)
      for tag in doomed { waiting.removeValue(forKey: tag) }
      return doomed.count
        + server.closeConnections(because: "the token was revoked") { $0.tokenName == name }
    }
  }

  private func serveMetrics(_ request: HTTPRequest, _ listener: Listener) {
    guard listener.address.isLocal || caller(request) != nil else {
      unauthorized(request)
      return
    }
    let id = nextTag.add(1, ordering: .relaxed).oldValue
    deferred.withLock { $0[id] = request.reply }
    // Checked after registering: `stop` either sees this reply or this sees `stopping`.
    guard !stopping.load(ordering: .sequentiallyConsistent) else {
      request.reply.respond(status: 503, headers: [("Retry-After", "5")])
      return
    }
    let metrics = self.metrics
    Task { [weak self] in
      let body = await metrics()
      request.reply.respond(
        status: 200,
        headers: [
          ("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
          ("Cache-Control", "no-store"),
        ], body: body)
      _ = self?.deferred.withLock { $0.removeValue(forKey: id) }
    }
  }

}
