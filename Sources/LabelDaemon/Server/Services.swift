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
    try await read { () async throws(SaveFailure) in try await products.get(sku) }
  }

  func template(_ name: String) async throws(RPCError) -> Template? {
    try await read { () async throws(SaveFailure) in try await templates.get(name) }
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
