import LabelCore
import LabelScheduler

extension Dispatcher {
  package func printersGet(_ p: Params) throws(RPCError) -> Reply {
    let id = try p.string("printer")
    guard let queue = services.printers.queue(id) else { throw .printerNotFound(id) }
    return .result(PrinterResult(printer: queue.snapshot))
  }

  /// Injects (or, with `fault: null`, clears) a fault on a simulated printer. An admin
  /// method: others get 1005.
  package func printersSimulate(_ p: Params, _ context: RequestContext) async throws(RPCError)
    -> Reply
  {
    let id = try p.string("printer")
    guard p.values.keys.contains("fault") else {
      throw .invalidParams(field: "fault", reason: "is required (a Reason, or null to clear)")
    }
    var fault: Reason?
    if let raw = try p.optionalString("fault") {
      guard let reason = Reason(rawValue: raw) else {
        let known = Reason.allCases.map(\.rawValue).joined(separator: ", ")
        throw .invalidParams(field: "fault", reason: "unknown reason \"\(raw)\" (one of \(known))")
      }
      fault = reason
    }
    try services.access.requireAdmin(context.caller, "printers.simulate")
    guard let queue = services.printers.queue(id) else { throw .printerNotFound(id) }
    guard let simulator = queue.faultInjection else {
      throw .unsupported(
        "printers.simulate works on simulated (sim:) printers only; \(id) is not one")
    }
    await simulator.inject(fault.map { [$0] } ?? [])
    return .result(PrinterResult(printer: queue.snapshot))
  }
}
