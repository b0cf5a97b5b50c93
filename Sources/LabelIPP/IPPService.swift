import FoundationEssentials
import LabelCUPS
import LabelCore
import LabelLog
import LabelPrint
import LabelRender
import LabelScheduler
import LabelStore
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The IPP operations of PWG 5100.14 (IPP Everywhere) on labeld's printers, each a request
/// message in and a response message out; no HTTP here (`IPPEndpoint` carries them). Jobs
/// are labeld's jobs, made through the one print service: same store, queue, ids and
/// confirmed counting, and their failures on the one alert channel.
final class IPPService: Sendable {
  let print: PrintService
  let jobStore: JobStore
  let settings: IPPSettings
  let log: Logger
  let uuidSeed: [UInt8]
  /// When the front started: printer-config-change-time.
  let started = Int(Date().timeIntervalSince1970)
  /// What Create-Job asked of a job's document, kept until Send-Document brings it, and the
  /// timer that aborts the job if it never comes.
  private let incoming = Mutex<[Int: Incoming]>([:])
  /// Each printer's state as last answered, and when it changed (printer-state-change-time).
  private let seen = Mutex<[String: (state: [Reason], time: Int)]>([:])

  struct Incoming: Sendable {
    var settings: DocumentSettings
    var timer: Task<Void, Never>
  }

  init(
    print: PrintService, jobStore: JobStore, settings: IPPSettings, uuidSeed: [UInt8], log: Logger
  ) {
    self.print = print
    self.jobStore = jobStore
    self.settings = settings
    self.uuidSeed = uuidSeed
    self.log = log
  }

  /// Stops the timers of jobs waiting for their document (they are aborted at the next
  /// start if their document has not come).
  func stop() {
    let timers = incoming.withLock { i in
      defer { i = [:] }
      return i.values.map(\.timer)
    }
    for timer in timers { timer.cancel() }
  }

  // MARK: the envelope

  /// The response to `request` (RFC 8011 §4.1): the checks every request meets, then its
  /// operation.
  func answer(_ request: IPPRequest) async -> IPPMessage {
    let m = request.message
    let version = (1...2).contains(m.major) ? (m.major, m.minor) : (2, 0)
    let answer = await answerBody(request)
    return answer.response(major: version.0, minor: version.1, requestID: m.requestID)
  }

  private func answerBody(_ request: IPPRequest) async -> IPPAnswer {
    let m = request.message
    guard (1...2).contains(m.major) else {
      return IPPAnswer(.versionNotSupported, "IPP \(m.major).\(m.minor) is not supported")
    }
    guard m.requestID != 0 else { return IPPAnswer(.badRequest, "request-id 0 is not allowed") }
    let first = m.groups.first
    guard first?.tag == .operation, let attributes = first?.attributes, attributes.count >= 2,
      attributes[0].name == "attributes-charset",
      attributes[1].name == "attributes-natural-language"
    else {
      return IPPAnswer(
        .badRequest, "attributes-charset and attributes-natural-language must come first")
    }
    guard let charset = attributes[0].string?.lowercased(),
      charset == "utf-8" || charset == "us-ascii"
    else {
      return IPPAnswer(.charsetNotSupported, "labeld speaks utf-8")
    }
    guard let operation = request.operation else {
      return IPPAnswer(
        .operationNotSupported,
        "operation 0x\(String(m.code, radix: 16)) is not one labeld's printers answer")
    }
    guard let uri = request.operation("printer-uri")?.string else {
      return IPPAnswer(.badRequest, "printer-uri is required")
    }
    guard let id = IPPNames.printer(fromURI: uri), let queue = print.jobs.printers.queue(id) else {
      return IPPAnswer(.notFound, "no printer at \(uri)")
    }
    let target = Target(queue: queue, uri: IPPNames.uri(base: request.base, printer: id))
    switch operation {
    case .getPrinterAttributes: return await printerAttributes(request, target)
    case .identifyPrinter:
      log.notice("ipp: \(request.user) asks \(id) to identify itself")
      return IPPAnswer(.ok)
    case .validateJob: return await validate(request, target)
    case .printJob: return await printJob(request, target)
    case .createJob: return await createJob(request, target)
    case .sendDocument: return await sendDocument(request, target)
    case .closeJob: return await closeJob(request, target)
    case .cancelJob: return await cancelJob(request, target)
    case .cancelMyJobs: return await cancelMyJobs(request, target)
    case .getJobAttributes: return await jobAttributes(request, target)
    case .getJobs: return await jobs(request, target)
    }
  }

