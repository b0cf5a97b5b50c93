import LabelCore
import LabelInterfaces
import LabelScheduler

/// The one way a label is printed, whichever front asks (the socket's methods, the web
/// endpoint's WebSocket through them, the IPP front): checks the printer takes it, makes
/// the printer's bytes (a template rendered, a PNG or a document converted, native bytes
/// as they are), and stores and queues the job within the queue's bounds. Knows no
/// protocol: failures are `RPCError`s, which each front maps to its own words.
package struct PrintService: Sendable {
  package let jobs: JobManager
  package let catalog: Catalog
  package let renderer: LabelRenderer

  package init(jobs: JobManager, catalog: Catalog, renderer: LabelRenderer) {
    self.jobs = jobs
    self.catalog = catalog
    self.renderer = renderer
  }

  /// Checks and renders `request` without storing anything: 1001 for an unknown printer,
  /// 1002 for one that takes no jobs, 1008 when its queue is already full (so nothing is
  /// rendered for a job that would be refused), 1006 for a template or product not
  /// stored, -32602 / 1007 for a label that cannot be made for this printer.
  package func prepare(_ request: PrintRequest) async throws(RPCError) -> PreparedJob {
    let queue = try await jobs.acceptingQueue(request.printer)
    try jobs.checkRoom(request.printer)
    let printer = queue.snapshot
    let settings = queue.labelSettings
    let document: JobDocument
    switch request.content {
    case .native(let bytes):
      guard !bytes.isEmpty else {
        throw .invalidParams(field: "document.data", reason: "must not be empty")
      }
      document = .native(bytes)
    case .png(let png):
      guard let language = printer.language else { throw .unknownLanguage(printer) }
      document = .native(
        try renderer.convertPNG(png, for: printer, language: language, settings: settings))
    case .template(let name, let source):
      let template = try await catalog.templateNamed(name)
      let data: [String: String]
      switch source {
      case .product(let sku): data = try await catalog.productData(sku)
      case .fields(let fields): data = fields
      }
      document = try renderer.document(template, data: data, for: printer, settings: settings)
    }
    return PreparedJob(
      job: NewJob(
        printer: request.printer, copies: request.copies, owner: request.owner,
        origin: request.origin, document: document))
  }

  /// Stores and queues a prepared job (1008 past the queue's bounds, nothing stored).
  package func submit(_ prepared: PreparedJob) async throws(RPCError) -> Job {
    try await jobs.submit(prepared.job)
  }

  /// `prepare`, then `submit`.
  package func submit(_ request: PrintRequest) async throws(RPCError) -> Job {
    try await submit(try await prepare(request))
  }
}
