import Foundation
import LabelCore
import Synchronization

/// What a job prints: the bytes for one copy, in the printer's own language.
enum JobDocument: Sendable, Equatable {
  case native([UInt8])

  var bytes: [UInt8] {
    switch self {
    case .native(let b): return b
    }
  }
}

/// A job with what it prints.
struct JobRecord: Sendable {
  var job: Job
  var document: JobDocument
}

/// Every job, by id. In memory until the durable store lands; `create` answers only once
/// the job is kept.
final class JobStore: Sendable {
  private struct State {
    var records: [Int: JobRecord] = [:]
    var nextID = 1
  }
  private let state = Mutex(State())

  init() {}

  func create(printer: String, copies: Int, owner: JobOwner, document: JobDocument)
    async throws(SaveFailure) -> Job
  {
    state.withLock { s in
      let now = Date()
      let job = Job(
        id: s.nextID, printer: printer, state: .pending, copies: copies, printed: 0,
        createdAt: now, updatedAt: now, owner: owner)
      s.nextID += 1
      s.records[job.id] = JobRecord(job: job, document: document)
      return job
    }
  }

  /// Applies `change` to the job and stamps `updatedAt`; nil for an unknown id.
  func update(_ id: Int, _ change: @Sendable (inout Job) -> Void) async -> Job? {
    state.withLock { s in
      guard var record = s.records[id] else { return nil }
      change(&record.job)
      record.job.updatedAt = Date()
      s.records[id] = record
      return record.job
    }
  }

  func get(_ id: Int) async -> Job? { state.withLock { $0.records[id]?.job } }
  func record(_ id: Int) async -> JobRecord? { state.withLock { $0.records[id] } }

  func list(printer: String? = nil, states: Set<JobState>? = nil) async -> [Job] {
    state.withLock { s in
      s.records.values.lazy.map(\.job)
        .filter { job in
          (printer == nil || job.printer == printer) && (states?.contains(job.state) ?? true)
        }
    }.sorted { $0.id < $1.id }
  }
}