  /// The printer a request is for, and its URI as this client reaches it.
  struct Target: Sendable {
    var queue: PrinterQueue
    var uri: String
    var id: String { queue.id }
  }

  // MARK: printers

  func printerView(_ target: Target, _ request: IPPRequest) -> PrinterAttributes {
    printerView(target.queue, base: request.base, tls: request.tls)
  }

  /// A printer's attributes as a client reaching labeld at `base` (`ipps://host:port`)
  /// sees them.
  func printerView(_ queue: PrinterQueue, base: String, tls: Bool) -> PrinterAttributes {
    let printer = queue.snapshot
    let now = Int(Date().timeIntervalSince1970)
    let changed = seen.withLock { s -> Int in
      if let last = s[printer.id], last.state == printer.reasons { return last.time }
      s[printer.id] = (printer.reasons, now)
      return now
    }
    var maxLength: Int?
    if let area = try? print.renderer.labelArea(for: printer, settings: queue.labelSettings),
      area.length == nil
    {
      maxLength = area.maxLength * 2540 / max(1, area.dpi)
    }
    let web = base.replacing("ipps://", with: "https://").replacing(
      "ipp://", with: "http://")
    let page = settings.statusPage ?? web + IPPNames.path(printer: printer.id)
    return PrinterAttributes(
      printer: printer,
      reach: [
        PrinterAttributes.Reach(uri: IPPNames.uri(base: base, printer: printer.id), tls: tls)
      ],
      signIn: settings.printAccess == .operator,
      uuid: IPPNames.uuid(seed: uuidSeed, printer: printer.id),
      moreInfo: page, icon: web + IPPNames.iconPath,
      media: PWGMedia(printer.media ?? Self.assumedMedia(printer), maxLength: maxLength),
      queuedJobs: jobStore.occupancy(printer: printer.id).printer, configChanged: started,
      stateChanged: max(started, changed), now: max(now, started + 1))
  }

  static func assumedMedia(_ printer: Printer) -> Media {
    printer.language?.profile.defaultMedia ?? Media(widthMM: 50.8, lengthMM: 25.4, kind: "labels")
  }

  private func printerAttributes(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    let view = printerView(target, request)
    let asked = Set((request.operation("requested-attributes")?.values ?? []).compactMap(\.string))
    var out: [IPPAttribute] = []
    if asked.isEmpty || asked.contains("all") {
      out = view.all
    } else {
      if asked.contains("printer-description") { out += view.description }
      if asked.contains("job-template") { out += view.template }
      let named = (view.description + view.template).filter {
        asked.contains($0.name) && !out.contains($0)
      }
      out += named
    }
    if asked.contains("media-col-database") { out.append(view.mediaColDatabase) }
    return IPPAnswer(.ok, groups: [IPPAttributeGroup(.printer, out)])
  }

  // MARK: jobs

  /// What a job-creating request asks for, checked (RFC 8011 §4.2.1): the document's
  /// format and settings, or the answer that refuses it.
  struct JobTicket: Sendable {
    var format: DocumentFormat?
    var copies = 1
    var settings = DocumentSettings()
    var unsupported: [IPPAttribute] = []
  }

