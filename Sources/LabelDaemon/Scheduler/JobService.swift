import LabelCore
import LabelPOSIX

/// Job submission, lookup and cancellation across printers: checks a job can be accepted,
/// stores it (answering only once it is kept), and hands it to its printer's queue.
/// What happens to a job that was being printed when the daemon stopped.
public enum InterruptedJobPolicy: String, Sendable, CaseIterable {
  /// Send the interrupted copy again (copies confirmed printed are not repeated).
  case resend
  /// Abort the job with reason `jobAborted`.
  case abort
}

struct JobService: Sendable {
  let jobs: JobStore
  let printers: PrinterRegistry
  let channel: EventChannel
  let saveErrors: SaveErrors

  /// The queue of a printer that takes jobs: 1001 for an unknown one, 1002 for one that is
  /// not accepting any (asked of the printer now: a CUPS queue may have started rejecting).
  func acceptingQueue(_ printer: String) async throws(RPCError) -> PrinterQueue {
    guard let queue = printers.queue(printer) else { throw .printerNotFound(printer) }
    try await queue.admit()
    return queue
  }

  func submit(printer: String, copies: Int, document: JobDocument, owner: JobOwner)
    async throws(RPCError) -> Job
  {
    guard let queue = printers.queue(printer) else { throw .printerNotFound(printer) }
    let job: Job
    do {
      job = try await jobs.create(
        printer: printer, copies: copies, owner: owner, document: document)
    } catch {
      throw saveErrors.failed(error, entity: .job, key: "new")
    }
    channel.publish(job: job)
    await queue.enqueue(job.id)
    return job
  }

  func get(_ id: Int) throws(RPCError) -> Job {
    guard let job = jobs.get(id) else { throw .jobNotFound(id) }
    return job
  }

  /// Cancels a job. Only its owner or an administrator may cancel it (1005 otherwise);
  /// cancelling a job that already ended returns it unchanged.
  func cancel(_ id: Int, by peer: PeerCredentials, access: AccessPolicy) async throws(RPCError)
    -> Job
  {
    let job = try get(id)
    guard peer.uid == job.owner.uid || access.isAdmin(peer) else {
      throw .notPermitted(
        uid: peer.uid,
        "job \(id) belongs to uid \(job.owner.uid); only its owner or an administrator may cancel it"
      )
    }
    if job.state.isTerminal { return job }
    if let queue = printers.queue(job.printer), let updated = await queue.cancel(id) {
      return updated
    }
    return try get(id)
  }
}
