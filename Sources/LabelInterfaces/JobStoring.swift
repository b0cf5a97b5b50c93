import LabelCore

/// What a job prints: the bytes for one copy, in the printer's own language.
package enum JobDocument: Sendable, Equatable {
  case native([UInt8])

  package var bytes: [UInt8] {
    switch self {
    case .native(let b): return b
    }
  }
}

/// A job with what it prints.
package struct JobRecord: Sendable {
  package var job: Job
  package var document: JobDocument

  package init(job: Job, document: JobDocument) {
    self.job = job
    self.document = document
  }
}

/// A job to store: everything about it but what the store gives it (id, times).
package struct NewJob: Sendable {
  package var printer: String
  package var copies: Int
  package var owner: JobOwner
  package var origin: JobOrigin
  /// What it prints; nil for a job whose document is still to come (IPP's Create-Job):
  /// it waits, in no printer's queue, until `attach` gives it one.
  package var document: JobDocument?
  /// `pending`, or a terminal state for a job that ended as it was submitted (a document
  /// that cannot print: `error` says why).
  package var state: JobState
  package var error: JobError?

  package init(
    printer: String, copies: Int, owner: JobOwner, origin: JobOrigin = .socket,
    document: JobDocument?, state: JobState = .pending, error: JobError? = nil
  ) {
    self.printer = printer
    self.copies = copies
    self.owner = owner
    self.origin = origin
    self.document = document
    self.state = state
    self.error = error
  }
}

/// The waiting queue's bounds: jobs not ended per printer and in all, and the bytes their
/// documents hold together (CUPS's MaxJobsPerPrinter and MaxJobs, with bytes as well). A
/// job past any of them is refused before anything of it is stored (error 1008).
package struct QueueLimits: Sendable, Equatable {
  package var perPrinter: Int
  package var total: Int
  package var bytes: Int

  /// Defaults a shop never meets: hours of labels on one printer, and a store that stays
  /// a small part of a small box's disk.
  package static let standard = QueueLimits(
    perPrinter: 10_000, total: 50_000, bytes: 1 << 30)

  package init(perPrinter: Int, total: Int, bytes: Int) {
    self.perPrinter = perPrinter
    self.total = total
    self.bytes = bytes
  }
}

/// What waits now: jobs not ended on a printer and in all, and their documents' bytes.
package struct QueueOccupancy: Sendable, Equatable {
  package var printer = 0
  package var total = 0
  package var bytes = 0
  package init(printer: Int = 0, total: Int = 0, bytes: Int = 0) {
    self.printer = printer
    self.total = total
    self.bytes = bytes
  }
}

/// A job past one of the queue's bounds: which, its limit, and what waits there now.
package struct QueueRefusal: Sendable, Equatable, Error {
  package var printer: String
  package var bound: QueueBound
  package var limit: Int
  package var waiting: Int

  package init(printer: String, bound: QueueBound, limit: Int, waiting: Int) {
    self.printer = printer
    self.bound = bound
    self.limit = limit
    self.waiting = waiting
  }

  /// Error 1008, naming the printer for its own bound.
  package var rpcError: RPCError {
    .tooManyJobs(
      printer: bound == .printer ? printer : nil, bound: bound, limit: limit, waiting: waiting)
  }
}

/// What became of a job offered to the store: kept, or refused at the queue's bounds with
/// nothing stored.
package enum JobAdmission: Sendable {
  case created(Job, resolved: [Int])
  case refused(QueueRefusal)
}

/// What the scheduler needs of the jobs' store, and nothing of how it keeps them: the
/// scheduler builds on this, the SQLite store (`LabelStore.JobStore`) implements it, and
/// the composition root joins the two. Every write answers only once it is kept or has
/// failed; a failure is a `SaveFailure`, a job write's outcome a `JobWrite`.
package protocol JobStoring: Sendable {
  /// Stores a new job unless it would pass one of `limits` (checked against the jobs not
  /// ended and the new ones being stored, under one lock: two submits never both take the
  /// last place). `resolved` names rows whose earlier failed write went with it.
  func create(_ job: NewJob, within limits: QueueLimits) async throws(SaveFailure) -> JobAdmission
  /// What waits now (`printer`'s own count, and all).
  func occupancy(printer: String) -> QueueOccupancy
  /// Gives a job stored without its document (`NewJob.document` nil) its document,
  /// within the bytes bound: nil when `id` is no such job (it has one, or it ended).
  func attach(_ id: Int, document: JobDocument, within limits: QueueLimits)
    async throws(SaveFailure) -> JobAdmission?
  /// Jobs still waiting for their document, oldest first.
  func incoming() -> [Job]
  /// Takes job `id` out of those waiting for their document, to end it: false when it is
  /// not one (its document came first, or it ended), so a document and an end never both
  /// take the same job.
  func claimIncoming(_ id: Int) -> Bool
  /// Changes a job and writes it through; nil when there is no such job.
  func update(_ id: Int, _ change: @Sendable (inout Job) -> Void) async -> (Job, JobWrite)?
  /// A job not ended (what the printers work on), from memory.
  func live(_ id: Int) -> Job?
  /// Any job, ended or not.
  func get(_ id: Int) async throws(SaveFailure) -> Job?
  /// Whether any job, ended or not, names `printer`.
  func anyJob(for printer: String) async throws(SaveFailure) -> Bool
  /// A job with the document it prints.
  func record(_ id: Int) async throws(SaveFailure) -> JobRecord?
  /// The jobs not ended that have their document, oldest first (of one printer, or all):
  /// what the printers work on.
  func unfinished(printer: String?) -> [Job]
}