  private func ticket(_ request: IPPRequest) -> Result<JobTicket, IPPAnswerBox> {
    var ticket = JobTicket()
    if let compression = request.operation("compression")?.string, compression != "none" {
      return .failure(
        IPPAnswerBox(
          IPPAnswer(
            .compressionNotSupported, "compression \(compression) is not supported",
            groups: [
              IPPAttributeGroup(.unsupported, [IPPAttribute("compression", .keyword(compression))])
            ])))
    }
    if let format = request.operation("document-format")?.string,
      format != "application/octet-stream"
    {
      guard let known = DocumentFormat(rawValue: format.lowercased()) else {
        return .failure(
          IPPAnswerBox(
            IPPAnswer(
              .documentFormatNotSupported, "labeld does not print \(format)",
              groups: [
                IPPAttributeGroup(
                  .unsupported, [IPPAttribute("document-format", .mimeMediaType(format))])
              ])))
      }
      ticket.format = known
    }
    for attribute in request.job?.attributes ?? [] {
      switch attribute.name {
      case "copies":
        guard let n = attribute.integer, (1...999).contains(n) else {
          ticket.unsupported.append(attribute)
          continue
        }
        ticket.copies = n
      case "orientation-requested":
        if let n = attribute.integer, let o = PageOrientation(rawValue: n) {
          ticket.settings.orientation = o
        } else if attribute.values.first != .outOfBand(.noValue) && attribute.integer != 7 {
          ticket.unsupported.append(attribute)
        }
      case "print-scaling":
        guard let s = attribute.string.flatMap(PrintScaling.init(rawValue:)) else {
          ticket.unsupported.append(attribute)
          continue
        }
        ticket.settings.scaling = s
      case "page-ranges":
        var ranges: [ClosedRange<Int>] = []
        for value in attribute.values {
          if case .range(let low, let high) = value, low >= 1, low <= high {
            ranges.append(Int(low)...Int(high))
          }
        }
        if ranges.isEmpty {
          ticket.unsupported.append(attribute)
        } else {
          ticket.settings.pageRanges = ranges
        }
      case "print-color-mode":
        switch attribute.string {
        case "bi-level": ticket.settings.halftone = .threshold
        case "monochrome": ticket.settings.halftone = .ordered
        case "auto", "auto-monochrome", "process-monochrome": break
        default: ticket.unsupported.append(attribute)
        }
      case "sides":
        if attribute.string != "one-sided" { ticket.unsupported.append(attribute) }
      case "media", "media-col", "print-quality", "printer-resolution", "finishings",
        "output-bin", "print-content-optimize", "print-rendering-intent",
        "multiple-document-handling", "job-priority", "overrides", "job-sheets":
        // Labels print on the loaded media at the printer's one resolution: accepted,
        // and the page placed on what is loaded (print-scaling says how).
        break
      default:
        ticket.unsupported.append(attribute)
      }
    }
    let fidelity = request.operation("ipp-attribute-fidelity")?.boolean ?? false
    if fidelity && !ticket.unsupported.isEmpty {
      return .failure(
        IPPAnswerBox(
          IPPAnswer(
            .attributesOrValuesNotSupported, "some attributes cannot be honoured",
            groups: [IPPAttributeGroup(.unsupported, ticket.unsupported)])))
    }
    return .success(ticket)
  }

  /// A Result's failure must be an Error.
  struct IPPAnswerBox: Error, Sendable {
    var answer: IPPAnswer
    init(_ answer: IPPAnswer) { self.answer = answer }
  }

  private func ok(_ ticket: JobTicket, _ groups: [IPPAttributeGroup]) -> IPPAnswer {
    guard !ticket.unsupported.isEmpty else { return IPPAnswer(.ok, groups: groups) }
    return IPPAnswer(
      .okIgnoredOrSubstituted, nil,
      groups: [IPPAttributeGroup(.unsupported, ticket.unsupported)] + groups)
  }

  private func origin(_ request: IPPRequest) -> JobOrigin {
    let name = request.operation("job-name")?.string ?? request.operation("document-name")?.string
    return JobOrigin(kind: .ipp, user: request.user, name: name.map { clipped($0, bytes: 255) })
  }

  private func jobRequest(
    _ request: IPPRequest, _ target: Target, copies: Int, _ input: DocumentInput
  )
    -> PrintRequest
  {
    PrintRequest(
      printer: target.id, copies: copies, content: .document(input),
      owner: JobOwner(uid: getuid()), origin: origin(request))
  }

  private func view(
    _ job: Job, _ target: Target, incoming: Bool? = nil, for request: IPPRequest? = nil
  ) -> JobAttributes {
    var view = JobAttributes(
      job: job, printerURI: target.uri, incoming: incoming ?? jobStore.isIncoming(job.id),
      printerReasons: target.queue.snapshot.reasons, now: Int(Date().timeIntervalSince1970))
    if let request { view.hidesNames = !Self.maySeeNames(of: job, request) }
    return view
  }

  /// Whether `request`'s caller sees a job's name and user (as CUPS's JobPrivateValues):
  /// anyone signed in with a token does, and so does the user who sent it; queries need no
  /// sign-in, and a job's name ("invoice-4711.pdf") is not everyone's to read.
  static func maySeeNames(of job: Job, _ request: IPPRequest) -> Bool {
    let c = request.caller
    if c.mayPrint || c.isAdmin || c.viewer { return true }
    return job.origin?.kind == .ipp && job.origin?.user == request.user
  }

