import LabelCore
import LabelEvents
import LabelInterfaces
import LabelLog
import LabelPrint
import LabelScheduler
import LabelStore

/// Everything the method handlers use, wired once at start-up.
package struct ServerContext: Sendable {
  package let channel: EventChannel
  package let printers: PrinterRegistry
  package let products: ProductStore
  package let templates: TemplateStore
  package let jobs: JobManager
  /// The jobs as stored, for `jobs.list` pages (the scheduler sees the store only as
  /// `JobStoring`).
  package let jobStore: JobStore
  package let renderer: LabelRenderer
  /// The one way a label is printed (what the IPP front calls too).
  package let print: PrintService
  package let saveErrors: SaveErrors
  package let access: AccessPolicy
  package let log: Logger
  /// Where printers that come and go are found (CUPS, USB), for `printers.refresh` and
  /// `devices.list`.
  package var sources: [any PrinterSource] = []
  /// The web endpoint's tokens (`tokens.*`); nil where nothing keeps them (tests).
  package var tokens: (any TokenKeeping)?

  package init(
    channel: EventChannel, printers: PrinterRegistry, products: ProductStore,
    templates: TemplateStore, jobStore: JobStore, jobs: JobManager, renderer: LabelRenderer,
    saveErrors: SaveErrors,
    access: AccessPolicy, log: Logger, sources: [any PrinterSource] = [],
    documents: DocumentConverter = DocumentConverter(pdfWorker: nil)
  ) {
    self.channel = channel
    self.printers = printers
    self.products = products
    self.templates = templates
    self.jobs = jobs
    self.jobStore = jobStore
    self.renderer = renderer
    self.saveErrors = saveErrors
    self.access = access
    self.log = log
    self.sources = sources
    print = PrintService(
      jobs: jobs,
      catalog: Catalog(products: products, templates: templates, saveErrors: saveErrors, log: log),
      renderer: renderer, documents: documents)
  }

  package func product(_ sku: String) async throws(RPCError) -> Product? {
    try await print.catalog.product(sku)
  }

  package func template(_ name: String) async throws(RPCError) -> Template? {
    try await print.catalog.template(name)
  }

  /// A page of the stored products that can be read; each that cannot is reported (see
  /// `readable`).
  package func products(after: String?, limit: Int?) async throws(RPCError) -> ProductPage {
    let page = try await read { () async throws(SaveFailure) in
      try await products.page(after: after, limit: limit)
    }
    let items = page.rows.compactMap { row -> ProductPage.Item? in
      switch row {
      case .written(let json): .written(json)
      case .stored(let stored): (try? readable(stored, .product)).map { .product($0) }
      }
    }
    return ProductPage(items: items, next: page.next)
  }

  /// A page of the stored templates that can be read; each that cannot is reported.
  package func templates(after: String?, limit: Int?) async throws(RPCError) -> TemplatesResult {
    let page = try await read { () async throws(SaveFailure) in
      try await templates.page(after: after, limit: limit)
    }
    return TemplatesResult(
      templates: page.rows.compactMap { try? readable($0, .template) }, next: page.next)
  }

  package func readable<T>(_ row: StoredRow<T>, _ entity: SaveEntity) throws(RPCError) -> T {
    try print.catalog.readable(row, entity)
  }

  package func read<T>(_ body: () async throws(SaveFailure) -> T) async throws(RPCError) -> T {
    try await print.catalog.read(body)
  }
}
