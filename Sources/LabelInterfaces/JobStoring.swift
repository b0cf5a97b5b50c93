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

/// What the scheduler needs of the jobs' store, and nothing of how it keeps them: the
/// scheduler builds on this, the SQLite store (`LabelStore.JobStore`) implements it, and
/// the composition root joins the two. Every write answers only once it is kept or has
/// failed; a failure is a `SaveFailure`, a job write's outcome a `JobWrite`.
package protocol JobStoring: Sendable {
  /// Stores a new job; `resolved` names rows whose earlier failed write went with it.
  func create(printer: String, copies: Int, owner: JobOwner, document: JobDocument)
    async throws(SaveFailure) -> (job: Job, resolved: [Int])
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
  /// The jobs not ended, oldest first (of one printer, or all).
  func unfinished(printer: String?) -> [Job]
}