  private func format(of document: ArraySlice<UInt8>, _ ticket: JobTicket) -> Result<
    DocumentFormat, IPPAnswerBox
  > {
    if let format = ticket.format { return .success(format) }
    if let sniffed = DocumentFormat.sniff(Array(document.prefix(8))) { return .success(sniffed) }
    return .failure(
      IPPAnswerBox(
        IPPAnswer(
          .documentFormatNotSupported,
          "the document is none of the formats labeld prints (PDF, PNG, JPEG, PWG or Apple raster)")
      ))
  }

  private func validate(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    let ticket: JobTicket
    switch self.ticket(request) {
    case .success(let t): ticket = t
    case .failure(let box): return box.answer
    }
    do throws(RPCError) {
      _ = try await print.jobs.acceptingQueue(target.id)
    } catch {
      return .error(error)
    }
    return ok(ticket, [])
  }

  private func printJob(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    let ticket: JobTicket
    switch self.ticket(request) {
    case .success(let t): ticket = t
    case .failure(let box): return box.answer
    }
    guard !request.document.isEmpty else {
      return IPPAnswer(.badRequest, "Print-Job carries no document")
    }
    let format: DocumentFormat
    switch self.format(of: request.document, ticket) {
    case .success(let f): format = f
    case .failure(let box): return box.answer
    }
    let input = DocumentInput(
      bytes: Array(request.document), format: format, settings: ticket.settings)
    logDocument("Print-Job", request, target, format, ticket)
    do throws(RPCError) {
      let job = try await print.submitDocument(
        jobRequest(request, target, copies: ticket.copies, input), input)
      logJob(job, request, target)
      return ok(ticket, [IPPAttributeGroup(.job, view(job, target, incoming: false).created)])
    } catch {
      return .error(error)
    }
  }

  private func logDocument(
    _ operation: String, _ request: IPPRequest, _ target: Target, _ format: DocumentFormat,
    _ ticket: JobTicket
  ) {
    log.debug(
      "ipp: \(operation) for \(target.id) from \(request.user): \(format.rawValue), "
        + "\(request.document.count) bytes, \(ticket.settings); job attributes: "
        + (request.job?.attributes.map { "\($0.name)=\($0.values)" }.joined(separator: " ")
          ?? "none"))
  }

  private func logJob(_ job: Job, _ request: IPPRequest, _ target: Target) {
    if let error = job.error {
      log.notice(
        "ipp: job \(job.id) for \(target.id) from \(request.user) aborted: \(error.message)")
    } else {
      log.info("ipp: job \(job.id) for \(target.id) from \(request.user)")
    }
  }

  private func createJob(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    let ticket: JobTicket
    switch self.ticket(request) {
    case .success(let t): ticket = t
    case .failure(let box): return box.answer
    }
    let job: Job
    do throws(RPCError) {
      job = try await print.createIncoming(
        jobRequest(request, target, copies: ticket.copies, DocumentInput(bytes: [], format: .pdf)))
    } catch {
      return .error(error)
    }
    let timeout = IPPSettings.multipleOperationTimeOut
    let timer = Task { [weak self] in
      do { try await Task.sleep(for: .seconds(timeout)) } catch { return }
      guard let self, self.incoming.withLock({ $0.removeValue(forKey: job.id) }) != nil else {
        return
      }
      let error = JobError(
        reason: .jobAborted,
        message: "no document came within \(timeout) s of Create-Job (multiple-operation-time-out)")
      if await self.print.jobs.endIncoming(job.id, .aborted, error: error) != nil {
        self.log.notice("ipp: job \(job.id) aborted: its document never came")
      }
    }
    incoming.withLock { $0[job.id] = Incoming(settings: ticket.settings, timer: timer) }
    log.debug(
      "ipp: Create-Job \(job.id) for \(target.id) from \(request.user); job attributes: "
        + (request.job?.attributes.map { "\($0.name)=\($0.values)" }.joined(separator: " ")
          ?? "none"))
    return ok(ticket, [IPPAttributeGroup(.job, view(job, target, incoming: true).created)])
  }

