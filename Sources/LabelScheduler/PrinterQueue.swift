import FoundationEssentials
import LabelCore
import LabelEvents
import LabelInterfaces
import LabelLog
import Synchronization

/// One printer's scheduler: a FIFO of jobs printed one at a time, the printer's fault
/// state, and the printerError alert that follows it.
///
/// While the printer has a fault, jobs wait (pending, or held with the copies done so far)
/// and the alert names the job held up; when the fault clears the alert is cleared
/// and printing resumes at the next copy. Faults that make a job unprintable
/// (`Reason.abortsJob`) abort it with that reason instead.
package actor PrinterQueue: PrinterStatusSink {
  package nonisolated let id: String
  private let transport: any PrinterTransport
  private let jobs: any JobStoring
  private let channel: EventChannel
  private let saveErrors: SaveErrors
  private let alerts: PrinterAlerts
  private let log: Logger

  private var fifo = JobLine()
  private var current: Int?
  private var currentSend: Task<PrintOutcome, any Error>?
  /// The job in hand's cancellation (a fresh one for each job taken up).
  private var cancelRequest = CancelRequest()
  /// Jobs whose document could not be read back (`park`), with the wait before the next try.
  private var parked: [Int: Duration] = [:]
  /// Jobs cancelled after they were stored and before they reached `enqueue` (a Cancel-Job
  /// between an IPP Send-Document's store and its enqueue): passed over when they come.
  private var canceledAhead: Set<Int> = []
  private var faults: [Reason] = []
  /// What the transport said of the fault a copy met, beyond its reason (the tapes of a
  /// `mediaMismatch`): on the alert while that reason lasts.
  private var faultDetail: (reason: Reason, text: String)?
  /// Something the worker waits for happened (a job queued, a fault cleared, a cancel,
  /// a drain): one buffered wake-up, which the worker, the stream's one reader, takes.
  private let changes = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  private var worker: Task<Void, Never>?
  /// Set by `drain()`: finish the label in progress, start no other.
  private var draining = false
  private var monitor: Task<Void, Never>?
  /// The printer as last published, readable without hopping onto the actor.
  private nonisolated let published: Mutex<Printer>

  package init(
    transport: any PrinterTransport, jobs: any JobStoring, channel: EventChannel, log: Logger
  ) {
    self.id = transport.descriptor.id
    self.transport = transport
    self.jobs = jobs
    self.channel = channel
    self.saveErrors = SaveErrors(channel: channel)
    self.alerts = PrinterAlerts(channel: channel)
    self.log = log
    self.published = Mutex(transport.descriptor)
  }

  /// The printer's current protocol view.
  package nonisolated var snapshot: Printer { published.withLock { $0 } }
  /// The transport when it takes injected faults (a simulated printer), else nil.
  package nonisolated var faultInjection: (any FaultInjecting)? { transport as? any FaultInjecting }
  package nonisolated var labelSettings: LabelSettings { transport.labelSettings }
  package nonisolated var accepting: Bool { transport.descriptor.accepting }

  /// Checks the printer takes a new job now (1002 / 1001 otherwise).
  package nonisolated func admit() async throws(RPCError) { try await transport.admit() }

  package func start() {
    guard worker == nil else { return }
    worker = Task { await self.run() }
    monitor = Task { [transport] in await transport.monitor(self) }
  }

  package func stop() {
    monitor?.cancel()
    worker?.cancel()
    currentSend?.cancel()
    wake()
  }

  /// Stops printing gracefully: the label being printed is finished, no other is started,
  /// and a job part-way through goes back to `pending` with its copies counted (the next
  /// run resumes it at the next copy). Returns when the worker has stopped; `stop()`
  /// cuts a drain short.
  package func drain() async {
    draining = true
    wake()
    await worker?.value
    // Nothing to report to any more: a poll must not raise an alert once the printers
    // have closed (the journal is sealed after them). Cancelled, not awaited: a poll may
    // be in a blocking call (a status read with its own timeout) cancellation cannot cut.
    monitor?.cancel()
  }

  /// Takes back the unfinished jobs of a previous run, oldest first. A job that was being
  /// printed when the daemon stopped has its interrupted copy sent again (`resend`, the
  /// default: a missing label is worse than a duplicate) or is aborted (`abort`).
  package func resume(_ unfinished: [Job], policy: InterruptedJobPolicy) async {
    for job in unfinished {
      if job.state == .processing {
        switch policy {
        case .resend:
          log.notice(
            "printer \(id) job \(job.id): was printing when labeld stopped; sending copy \(job.printed + 1) again"
          )
          _ = await updateJob(job.id) { $0.state = .pending }
        case .abort:
          await abort(
            job.id, reason: .jobAborted,
            message:
              "labeld stopped while job \(job.id) was printing (copy \(job.printed + 1) of \(job.copies)); not resent by policy"
          )
          continue
        }
      }
      fifo.append(job.id)
    }
    refreshAlert()
    wake()
  }

  /// Queues an accepted job (already stored as pending).
  package func enqueue(_ job: Int) {
    if canceledAhead.remove(job) != nil { return }
    fifo.append(job)
    refreshAlert()
    wake()
  }

  // MARK: what the transport reports (PrinterStatusSink)

  package func update(faults: [Reason]?) {
    if let faults { setFaults(faults) } else { publishPrinter() }
  }

  package nonisolated var heldFaults: [Reason] { snapshot.reasons }

  /// Replaces the printer's faults (its transport's report, or a fault met while printing).
  private func setFaults(_ reasons: [Reason]) {
    guard reasons != faults else {
      publishPrinter()  // the transport's own view (accepting, media) may have changed
      return
    }
    faults = reasons
    if let detail = faultDetail, !reasons.contains(detail.reason) { faultDetail = nil }
    log.info(
      "printer \(id) faults: \(reasons.isEmpty ? "none" : reasons.map(\.rawValue).joined(separator: ","))"
    )
    // The printer's own view first: a client that reads it on hearing the alert sees the
    // fault (`printers.get` right after the alert showed the state before it).
    publishPrinter()
    refreshAlert()
    wake()
  }

  /// Publishes the printer even when unchanged (a printer that just appeared).
  package func republish(force: Bool = false) {
    if force { channel.publish(printer: snapshot) }
    publishPrinter()
  }

  /// No job is printing or waiting.
  package var isIdle: Bool { current == nil && fifo.isEmpty }

  /// Cancels a job of this printer: a waiting one at once, the printing one after the label
  /// in progress stops. Returns the job as it then stands, nil if it is not ours.
  package func cancel(_ jobID: Int) async -> Job? {
    if fifo.remove(jobID) {
      parked[jobID] = nil
      let job = await updateJob(jobID) { $0.state = .canceled }
      refreshAlert()
      return job
    }
    // The job in hand first: a parked job may be in hand for another try at reading it,
    // and only `process` may then end it.
    if current == jobID {
      cancelRequest.request()
      await transport.cancel(job: jobID)
      currentSend?.cancel()
      wake()
      return jobs.live(jobID)
    }
    if parked.removeValue(forKey: jobID) != nil {
      // Its good write clears the job's saveError: nothing is held up any more.
      let job = await updateJob(jobID) { $0.state = .canceled }
      refreshAlert()
      return job
    }
    // Stored and on its way here: cancelled now (marked first, so an enqueue while the
    // state is written passes over it too).
    guard let live = jobs.live(jobID), live.printer == id, !live.state.isTerminal else {
      return nil
    }
    canceledAhead.insert(jobID)
    return await updateJob(jobID) { $0.state = .canceled }
  }

  // MARK: the worker

  private func run() async {
    while !Task.isCancelled && !draining {
      guard let next = fifo.first else {
        await waitForChange()
        continue
      }
      if let fault = faults.first {
        if fault.abortsJob {
          _ = fifo.removeFirst()
          await abort(next, reason: fault)
        } else {
          refreshAlert()
          await waitForChange()
        }
        continue
      }
      _ = fifo.removeFirst()
      current = next
      cancelRequest = CancelRequest()
      publishPrinter()
      await process(next)
      current = nil
      publishPrinter()
      refreshAlert()
    }
  }

  private func process(_ jobID: Int) async {
    let found: JobRecord?
    do {
      found = try await jobs.record(jobID)
    } catch {
      if cancelRequest.isRequested {
        // Cancelled while its document was being read: nothing to hold any more.
        parked[jobID] = nil
        _ = await updateJob(jobID) { $0.state = .canceled }
        return
      }
      await park(jobID, error)
      return
    }
    guard let record = found, !record.job.state.isTerminal else { return }
    if parked.removeValue(forKey: jobID) != nil {
      // Readable again: the failure is resolved (a write failure would be raised anew by
      // the job's next write).
      saveErrors.succeeded(entity: .job, key: String(jobID))
      log.notice("printer \(id) job \(jobID): its document can be read again")
    }
    let bytes = record.document.bytes
    var printed = record.job.printed
    let copies = record.job.copies
    _ = await updateJob(jobID) {
      $0.state = .processing
      $0.error = nil
    }
    var state = JobState.processing
    while printed < copies {
      if cancelRequest.isRequested { break }
      if draining {
        if state == .processing { _ = await updateJob(jobID) { $0.state = .pending } }
        log.info(
          "printer \(id) job \(jobID): requeued at copy \(printed + 1) of \(copies) for shutdown")
        return
      }
      if let fault = faults.first {
        if fault.abortsJob {
          await abort(jobID, reason: fault)
          return
        }
        // Stopped part-way: the job is held by the fault until it clears.
        if state != .held {
          state = .held
          _ = await updateJob(jobID) { $0.state = .held }
        }
        refreshAlert()
        // The fault may have cleared while the job was being stored (a status poll): its
        // wake-up is buffered, but looking first saves the turn.
        if faults.isEmpty { continue }
        await waitForChange()
        continue
      }
      if state != .processing {
        state = .processing
        _ = await updateJob(jobID) { $0.state = .processing }
      }
      let send = Task { [transport, printed, cancelRequest] in
        try await transport.print(
          bytes, job: jobID, copy: printed + 1, cancel: cancelRequest, status: self)
      }
      currentSend = send
      let outcome: PrintOutcome
      do {
        outcome = try await send.value
        currentSend = nil
      } catch {
        currentSend = nil
        // Cancelled: by jobs.cancel (the loop sees the request), or by a shutdown whose
        // deadline passed mid-label (the job stays `processing`: the next run's
        // --interrupted-jobs policy decides about the interrupted copy).
        if Task.isCancelled && !cancelRequest.isRequested { return }
        continue
      }
      if case .stopped(let fault) = outcome {
        // The printer's condition, not labeld's: its alert tells every client (info, as
        // the alert's own line).
        log.info("printer \(id) job \(jobID): \(fault.message)")
        if fault.reason.abortsJob {
          await abort(jobID, reason: fault.reason, message: fault.message)
          return
        }
        // The fault holds the job until the transport's status says it cleared; what the
        // transport said of it stays on the alert while it lasts.
        let said = fault.detail.map { (reason: fault.reason, text: $0) }
        let newlySaid = said?.text != faultDetail?.text
        faultDetail = said
        if faults == [fault.reason] && newlySaid { refreshAlert() }
        setFaults([fault.reason])
        continue
      }
      printed += 1
      // The last copy and the job's end are one write (and one event): a commit less
      // for every job printed.
      let done = printed == copies && !cancelRequest.isRequested
      _ = await updateJob(jobID) { [printed] in
        $0.printed = printed
        if done { $0.state = .completed }
      }
      if done {
        log.info("printer \(id) job \(jobID) completed (\(copies) copies)")
        return
      }
    }
    if cancelRequest.isRequested {
      _ = await updateJob(jobID) { $0.state = .canceled }
      log.info("printer \(id) job \(jobID) canceled after \(printed)/\(copies)")
    } else {
      _ = await updateJob(jobID) { $0.state = .completed }
      log.info("printer \(id) job \(jobID) completed (\(copies) copies)")
    }
  }

  /// A job whose document cannot be read back from the store: held, reported as a
  /// `saveError` for the job (the store's reason) that stays until the document can be
  /// read or the job is cancelled, and tried again later with back-off (0.5 s doubling to
  /// a minute). The printer goes on with its other jobs meanwhile.
  private func park(_ jobID: Int, _ failure: SaveFailure) async {
    // A job that ended meanwhile (cancelled) stays ended.
    guard let job = jobs.live(jobID), !job.state.isTerminal else {
      parked[jobID] = nil
      return
    }
    let first = parked[jobID] == nil
    let wait = min((parked[jobID] ?? .milliseconds(250)) * 2, .seconds(60))
    parked[jobID] = wait
    if first {
      log.error("printer \(id) job \(jobID): \(failure.message); held, retried until it reads")
    }
    // Held once (a job held so before a restart stays as it is: its good write would
    // clear the job's saveError only for it to be raised again).
    if first, job.state != .held {
      _ = await updateJob(jobID) {
        $0.state = .held
        $0.error = JobError(
          reason: .unknown,
          message: "its document cannot be read back from labeld's store: \(failure.message)")
      }
    }
    _ = saveErrors.failed(failure, entity: .job, key: String(jobID))
    Task { [weak self] in
      try? await Task.sleep(for: wait)
      await self?.unpark(jobID)
    }
  }

  /// A parked job's turn to be read again: back in line, in id order.
  private func unpark(_ jobID: Int) {
    guard parked[jobID] != nil, !draining, !fifo.contains(jobID), current != jobID else { return }
    fifo.insertInOrder(jobID)
    wake()
  }

  private func abort(_ jobID: Int, reason: Reason, message: String? = nil) async {
    let name = transport.descriptor.name
    let text = message ?? "\(name): \(reason.phrase); job \(jobID) aborted"
    _ = await updateJob(jobID) {
      $0.state = .aborted
      $0.error = JobError(reason: reason, message: text)
    }
    alerts.aborted(printer: id, reason: reason, job: jobID, message: text)
    // A job ended without its labels: worth a notice, but the printer's doing, not labeld's.
    log.notice("printer \(id) job \(jobID) aborted: \(text)")
  }

  // MARK: state and events

  /// Changes a job, writes it through and publishes it. A failed write raises a saveError
  /// for the job (printing goes on: the labels are real); the next good write clears it.
  private func updateJob(_ jobID: Int, _ change: @Sendable (inout Job) -> Void) async -> Job? {
    guard let (job, write) = await jobs.update(jobID, change) else { return nil }
    saveErrors.jobWrite(write, job: jobID)
    channel.publish(job: job)
    return job
  }

  /// Raises, updates or clears this printer's printerError to match the faults and the
  /// job they hold up.
  private func refreshAlert() {
    guard let fault = faults.first else {
      alerts.clear(printer: id)
      return
    }
    if fault.abortsJob && current == nil && fifo.isEmpty,
      alerts.shown(printer: id)?.reason == fault
    {
      // Nothing is held up: keep the alert of the last aborted job for this fault.
      return
    }
    alerts.held(
      printer: id, name: transport.descriptor.name, reason: fault,
      job: fault.abortsJob ? nil : current ?? fifo.first,
      detail: faultDetail?.reason == fault ? faultDetail?.text : nil)
  }

  private func publishPrinter() {
    var printer = transport.descriptor
    printer.reasons = faults
    printer.state = !faults.isEmpty ? .stopped : (current != nil ? .processing : .idle)
    let changed = published.withLock { old in
      if old == printer { return false }
      old = printer
      return true
    }
    if changed { channel.publish(printer: printer) }
  }

  /// Waits for the next `wake` (or returns at once for one that came meanwhile). Only the
  /// worker waits, so the stream has one reader; a cancelled worker ends it, and then
  /// returns at once here and sees it is cancelled.
  private func waitForChange() async {
    var next = changes.stream.makeAsyncIterator()
    _ = await next.next()
  }

  private func wake() { changes.continuation.yield() }

}
