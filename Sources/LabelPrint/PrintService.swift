import LabelCore
import LabelInterfaces
import LabelLanguages
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
  package let documents: DocumentConverter

  package init(
    jobs: JobManager, catalog: Catalog, renderer: LabelRenderer,
    documents: DocumentConverter = DocumentConverter(pdfWorker: nil)
  ) {
    self.jobs = jobs
    self.catalog = catalog
    self.renderer = renderer
    self.documents = documents
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
    case .document(let input):
      switch await convert(input, for: queue) {
      case .success(let bytes): document = .native(bytes)
      case .failure(.request(let error)): throw error
      case .failure(.document(let failure)):
        switch failure.fault {
        case .formatError: throw .invalidParams(field: "document.data", reason: failure.message)
        case .unprintable: throw .unsupported(failure.message)
        }
      }
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

  // MARK: documents, as IPP has them

  /// Why a document did not become a printer's bytes: the request cannot be taken at all,
  /// or the document is what cannot print.
  enum ConversionFailure: Error {
    case request(RPCError)
    case document(DocumentFailure)
  }

  /// The printer's bytes for `input`.
  private func convert(_ input: DocumentInput, for queue: PrinterQueue) async
    -> Result<[UInt8], ConversionFailure>
  {
    let printer = queue.snapshot
    let settings = queue.labelSettings
    do throws(RPCError) {
      let area = try renderer.labelArea(for: printer, settings: settings)
      let labels: [Bitmap]
      do throws(DocumentFailure) {
        labels = try await documents.labels(of: input, on: area)
      } catch {
        return .failure(.document(error))
      }
      return .success(try renderer.encode(labels: labels, for: printer, settings: settings))
    } catch {
      return .failure(.request(error))
    }
  }

  /// A document job as IPP has it (RFC 8011 §4.2.1): refused (1001, 1002, 1008) when the
  /// printer cannot take it at all; otherwise a job, which, when its document cannot print,
  /// is stored already ended (`aborted`, its error saying why: document-format-error or
  /// document-unprintable-error) and queues nothing.
  package func submitDocument(_ request: PrintRequest, _ input: DocumentInput)
    async
    throws(RPCError) -> Job
  {
    let queue = try await jobs.acceptingQueue(request.printer)
    try jobs.checkRoom(request.printer)
    var job = NewJob(
      printer: request.printer, copies: request.copies, owner: request.owner,
      origin: request.origin, document: nil)
    switch await convert(input, for: queue) {
    case .success(let bytes): job.document = .native(bytes)
    case .failure(.request(let error)): throw error
    case .failure(.document(let failure)):
      job.state = .aborted
      job.error = JobError(reason: .jobRejected, message: failure.message, document: failure.fault)
    }
    return try await jobs.submit(job)
  }

  /// A job whose document comes later (IPP Create-Job): stored, in no queue until
  /// `attachDocument`.
  package func createIncoming(_ request: PrintRequest) async throws(RPCError) -> Job {
    _ = try await jobs.acceptingQueue(request.printer)
    try jobs.checkRoom(request.printer)
    return try await jobs.submit(
      NewJob(
        printer: request.printer, copies: request.copies, owner: request.owner,
        origin: request.origin, document: nil))
  }

  /// The document of a job made by `createIncoming` (IPP Send-Document): converted and
  /// queued, or the job ends aborted with the document's fault. 1003 when the job is not
  /// waiting for a document; 1001 when its printer has gone.
  package func attachDocument(_ job: Job, _ input: DocumentInput) async throws(RPCError) -> Job {
    guard let queue = jobs.printers.queue(job.printer) else {
      await endUnattached(job, "its printer \(job.printer) went away before its document came")
      throw .printerNotFound(job.printer)
    }
    switch await convert(input, for: queue) {
    case .success(let bytes):
      do {
        return try await jobs.attach(job.id, document: .native(bytes))
      } catch {
        // Refused (the queue's bytes bound) or not stored: the job cannot get this document
        // and no other may come (one document a job), so it ends here, saying why, rather
        // than wait for ever holding its place in the queue's bounds.
        await endUnattached(job, error.message)
        throw error
      }
    case .failure(let failure):
      // The job exists: what keeps its document from printing ends it, whatever it is.
      let error: JobError
      switch failure {
      case .document(let d):
        error = JobError(reason: .jobRejected, message: d.message, document: d.fault)
      case .request(let e):
        error = JobError(reason: .jobRejected, message: e.message, document: .unprintable)
      }
      guard let ended = await jobs.endIncoming(job.id, .aborted, error: error) else {
        throw .jobNotFound(job.id)
      }
      return ended
    }
  }

  /// Ends a job whose document could not be attached: aborted, with why.
  private func endUnattached(_ job: Job, _ why: String) async {
    _ = await jobs.endIncoming(
      job.id, .aborted,
      error: JobError(reason: .jobRejected, message: "its document was not kept: \(why)"))
  }
}