  /// The job a request names (job-id, or job-uri), on the target printer.
  private func namedJob(_ request: IPPRequest, _ target: Target) async -> Result<Job, IPPAnswerBox>
  {
    var id = request.operation("job-id")?.integer
    if id == nil, let uri = request.operation("job-uri")?.string {
      id = uri.split(separator: "/").last.flatMap { Int($0) }
    }
    guard let id, id > 0 else {
      return .failure(IPPAnswerBox(IPPAnswer(.badRequest, "job-id or job-uri is required")))
    }
    do throws(RPCError) {
      let job = try await print.jobs.get(id)
      guard job.printer == target.id else {
        return .failure(IPPAnswerBox(IPPAnswer(.notFound, "job \(id) is not \(target.id)'s")))
      }
      return .success(job)
    } catch {
      return .failure(IPPAnswerBox(.error(error)))
    }
  }

  private func sendDocument(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    guard let last = request.operation("last-document")?.boolean else {
      return IPPAnswer(.badRequest, "last-document is required")
    }
    _ = last
    let job: Job
    switch await namedJob(request, target) {
    case .success(let j): job = j
    case .failure(let box): return box.answer
    }
    guard !job.state.isTerminal else {
      return IPPAnswer(.notPossible, "job \(job.id) has ended (\(job.state.rawValue))")
    }
    guard let waiting = incoming.withLock({ $0[job.id] }) else {
      return IPPAnswer(
        .multipleDocumentJobsNotSupported, "job \(job.id) has its document: one a job")
    }
    if request.document.isEmpty {
      // No data: the job is closed without a document.
      return await close(job, target, waiting)
    }
    var ticket = JobTicket()
    switch self.ticket(request) {
    case .success(let t): ticket = t
    case .failure(let box): return box.answer
    }
    let format: DocumentFormat
    switch self.format(of: request.document, ticket) {
    case .success(let f): format = f
    case .failure(let box): return box.answer
    }
    guard incoming.withLock({ $0.removeValue(forKey: job.id) }) != nil else {
      return IPPAnswer(.multipleDocumentJobsNotSupported, "job \(job.id) has its document")
    }
    waiting.timer.cancel()
    let input = DocumentInput(
      bytes: Array(request.document), format: format, settings: waiting.settings)
    var asked = ticket
    asked.settings = waiting.settings
    logDocument("Send-Document", request, target, format, asked)
    do throws(RPCError) {
      let updated = try await print.attachDocument(job, input)
      logJob(updated, request, target)
      return ok(ticket, [IPPAttributeGroup(.job, view(updated, target, incoming: false).created)])
    } catch {
      return .error(error)
    }
  }

  private func close(_ job: Job, _ target: Target, _ waiting: Incoming) async -> IPPAnswer {
    guard incoming.withLock({ $0.removeValue(forKey: job.id) }) != nil else {
      return IPPAnswer(.ok)
    }
    waiting.timer.cancel()
    let error = JobError(reason: .jobAborted, message: "the job was closed without a document")
    let ended = await print.jobs.endIncoming(job.id, .aborted, error: error) ?? job
    return IPPAnswer(
      .ok, groups: [IPPAttributeGroup(.job, view(ended, target, incoming: false).created)])
  }

  private func closeJob(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    let job: Job
    switch await namedJob(request, target) {
    case .success(let j): job = j
    case .failure(let box): return box.answer
    }
    guard let waiting = incoming.withLock({ $0[job.id] }) else {
      // A job still without its document that this front no longer waits for (it was
      // never left so, but the store is what counts): ended, as Close-Job says.
      if jobStore.isIncoming(job.id) {
        let error = JobError(reason: .jobAborted, message: "the job was closed without a document")
        if let ended = await print.jobs.endIncoming(job.id, .aborted, error: error) {
          return IPPAnswer(
            .ok, groups: [IPPAttributeGroup(.job, view(ended, target, incoming: false).created)])
        }
      }
      return IPPAnswer(.ok)
    }
    return await close(job, target, waiting)
  }

  /// Whether `request`'s caller may cancel `job`: an administrator any job; an operator
  /// (or anyone, with `ipp-print = anyone`) the jobs IPP clients sent as that user.
  private func mayCancel(_ job: Job, _ request: IPPRequest) -> Bool {
    if request.caller.isAdmin { return true }
    guard job.origin?.kind == .ipp else { return false }
    if settings.printAccess == .operator && request.caller.mayPrint { return true }
    return job.origin?.user == request.user
  }

