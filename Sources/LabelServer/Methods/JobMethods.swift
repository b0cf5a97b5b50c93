import FoundationEssentials
import LabelCore
import LabelInterfaces
import LabelPrint
import LabelRender
import LabelScheduler
import LabelStore

extension Dispatcher {
  /// Accepts a job: a native or PNG document, or a template with a product or data.
  /// Answers once the job is stored; its owner is the peer's uid.
  package func jobsSubmit(_ p: Params, _ context: RequestContext) async throws(RPCError) -> Reply {
    let printer = try p.string("printer")
    let copies = try p.optionalInt("copies", in: 1...999) ?? 1
    let hasDocument = p.has("document")
    let hasTemplate = p.has("template")
    if hasDocument && hasTemplate {
      throw .invalidParams(field: "template", reason: "give document or template, not both")
    }
    if !hasDocument && !hasTemplate {
      throw .invalidParams(field: "document", reason: "either document or template is required")
    }
    let content: LabelContent
    if hasDocument {
      let d = try p.object("document")
      let format = try d.string("format")
      let documents: [String: DocumentFormat] = [
        "pdf": .pdf, "jpeg": .jpeg, "pwg-raster": .pwgRaster, "urf": .urf,
      ]
      guard format == "native" || format == "png" || documents[format] != nil else {
        throw .invalidParams(
          field: "document.format",
          reason: "must be \"native\", \"png\", \"pdf\", \"jpeg\", \"pwg-raster\" or \"urf\"")
      }
      guard let decoded = Data(base64Encoded: try d.string("data")) else {
        throw .invalidParams(field: "document.data", reason: "is not valid base64")
      }
      guard !decoded.isEmpty else {
        throw .invalidParams(field: "document.data", reason: "must not be empty")
      }
      let bytes = [UInt8](decoded)
      if let documentFormat = documents[format] {
        var settings = DocumentSettings()
        if let scaling = try d.optionalString("scaling") {
          guard let value = PrintScaling(rawValue: scaling) else {
            let known = PrintScaling.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidParams(field: "document.scaling", reason: "must be one of \(known)")
          }
          settings.scaling = value
        }
        content = .document(DocumentInput(bytes: bytes, format: documentFormat, settings: settings))
      } else {
        content = format == "png" ? .png(bytes) : .native(bytes)
      }
    } else {
      content = .template(name: try p.string("template"), data: try templateSource(p))
    }
    let job = try await services.print.submit(
      PrintRequest(
        printer: printer, copies: copies, content: content,
        owner: JobOwner(uid: context.caller.uid), origin: context.caller.origin))
    return .result(JobResult(job: job))
  }

  package func jobsCancel(_ p: Params, _ context: RequestContext) async throws(RPCError) -> Reply {
    let id = try p.int("job", in: 1...Int.max)
    return .result(
      JobResult(
        job: try await services.jobs.cancel(
          id, by: context.caller.uid, isAdmin: services.access.isAdmin(context.caller))))
  }

  package func jobsList(_ p: Params) async throws(RPCError) -> Reply {
    let printer = try p.optionalString("printer")
    var states: Set<JobState>?
    if let names = try p.optionalStringArray("states") {
      var set = Set<JobState>()
      for (i, name) in names.enumerated() {
        guard let state = JobState(rawValue: name) else {
          let known = JobState.allCases.map(\.rawValue).joined(separator: ", ")
          throw .invalidParams(
            field: "states[\(i)]", reason: "unknown state \"\(name)\" (one of \(known))")
        }
        set.insert(state)
      }
      states = set
    }
    // A printer that is not here still lists the jobs that wait for it (or ended on it).
    if let printer, await !services.jobs.isKnown(printer) { throw .printerNotFound(printer) }
    let query = JobQuery(
      printer: printer, states: states,
      owner: try p.optionalInt("owner", in: 0...Int(UInt32.max)).map { UInt32($0) },
      since: try p.optionalTime("since"), after: try p.optionalInt("after", in: 0...Int.max),
      limit: try p.optionalInt("limit", in: 1...Params.maxPage))
    let page: (jobs: [Job], next: Int?)
    do {
      page = try await services.jobStore.page(query)
    } catch {
      services.log.error("cannot read stored state: \(error.message)")
      throw .internalError("cannot read labeld's state: \(error.message)")
    }
    return .result(JobsResult(jobs: page.jobs, next: page.next))
  }
}
