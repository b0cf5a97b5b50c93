import FoundationEssentials
import LabelCore
import LabelPOSIX

/// Who is asking, and over which connection.
package struct RequestContext: Sendable {
  package let peer: PeerCredentials
  package let connection: Connection?
  package let id: RequestID?

  package init(peer: PeerCredentials, connection: Connection?, id: RequestID?) {
    self.peer = peer
    self.connection = connection
    self.id = id
  }
}

/// A method's outcome: a result to encode, or `sent` when the method queued its own
/// response (`subscribe`, whose response must precede its replay).
package enum Reply: Sendable {
  case result(any Encodable & Sendable)
  case sent
}

/// Turns request lines into response lines: JSON-RPC framing rules and method routing.
/// The handlers live in `Methods/`, one file per area.
package final class Dispatcher: Sendable {
  package let services: Services

  package init(services: Services) { self.services = services }

  /// Handles one line; returns the response line, or nil for a notification.
  package func handle(_ line: [UInt8], connection: Connection) async -> [UInt8]? {
    await handle(line, peer: connection.peer, connection: connection)
  }

  package func handle(_ line: [UInt8], peer: PeerCredentials, connection: Connection?) async
    -> [UInt8]?
  {
    let value: JSONValue
    let rawID: [UInt8]?
    do {
      (value, rawID) = try JSONValue.parse(line, keepingRawMember: "id")
    } catch {
      return Wire.error(id: nil, .parseError(error.description))
    }
    guard case .object(let request) = value else {
      return Wire.error(id: nil, .invalidRequest("not a JSON-RPC object"))
    }
    let id: RequestID?
    switch request["id"] {
    case nil: id = nil
    case .null?, .int?, .double?, .string?: id = rawID.map(RequestID.init(json:))
    default: return Wire.error(id: nil, .invalidRequest("id must be a number or a string"))
    }
    guard request["jsonrpc"] == .string("2.0") else {
      return Wire.error(id: id, .invalidRequest("\"jsonrpc\" must be \"2.0\""))
    }
    guard case .string(let method) = request["method"] else {
      return Wire.error(id: id, .invalidRequest("\"method\" must be a string"))
    }
    let context = RequestContext(peer: peer, connection: connection, id: id)
    let reply: Reply
    do {
      reply = try await call(method, params: request["params"], context)
    } catch {
      guard id != nil else { return nil }
      await services.channel.waitForDelivery()
      if error.code == RPCErrorCode.internalError.rawValue {
        services.log.error("request \(method) from uid \(peer.uid) failed: \(error.message)")
      }
      return Wire.error(id: id, error)
    }
    guard let id else { return nil }
    switch reply {
    case .result(let result):
      // Alerts wait for the journal before they are delivered; the ones this request
      // raised are queued before its response, as without a journal.
      await services.channel.waitForDelivery()
      return Wire.result(id: id, result)
    case .sent: return nil
    }
  }

  /// Routes one method call.
  package func call(_ method: String, params: JSONValue?, _ context: RequestContext)
    async throws(RPCError) -> Reply
  {
    guard let m = Method(rawValue: method) else { throw .methodNotFound(method) }
    let p = try Params(params)
    switch m {
    case .hello: return try hello(p)
    case .printersList:
      return .result(PrintersResult(printers: services.printers.printers))
    case .printersRefresh:
      for source in services.sources { await source.refresh() }
      return .result(PrintersResult(printers: services.printers.printers))
    case .devicesList:
      for source in services.sources {
        if let devices = await source.devices() { return .result(devices) }
      }
      return .result(DevicesResult(enabled: false, message: "USB is switched off", devices: []))
    case .printersGet: return try printersGet(p)
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
    case .alertsActive: return .result(AlertsResult(alerts: services.channel.active))
    case .alertsDismiss:
      return .result(DismissResult(dismissed: services.channel.dismiss(id: try p.string("id"))))
    case .subscribe: return try subscribe(p, context)
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