  private func cancel(_ job: Job, _ request: IPPRequest) async -> IPPAnswer? {
    guard !job.state.isTerminal else {
      return IPPAnswer(.notPossible, "job \(job.id) has ended (\(job.state.rawValue))")
    }
    guard mayCancel(job, request) else {
      return IPPAnswer(.notAuthorized, "job \(job.id) is not \(request.user)'s to cancel")
    }
    if let waiting = incoming.withLock({ $0.removeValue(forKey: job.id) }) {
      waiting.timer.cancel()
    }
    do throws(RPCError) {
      _ = try await print.jobs.cancel(job.id, by: getuid(), isAdmin: true)
    } catch {
      return .error(error)
    }
    log.info("ipp: job \(job.id) canceled by \(request.user)")
    return nil
  }

  private func cancelJob(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    switch await namedJob(request, target) {
    case .success(let job): return await cancel(job, request) ?? IPPAnswer(.ok)
    case .failure(let box): return box.answer
    }
  }

  private func cancelMyJobs(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    let ids = (request.operation("job-ids")?.values ?? []).compactMap(\.integer)
    var jobs: [Job] = []
    if ids.isEmpty {
      jobs =
        jobStore.unfinished(printer: target.id)
        + jobStore.incoming().filter {
          $0.printer == target.id
        }
      jobs = jobs.filter { $0.origin?.kind == .ipp && $0.origin?.user == request.user }
    } else {
      for id in ids {
        guard let job = try? await print.jobs.get(id), job.printer == target.id else {
          return IPPAnswer(.notFound, "job \(id) is not \(target.id)'s")
        }
        jobs.append(job)
      }
    }
    for job in jobs where !job.state.isTerminal {
      if let refusal = await cancel(job, request) { return refusal }
    }
    return IPPAnswer(.ok)
  }

  private func jobAttributes(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    switch await namedJob(request, target) {
    case .success(let job):
      let all = view(job, target, for: request).all
      return IPPAnswer(.ok, groups: [IPPAttributeGroup(.job, select(all, request, default: nil))])
    case .failure(let box): return box.answer
    }
  }

  /// requested-attributes applied (RFC 8011 §4.2.5.1): `all`, `job-description`,
  /// `job-template` or names; `fallback` when none is asked for (nil: all).
  private func select(
    _ attributes: [IPPAttribute], _ request: IPPRequest, default fallback: Set<String>?
  )
    -> [IPPAttribute]
  {
    var asked = Set((request.operation("requested-attributes")?.values ?? []).compactMap(\.string))
    if asked.isEmpty, let fallback { asked = fallback }
    if asked.isEmpty || asked.contains("all") || asked.contains("job-description") {
      return attributes
    }
    return attributes.filter { asked.contains($0.name) }
  }

  private func jobs(_ request: IPPRequest, _ target: Target) async -> IPPAnswer {
    let which = request.operation("which-jobs")?.string ?? "not-completed"
    let states: Set<JobState>?
    switch which {
    case "not-completed": states = [.pending, .held, .processing]
    case "completed": states = [.completed, .canceled, .aborted]
    case "all": states = nil
    default:
      return IPPAnswer(
        .attributesOrValuesNotSupported, "which-jobs \(which) is not supported",
        groups: [IPPAttributeGroup(.unsupported, [IPPAttribute("which-jobs", .keyword(which))])])
    }
    let limit = min(max(1, request.operation("limit")?.integer ?? 500), 1000)
    let mine = request.operation("my-jobs")?.boolean ?? false
    var listed: [Job] = []
    do {
      // my-jobs picks from the printer's jobs a page at a time, up to `limit` of the
      // caller's, reading at most ten pages: a request costs the same however long the
      // history (the index pages; the caller's own are not indexed).
      var query = JobQuery(printer: target.id, states: states, limit: limit)
      for _ in 0..<(mine ? 10 : 1) {
        let page = try await jobStore.page(query)
        listed += mine ? page.jobs.filter { $0.origin?.user == request.user } : page.jobs
        guard listed.count < limit, let next = page.next else { break }
        query.after = next
      }
    } catch {
      return IPPAnswer(.internalError, "cannot read labeld's jobs: \(error.message)")
    }
    let groups = listed.prefix(limit).map { job in
      IPPAttributeGroup(
        .job, select(view(job, target, for: request).all, request, default: ["job-id", "job-uri"]))
    }
    return IPPAnswer(.ok, groups: groups)
  }
}
