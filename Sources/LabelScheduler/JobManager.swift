import LabelCore
import LabelEvents
import LabelInterfaces
import Synchronization

/// What happens to a job that was being printed when the daemon stopped.
public enum InterruptedJobPolicy: String, Sendable, CaseIterable {
  /// Send the interrupted copy again (copies confirmed printed are not repeated).
  case resend
  /// Abort the job with reason `jobAborted`.
  case abort
}

/// Job submission, lookup and cancellation across printers: checks a job can be accepted,
/// stores it (answering only once it is kept), and hands it to its printer's queue.
package struct JobManager: Sendable {
  package let jobs: any JobStoring
  package let printers: PrinterRegistry
  package let channel: EventChannel
  package let saveErrors: SaveErrors
  package let absent: AbsentPrinters
  /// The waiting queue's bounds and the refusals they made.
  private let bounds: QueueBounds

  package init(
    jobs: any JobStoring, printers: PrinterRegistry, channel: EventChannel, saveErrors: SaveErrors,
    limits: QueueLimits = .standard
  ) {
    self.jobs = jobs
    self.printers = printers
    self.channel = channel
    self.saveErrors = saveErrors
    bounds = QueueBounds(limits)
    absent = AbsentPrinters(jobs: jobs, channel: channel)
  }

  /// The waiting queue's bounds (reloadable).
  package var queueLimits: QueueLimits {
    get { bounds.limits.withLock { $0 } }
    nonmutating set { bounds.limits.withLock { $0 = newValue } }
  }

  /// Submits refused at the queue's bounds since start-up, by bound.
  package var refused: [QueueBound: Int] { bounds.refusals.withLock { $0 } }

  /// The queue of a printer that takes jobs: 1001 for an unknown one, 1002 for one that is
  /// not accepting any (asked of the printer now: a CUPS queue may have started rejecting).
  package func acceptingQueue(_ printer: String) async throws(RPCError) -> PrinterQueue {
    guard let queue = printers.queue(printer) else { throw .printerNotFound(printer) }
    try await queue.admit()
    return queue
  }

  /// Throws 1008 when `printer`'s queue is full now (checked again, exactly, when the job
  /// is stored): a front asks before it renders or reads a document for nothing.
  package func checkRoom(_ printer: String) throws(RPCError) {
    let limits = queueLimits
    let now = jobs.occupancy(printer: printer)
    var refusal: QueueRefusal?
    if now.printer >= limits.perPrinter {
      refusal = QueueRefusal(
        printer: printer, bound: .printer, limit: limits.perPrinter, waiting: now.printer)
    } else if now.total >= limits.total {
      refusal = QueueRefusal(
        printer: printer, bound: .total, limit: limits.total, waiting: now.total)
    } else if now.bytes >= limits.bytes {
      refusal = QueueRefusal(
        printer: printer, bound: .bytes, limit: limits.bytes, waiting: now.bytes)
    }
    if let refusal {
      bounds.refusals.withLock { $0[refusal.bound, default: 0] += 1 }
      throw refusal.rpcError
    }
  }

  /// Stores a job and queues it on its printer. Past the queue's bounds it is refused
  /// with 1008 and nothing is stored.
  package func submit(_ new: NewJob) async throws(RPCError) -> Job {
    guard let queue = printers.queue(new.printer) else { throw .printerNotFound(new.printer) }
    let admission: JobAdmission
    do {
      admission = try await jobs.create(new, within: queueLimits)
    } catch {
      throw saveErrors.failed(error, entity: .job, key: SaveErrors.newJobKey)
    }
    let job: Job
    switch admission {
    case .created(let created, let resolved):
      job = created
      saveErrors.jobWrite(JobWrite(failure: nil, resolved: resolved), job: job.id)
    case .refused(let refusal):
      bounds.refusals.withLock { $0[refusal.bound, default: 0] += 1 }
      throw refusal.rpcError
    }
    channel.publish(job: job)
    // A job ended as it came, or still waiting for its document, is in no queue yet.
    if new.document != nil && !job.state.isTerminal { await queue.enqueue(job.id) }
    return job
  }

  /// Gives a job stored without its document (IPP's Create-Job) its document and queues
  /// it: 1003 when it is not waiting for one (it has one, or it ended), 1008 past the
  /// bytes bound.
  package func attach(_ id: Int, document: JobDocument) async throws(RPCError) -> Job {
    let admission: JobAdmission?
    do {
      admission = try await jobs.attach(id, document: document, within: queueLimits)
    } catch {
      throw saveErrors.failed(error, entity: .job, key: String(id))
    }
    switch admission {
    case nil: throw .jobNotFound(id)
    case .refused(let refusal):
      bounds.refusals.withLock { $0[refusal.bound, default: 0] += 1 }
      throw refusal.rpcError
    case .created(let job, _):
      if let queue = printers.queue(job.printer) {
        await queue.enqueue(job.id)
      } else {
        absent.refresh(job.printer, present: false)
      }
      return job
    }
  }

  /// Ends a job that is not in a printer's queue (waiting for its document) as `state`,
  /// with `error`; nil when it is not such a job.
  package func endIncoming(_ id: Int, _ state: JobState, error: JobError?) async -> Job? {
    guard jobs.claimIncoming(id),
      let (updated, write) = await jobs.update(
        id,
        {
          $0.state = state
          $0.error = error
        })
    else { return nil }
    saveErrors.jobWrite(write, job: id)
    channel.publish(job: updated)
    return updated
  }

  package func get(_ id: Int) async throws(RPCError) -> Job {
    let found: Job?
    do {
      found = try await jobs.get(id)
    } catch {
      throw .internalError("cannot read labeld's state: \(error.message)")
    }
    guard let job = found else { throw .jobNotFound(id) }
    return job
  }

  /// Cancels a job. Only its owner or an administrator may cancel it (1005 otherwise);
  /// cancelling a job that already ended returns it unchanged.
  package func cancel(_ id: Int, by uid: UInt32, isAdmin: Bool) async throws(RPCError) -> Job {
    let job = try await get(id)
    guard uid == job.owner.uid || isAdmin else {
      throw .notPermitted(
        uid: uid,
        "job \(id) belongs to uid \(job.owner.uid); only its owner or an administrator may cancel it"
      )
    }
    if job.state.isTerminal { return job }
    if let ended = await endIncoming(id, .canceled, error: nil) { return ended }
    if let queue = printers.queue(job.printer) {
      if let updated = await queue.cancel(id) { return updated }
      return try await get(id)
    }
    // Its printer is not here (it waits for it): cancelled in the store, and the
    // printer's waiting alert names the next job or clears.
    guard let (updated, write) = await jobs.update(id, { $0.state = .canceled }) else {
      throw .jobNotFound(id)
    }
    saveErrors.jobWrite(write, job: id)
    channel.publish(job: updated)
    absent.refresh(job.printer, present: printers.queue(job.printer) != nil)
    return updated
  }

  /// Whether `printer` is one jobs can name: a printer here, or one that has (or had)
  /// jobs (an absent USB printer, a CUPS queue gone).
  package func isKnown(_ printer: String) async -> Bool {
    if printers.queue(printer) != nil { return true }
    return (try? await jobs.anyJob(for: printer)) ?? false
  }
}

/// The queue's bounds as now in force (SIGHUP changes them) and the submits they refused.
final class QueueBounds: Sendable {
  let limits: Mutex<QueueLimits>
  /// Since start-up, by bound (for `/metrics`).
  let refusals = Mutex<[QueueBound: Int]>([:])
  init(_ limits: QueueLimits) { self.limits = Mutex(limits) }
}
