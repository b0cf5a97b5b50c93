import Foundation
import LabelCore
import LabelInterfaces
import LabelSQLite
import Testing

@testable import LabelLog
@testable import LabelStore

/// What waits, as the queue's bounds see it, is counted where jobs are made and end, and
/// read back from the database at start-up (each waiting job's document size too); an
/// ended job counts for nothing. Jobs keep where they came from.
@Suite struct JobOccupancyTests {
  static let log = Logger(level: .error, sink: MemorySink())
  static let roomy = QueueLimits(perPrinter: 100, total: 100, bytes: 1 << 20)

  static func create(_ jobs: JobStore, _ printer: String, bytes: Int, origin: JobOrigin = .socket)
    async throws -> Job
  {
    let admission = try await jobs.create(
      NewJob(
        printer: printer, copies: 1, owner: JobOwner(uid: 7), origin: origin,
        document: .native([UInt8](repeating: 0x5A, count: bytes))),
      within: roomy)
    guard case .created(let job, _) = admission else {
      throw SpecError("refused: \(admission)")
    }
    return job
  }

  @Test func aRestart_countsTheSameWaitingJobsAndBytes() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-occupancy-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var store = StateStore(directory: dir, log: Self.log)
    try store.open()
    var jobs = JobStore(store: store)
    try jobs.load()
    let a = try await Self.create(jobs, "sim:a", bytes: 100)
    _ = try await Self.create(jobs, "sim:a", bytes: 200)
    let ipp = try await Self.create(
      jobs, "sim:b", bytes: 400, origin: JobOrigin(kind: .ipp, user: "alice", name: "tag.pdf"))
    _ = await jobs.update(a.id) { $0.state = .completed }
    let before = jobs.occupancy(printer: "sim:a")
    #expect(before == QueueOccupancy(printer: 1, total: 2, bytes: 600))
    store.close()

    store = StateStore(directory: dir, log: Self.log)
    try store.open()
    jobs = JobStore(store: store)
    try jobs.load()
    defer { store.close() }
    #expect(jobs.occupancy(printer: "sim:a") == before)
    #expect(jobs.occupancy(printer: "sim:b") == QueueOccupancy(printer: 1, total: 2, bytes: 600))
    // Where it came from survives too.
    let read = try await jobs.get(ipp.id)
    #expect(read?.origin == JobOrigin(kind: .ipp, user: "alice", name: "tag.pdf"))
  }

  @Test func aRefusedJob_storesNothing() async throws {
    let store = StateStore.inMemory(log: Self.log)
    try store.open()
    defer { store.close() }
    let jobs = JobStore(store: store)
    try jobs.load()
    _ = try await Self.create(jobs, "sim:a", bytes: 10)
    let admission = try await jobs.create(
      NewJob(printer: "sim:a", copies: 1, owner: JobOwner(uid: 7), document: .native([1])),
      within: QueueLimits(perPrinter: 1, total: 10, bytes: 100))
    guard case .refused(let refusal) = admission else {
      Issue.record("stored past the bound")
      return
    }
    #expect(refusal == QueueRefusal(printer: "sim:a", bound: .printer, limit: 1, waiting: 1))
    let rows = try store.runSync { db throws(SQLiteError) in
      try db.statement("SELECT (SELECT count(*) FROM jobs), (SELECT count(*) FROM documents)")
        .first { ($0.int(0), $0.int(1)) }
    }
    #expect(rows?.0 == 1 && rows?.1 == 1)
    #expect(jobs.occupancy(printer: "sim:a") == QueueOccupancy(printer: 1, total: 1, bytes: 10))
  }
}
