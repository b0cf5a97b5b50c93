import LabelCore

/// Everything the method handlers use, wired once at start-up.
struct Services: Sendable {
  let channel: EventChannel
  let printers: PrinterRegistry
  let products: ProductStore
  let templates: TemplateStore
  let jobs: JobService
  let renderer: LabelRenderer
  let saveErrors: SaveErrors
  let access: AccessPolicy
  /// Nil when CUPS is off (`--no-cups`).
  var cups: CUPSDiscovery? = nil
  let log: Logger
  /// USB discovery; nil when labeld runs without USB.
  var usb: USBMonitor? = nil

  func product(_ sku: String) async throws(RPCError) -> Product? {
    let row = try await read { () async throws(SaveFailure) in try await products.get(sku) }
    return try row.map { row throws(RPCError) in try readable(row, .product) }
  }

  func template(_ name: String) async throws(RPCError) -> Template? {
    let row = try await read { () async throws(SaveFailure) in try await templates.get(name) }
    return try row.map { row throws(RPCError) in try readable(row, .template) }
  }

  /// A page of the stored products that can be read; each that cannot is reported (see
  /// `readable`).
  func products(after: String?, limit: Int?) async throws(RPCError) -> ProductsResult {
    let page = try await read { () async throws(SaveFailure) in
      try await products.page(after: after, limit: limit)
    }
    return ProductsResult(
      products: page.rows.compactMap { try? readable($0, .product) }, next: page.next)
  }

  /// A page of the stored templates that can be read; each that cannot is reported.
  func templates(after: String?, limit: Int?) async throws(RPCError) -> TemplatesResult {
    let page = try await read { () async throws(SaveFailure) in
      try await templates.page(after: after, limit: limit)
    }
    return TemplatesResult(
      templates: page.rows.compactMap { try? readable($0, .template) }, next: page.next)
  }

  /// The row's value. A row that is stored but does not decode is a failure to keep data:
  /// logged, raised as a `saveError` for its entity and key (it stays active until the key
  /// is saved again), and answered as 1004 carrying that alert.
  func readable<T>(_ row: StoredRow<T>, _ entity: SaveEntity) throws(RPCError) -> T {
    switch row {
    case .value(let value): return value
    case .unreadable(let key, let reason):
      log.error("store: \(entity.rawValue) \(key) is stored but cannot be read: \(reason)")
      throw saveErrors.failed(
        SaveFailure(
          reason: .io,
          message:
            "\(entity.rawValue) \(key) is stored but cannot be read (\(reason)); save it again to replace it"
        ), entity: entity, key: key)
    }
  }

  /// Runs a read of stored state; a storage failure is answered as -32603 with the reason
  /// (a read cannot fail as a save, and raises no alert).
  func read<T>(_ body: () async throws(SaveFailure) -> T) async throws(RPCError) -> T {
    do {
      return try await body()
    } catch {
      log.error("cannot read stored state: \(error.message)")
      throw .internalError("cannot read labeld's state: \(error.message)")
    }
  }
}
