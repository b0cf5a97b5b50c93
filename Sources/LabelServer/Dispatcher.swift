import FoundationEssentials
import LabelCore
import LabelPOSIX
import LabelWire

/// Who is asking, and over which connection.
package struct RequestContext: Sendable {
  package let caller: Caller
  package let connection: Connection?
  package let id: RequestID?

  package init(caller: Caller, connection: Connection?, id: RequestID?) {
    self.caller = caller
    self.connection = connection
    self.id = id
  }
}

/// A method's outcome: a result to encode, or `sent` when the method queued its own
/// response (`subscribe`, whose response must precede its replay).
package enum Reply: Sendable {
  case result(any Encodable & Sendable)
  /// A result already encoded (`EncodedResult`).
  case encoded([UInt8])
  case sent
}

/// Turns request lines into response lines: JSON-RPC framing rules and method routing.
/// The handlers live in `Methods/`, one file per area.
package final class Dispatcher: Sendable {
  package let services: ServerContext
  /// `printers.list` is asked often and changes seldom: its encoding is kept.
  private let printersList = EncodedResult<PrintersResult>()
  /// How long answers take, for `/metrics`.
  package let latency = LatencyHistogram()

  package init(services: ServerContext) { self.services = services }

  /// Handles one line; returns the response line, or nil for a notification.
  package func handle(_ line: [UInt8], connection: Connection) async -> [UInt8]? {
    await handle(line, caller: connection.caller, connection: connection)
  }

  /// Handles one line from a Unix-socket peer (tests, without a connection).
  package func handle(_ line: [UInt8], peer: PeerCredentials, connection: Connection?) async
    -> [UInt8]?
  {
    await handle(line, caller: Caller(peer: peer), connection: connection)
  }

  package func handle(_ line: [UInt8], caller: Caller, connection: Connection?) async
    -> [UInt8]?
  {
    let started = ContinuousClock.now
    defer { latency.record(since: started) }
    let request: Request
    switch Self.parse(line) {
    case .success(let r): request = r
    case .failure(let answer): return answer.line
    }
    let context = RequestContext(caller: caller, connection: connection, id: request.id)
    let reply: Reply
    do {
      reply = try await call(request.method, params: request.params, context)
    } catch {
      guard request.id != nil else { return nil }
      await services.channel.waitForDelivery()
      return failed(request, error, caller: caller)
    }
    guard let id = request.id else { return nil }
    switch reply {
    case .result(let result):
      // Alerts wait for the journal before they are delivered; the ones this request
      // raised are queued before its response, as without a journal.
      await services.channel.waitForDelivery()
      return Wire.result(id: id, result)
    case .encoded(let json):
      await services.channel.waitForDelivery()
      return Wire.result(id: id, json: json)
    case .sent: return nil
    }
  }

  /// What `handleAtOnce` did with a line.
  package enum Immediate: Sendable {
    /// Answered (nil: a notification, no answer).
    case answered([UInt8]?)
    /// Not a request that can be answered without waiting: `handle` takes it.
    case later
  }

  /// The methods that only read what is in memory, answered on the thread that read the
  /// request (no task, no hand-off): `hello`, `printers.list`, `printers.get`,
  /// `alerts.active`. Only when every alert raised before is delivered (as `handle` waits
  /// for), so no answer overtakes a notification. Each is a viewer's: every caller may.
  package static let immediateMethods: Set<Method> = [
    .hello, .printersList, .printersGet, .alertsActive,
  ]
  /// The longest line `handleAtOnce` looks at.
  package static let immediateLineLimit = 4096
  private static let immediateNames = immediateMethods.map { Array("\"\($0.rawValue)\"".utf8) }

  /// Answers `line` at once when it is a call of one of `immediateMethods`; anything else
  /// (or an alert still on its way) is `.later`. A line that names none of them is not
  /// even parsed here.
  package func handleAtOnce(_ line: [UInt8], peer: PeerCredentials) -> Immediate {
    handleAtOnce(line, caller: Caller(peer: peer))
  }

  package func handleAtOnce(_ line: [UInt8], caller: Caller) -> Immediate {
    // These requests are short; a long line (a big save that mentions one of the names)
    // is not parsed on the loop's thread, where it would hold up every other connection.
    guard line.count <= Self.immediateLineLimit,
      Self.immediateNames.contains(where: { Self.occurs($0, in: line) }),
      services.channel.allDelivered, case .success(let request) = Self.parse(line),
      let method = Method(rawValue: request.method), Self.immediateMethods.contains(method)
    else { return .later }
    let started = ContinuousClock.now
    defer { latency.record(since: started) }
    let reply: Reply
    do {
      reply = try callAtOnce(method, params: try Params(request.params))
    } catch {
      return .answered(request.id == nil ? nil : failed(request, error, caller: caller))
    }
    guard let id = request.id else { return .answered(nil) }
    switch reply {
    case .result(let result): return .answered(Wire.result(id: id, result))
    case .encoded(let json): return .answered(Wire.result(id: id, json: json))
    case .sent: return .answered(nil)
    }
  }

  /// Whether `needle` (not empty) occurs in `haystack`: a plain scan, since the generic
  /// `contains` of the standard library costs more than the rest of an immediate request.
  private static func occurs(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
    haystack.withUnsafeBufferPointer { h in
      needle.withUnsafeBufferPointer { n in
        guard let first = n.first, n.count <= h.count else { return false }
        var i = 0
        let last = h.count - n.count
        while i <= last {
          if h[i] == first {
            var k = 1
            while k < n.count && h[i + k] == n[k] { k += 1 }
            if k == n.count { return true }
          }
          i += 1
        }
        return false
      }
    }
  }

  /// A request line's envelope, checked.
  private struct Request {
    var id: RequestID?
    var method: String
    var params: JSONValue?
  }

  /// The answer to a line that is not a request (nil line: a notification).
  private struct Rejected: Error {
    var line: [UInt8]?
  }

  /// JSON-RPC framing (JSON-RPC 2.0 §4, §5): an object with `"jsonrpc": "2.0"`, a string
  /// method, and an id that is a number, a string or null (absent: a notification).
  private static func parse(_ line: [UInt8]) -> Result<Request, Rejected> {
    let value: JSONValue
    let rawID: [UInt8]?
    do {
      (value, rawID) = try JSONValue.parse(line, keepingRawMember: "id")
    } catch {
      return .failure(Rejected(line: Wire.error(id: nil, .parseError(error.description))))
    }
    guard case .object(let request) = value else {
      return .failure(Rejected(line: Wire.error(id: nil, .invalidRequest("not a JSON-RPC object"))))
    }
    let id: RequestID?
    switch request["id"] {
    case nil: id = nil
    case .null?, .int?, .double?, .string?: id = rawID.map(RequestID.init(json:))
    default:
      return .failure(
        Rejected(line: Wire.error(id: nil, .invalidRequest("id must be a number or a string"))))
    }
    guard request["jsonrpc"] == .string("2.0") else {
      return .failure(
        Rejected(line: Wire.error(id: id, .invalidRequest("\"jsonrpc\" must be \"2.0\""))))
    }
    guard case .string(let method) = request["method"] else {
      return .failure(
        Rejected(line: Wire.error(id: id, .invalidRequest("\"method\" must be a string"))))
    }
    return .success(Request(id: id, method: method, params: request["params"]))
  }

  /// The error answer to a request (an internal error is logged too).
  private func failed(_ request: Request, _ error: RPCError, caller: Caller) -> [UInt8] {
    if error.code == RPCErrorCode.internalError.rawValue {
      services.log.error(
        "request \(request.method) from \(caller.description) failed: \(error.message)")
    }
    return Wire.error(id: request.id, error)
  }

  /// Routes one method call.
  package func call(_ method: String, params: JSONValue?, _ context: RequestContext)
    async throws(RPCError) -> Reply
  {
    guard let m = Method(rawValue: method) else { throw .methodNotFound(method) }
    // An administrator's method checks inside, after its params (protocol: Security).
    if m.minimumRole < .admin { try services.access.require(m.minimumRole, context.caller, method) }
    let p = try Params(params)
    switch m {
    case .hello, .printersList, .printersGet, .alertsActive: return try callAtOnce(m, params: p)
    case .printersRefresh:
      for source in services.sources { await source.refresh() }
      return .result(PrintersResult(printers: services.printers.printers))
    case .devicesList:
      // Each source's devices (USB's bus, the network's DNS-SD services), together.
      var merged: DevicesResult?
      for source in services.sources {
        guard let found = await source.devices() else { continue }
        merged = merged.map { $0.merged(with: found) } ?? found
      }
      return .result(
        merged ?? DevicesResult(enabled: false, message: "USB is switched off", devices: []))
    case .printersSimulate: return try await printersSimulate(p, context)
    case .productsSave: return try await productsSave(p, context)
    case .productsGet: return try await productsGet(p)
    case .productsDelete: return try await productsDelete(p)
    case .productsList:
      return .result(
        try await services.products(
          after: try p.optionalString("after"),
          limit: try p.optionalInt("limit", in: 1...Params.maxPage)))
    case .templatesList:
      return .result(
        try await services.templates(
          after: try p.optionalString("after"),
          limit: try p.optionalInt("limit", in: 1...Params.maxPage)))
    case .templatesGet: return try await templatesGet(p)
    case .templatesSave: return try await templatesSave(p)
    case .labelsRender: return try await labelsRender(p)
    case .jobsSubmit: return try await jobsSubmit(p, context)
    case .jobsGet:
      return .result(
        JobResult(job: try await services.jobs.get(try p.int("job", in: 1...Int.max))))
    case .jobsCancel: return try await jobsCancel(p, context)
    case .jobsList: return try await jobsList(p)
    case .alertsDismiss:
      return .result(DismissResult(dismissed: services.channel.dismiss(id: try p.string("id"))))
    case .subscribe: return try subscribe(p, context)
    case .tokensCreate, .tokensList, .tokensRevoke: return try await tokensCall(m, p, context)
    }
  }

  /// The methods that answer from memory without waiting (`immediateMethods`).
  private func callAtOnce(_ m: Method, params p: Params) throws(RPCError) -> Reply {
    switch m {
    case .hello: return try hello(p)
    case .printersList:
      return .encoded(try printersList.json(PrintersResult(printers: services.printers.printers)))
    case .printersGet: return try printersGet(p)
    case .alertsActive: return .result(AlertsResult(alerts: services.channel.active))
    default: throw .internalError("\(m.rawValue) cannot be answered at once")
    }
  }

  private func hello(_ p: Params) throws(RPCError) -> Reply {
    _ = try p.optionalString("client")
    return .result(
      HelloResult(
        server: LabelVersion.server, version: LabelVersion.version,
        protocol: LabelVersion.protocolVersion))
  }
}

extension Method {
  /// The least role that may call it (see `AccessPolicy`); some check more inside (a
  /// cancel of another's job needs an administrator).
  package var minimumRole: Role {
    switch self {
    case .hello, .printersList, .printersGet, .alertsActive, .productsGet, .productsList,
      .templatesList, .templatesGet, .labelsRender, .jobsGet, .jobsList, .subscribe:
      .viewer
    case .printersRefresh, .devicesList, .productsSave, .productsDelete, .templatesSave,
      .jobsSubmit, .jobsCancel, .alertsDismiss:
      .operator
    case .printersSimulate, .tokensCreate, .tokensList, .tokensRevoke: .admin
    }
  }
}
