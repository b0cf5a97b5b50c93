import FoundationEssentials
import LabelCUPS
import LabelCore
import LabelDNSSD
import LabelHTTP
import LabelLog
import LabelPOSIX
import LabelPrint
import LabelStore
import Synchronization

/// labeld's printers as IPP Everywhere printers, at `/ipp/print/ID` on the addresses
/// `--listen-ipp` gives (off unless configured): HTTP by libmicrohttpd (`LabelHTTP`, the
/// same server the web endpoint uses), each request's body streamed to a reader that
/// frames the IPP message (`IPPFraming`) and hands it whole to libcups (`IPPCodec`);
/// the operations are `IPPService`'s. Queries need no sign-in; printing needs an operator
/// token (HTTP Basic, the token as password) unless `ipp-print = anyone`.
package final class IPPEndpoint: Sendable {
  private let settings: IPPSettings
  private let service: IPPService
  private let signIn: @Sendable (String) -> IPPSignIn
  private let log: Logger
  private let listeners = Mutex<[HTTPListener]>([])
  private let servers = Mutex<[HTTPServer]>([])
  /// Bytes the requests being read hold together, against `maxBytesInFlight`.
  let inFlight = Atomic<Int>(0)
  /// Requests read whole and being answered: libmicrohttpd must not stop with one still
  /// waiting (it aborts the process), so `stop` answers those left 503 first.
  private let answering = Mutex<[UInt64: HTTPReply]>([:])
  private let nextID = Atomic<UInt64>(1)
  private let stopping = Atomic<Bool>(false)
  /// The DNS-SD announcements, while IPP listens beyond this machine.
  private let announcer = Mutex<IPPAnnouncer?>(nil)

  package init(
    settings: IPPSettings, print: PrintService, jobStore: JobStore, uuidSeed: [UInt8],
    signIn: @escaping @Sendable (String) -> IPPSignIn, log: Logger
  ) {
    self.settings = settings
    self.signIn = signIn
    self.log = log
    service = IPPService(
      print: print, jobStore: jobStore, settings: settings, uuidSeed: uuidSeed, log: log)
  }

  /// Opens the listeners and serves; a sentence for the log when it cannot.
  package func start() throws(HTTPError) {
    guard !settings.listen.isEmpty else { return }
    if let problem = settings.problem { throw HTTPError(problem) }
    try HTTPLibraries.require()
    if settings.tls.configured {
      let installed = try settings.tls.install()
      if installed.made { log.notice("made a self-signed certificate in \(installed.path)") }
    }
    for address in settings.listen {
      let listener = try HTTPListener(address, flag: "--listen-ipp")
      let tls = settings.tls.configured && !listener.isUnix
      do {
        let http = try HTTPServer(
          listenFD: listener.fd, tls: tls, limits: settings.limits,
          onRequest: { [weak self] request in self?.handle(request, listener, tls: tls) })
        servers.withLock { $0.append(http) }
      } catch {
        listener.close()
        throw HTTPError("--listen-ipp \(address): \(error)")
      }
      listeners.withLock { $0.append(listener) }
      log.info(
        "IPP on \(tls ? "ipps" : "ipp")://\(listener.bound)\(IPPNames.prefix)ID "
          + "(printing: \(settings.printAccess == .anyone ? "anyone" : "operator tokens"))")
    }
    announce()
  }

  /// Announces the printers with DNS-SD when IPP listens beyond this machine (on its first
  /// such address), and follows them as they come, change and go.
  private func announce() {
    guard
      let open = listeners.withLock({ $0.first { !$0.isUnix && !$0.address.isLocal } }),
      let port = open.port
    else { return }
    let tls = settings.tls.configured
    let service = self.service
    let announcer: IPPAnnouncer
    do throws(DNSSD.Failure) {
      let base = "\(tls ? "ipps" : "ipp")://\(IPPNames.hostName).local:\(port)"
      let printers = service.print.jobs.printers
      announcer = try IPPAnnouncer(
        port: port, tls: tls,
        view: { printer in
          printers.queue(printer.id).map { service.printerView($0, base: base, tls: tls) }
        }, log: log)
    } catch {
      log.warning("dns-sd: labeld's printers are not announced: \(error.message)")
      return
    }
    self.announcer.withLock { $0 = announcer }
    service.print.jobs.channel.observePrinters { [weak announcer] printer in
      announcer?.update(printer)
    }
    for printer in service.print.jobs.printers.printers { announcer.update(printer) }
  }

  /// The name printer `id` is announced under with DNS-SD, if it is.
  package func announcedName(of id: String) -> (name: String, registered: Bool)? {
    announcer.withLock { $0 }?.name(of: id)
  }

  /// Where it listens, as bound.
  package var boundAddresses: [String] { listeners.withLock { $0.map(\.bound) } }

  /// Stops serving: answers still being made are ended (503) first.
  package func stop() {
    stopping.store(true, ordering: .sequentiallyConsistent)
    service.stop()
    // The announcements go first: nothing should lead a client here any more.
    announcer.withLock { $0 = nil }
    let waiting = answering.withLock { a in
      defer { a = [:] }
      return Array(a.values)
    }
    for reply in waiting { reply.respond(status: 503, headers: [("Retry-After", "5")]) }
    for http in servers.withLock({ s in
      defer { s = [] }
      return s
    }) {
      http.stop()
    }
    for listener in listeners.withLock({ l in
      defer { l = [] }
      return l
    }) {
      listener.close()
    }
  }

  // MARK: HTTP

  private func handle(_ request: HTTPRequest, _ listener: HTTPListener, tls: Bool) {
    switch request.method {
    case "GET", "HEAD":
      page(request)
    case "POST":
      guard request.path.hasPrefix(IPPNames.prefix) || request.path == "/ipp/print" else {
        request.reply.respond(status: 404)
        return
      }
      guard request.contentType?.lowercased().hasPrefix("application/ipp") == true else {
        request.reply.respond(
          status: 400, headers: [("Content-Type", "text/plain; charset=utf-8")],
          body: Array("an IPP request (Content-Type: application/ipp) is expected here\n".utf8))
        return
      }
      if let length = request.contentLength, length > settings.maxRequestBytes {
        // Refused before a byte of it is read (413, RFC 9110 §15.5.14): past the request's
        // limit, a refusal sent after reading would not reach a client still sending.
        request.reply.respond(
          status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")],
          body: Array("an IPP request may be at most \(settings.maxRequestBytes) bytes\n".utf8))
        return
      }
      let reader = IPPRequestReader(
        endpoint: self, reply: request.reply, caller: caller(request),
        base: base(request, listener, tls: tls), tls: tls, settings: settings)
      if !request.reply.readBody(into: reader) { reader.abandoned() }
    default:
      request.reply.respond(status: 405, headers: [("Allow", "GET, HEAD, POST")])
    }
  }

  /// `ipp://HOST:PORT` as the client reached it (its Host header), for the URIs answered.
  private func base(_ request: HTTPRequest, _ listener: HTTPListener, tls: Bool) -> String {
    let scheme = tls ? "ipps" : "ipp"
    // A host name, an IPv4 address or a bracketed IPv6 one, and a port (RFC 9110 §7.2):
    // nothing else is echoed into the URIs an answer carries.
    if let host = request.host, !host.isEmpty, host.utf8.count <= 255,
      host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) })
    {
      return "\(scheme)://\(host)"
    }
    return listener.isUnix ? "\(scheme)://localhost" : "\(scheme)://\(listener.bound)"
  }

  /// Who the Authorization header says (HTTP Basic: the user, and a token as password).
  private func caller(_ request: HTTPRequest) -> IPPCaller {
    guard let auth = request.authorization, auth.lowercased().hasPrefix("basic "),
      let decoded = Data(base64Encoded: String(auth.dropFirst(6).drop { $0 == " " })),
      let text = String(data: decoded, encoding: .utf8),
      let colon = text.firstIndex(of: ":")
    else {
      return IPPCaller(
        user: nil, mayPrint: false, isAdmin: false, refused: request.authorization != nil)
    }
    let user = String(text[..<colon])
    switch signIn(String(text[text.index(after: colon)...])) {
    case .admin: return IPPCaller(user: user, mayPrint: true, isAdmin: true, refused: false)
    case .operator: return IPPCaller(user: user, mayPrint: true, isAdmin: false, refused: false)
    case .viewer:
      return IPPCaller(user: user, mayPrint: false, isAdmin: false, refused: true, viewer: true)
    case .unknown: return IPPCaller(user: user, mayPrint: false, isAdmin: false, refused: true)
    }
  }

  /// The printers' icon, and a small page a printer's more-info points at (when the web
  /// endpoint's status page is off).
  private func page(_ request: HTTPRequest) {
    if request.path == IPPNames.iconPath {
      request.reply.respond(
        status: 200, headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=86400")],
        body: IPPIcon.png)
      return
    }
    let printers = service.print.jobs.printers.printers
    let shown: [Printer]
    if request.path == "/" || request.path == "/ipp/print" {
      shown = printers
    } else if let id = IPPNames.printer(fromURI: request.path),
      let printer = printers.first(where: { $0.id == id })
    {
      shown = [printer]
    } else {
      request.reply.respond(status: 404)
      return
    }
    request.reply.respond(
      status: 200,
      headers: [
        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache"),
        ("Content-Security-Policy", "default-src 'none'; img-src 'self'"),
      ], body: Array(IPPStatusPage.html(shown).utf8))
  }

  // MARK: answering

  /// Whether `bytes` more may be held for requests being read.
  func take(_ bytes: Int) -> Bool {
    let after = inFlight.add(bytes, ordering: .relaxed).newValue
    if after > settings.maxBytesInFlight {
      inFlight.subtract(bytes, ordering: .relaxed)
      return false
    }
    return true
  }

  func giveBack(_ bytes: Int) { inFlight.subtract(bytes, ordering: .relaxed) }

  /// Answers `request` (read whole) on a task, then gives its bytes back.
  func answer(_ request: IPPRequest, reply: HTTPReply, holding bytes: Int) {
    let id = nextID.add(1, ordering: .relaxed).oldValue
    answering.withLock { $0[id] = reply }
    guard !stopping.load(ordering: .sequentiallyConsistent) else {
      reply.respond(status: 503, headers: [("Retry-After", "5")])
      giveBack(bytes)
      return
    }
    let service = self.service
    Task { [weak self] in
      let response = await service.answer(request)
      Self.send(response, reply)
      self?.giveBack(bytes)
      _ = self?.answering.withLock { $0.removeValue(forKey: id) }
    }
  }

  /// An answer made before the request was read whole (a refusal).
  static func send(_ response: IPPMessage, _ reply: HTTPReply) {
    guard let bytes = try? IPPCodec.encode(response) else {
      reply.respond(status: 500)
      return
    }
    reply.respond(status: 200, headers: [("Content-Type", "application/ipp")], body: bytes)
  }

  /// 401 (no or unknown credentials) or 403 (a viewer's): nothing else said.
  static func refuse(_ reply: HTTPReply, _ caller: IPPCaller) {
    if caller.viewer {
      reply.respond(status: 403)
    } else {
      reply.respond(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"labeld\"")])
    }
  }
}
