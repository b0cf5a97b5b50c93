import Foundation
import LabelCore
import LabelInterfaces
import LabelTestKit
import Testing

@testable import LabelScheduler

/// The waiting queue's bounds (CUPS's MaxJobsPerPrinter and MaxJobs, and the bytes the
/// documents hold): a submit past one is refused with 1008 naming it, nothing of it is
/// stored, the refusal is counted, and a place comes back when a job ends.
@Suite struct QueueBoundsTests {
  static let bytes = Array("^XA^FDwait^FS^XZ".utf8)

  /// A printer that keeps every job waiting (its cover is open).
  static func faulted(_ stack: TestStack, _ id: String) async -> FakeTransport {
    let printer = FakeTransport(id: id)
    await stack.add(printer)
    await printer.inject([.coverOpen])
    return printer
  }

  static func refusal(_ body: () async throws -> Job) async -> RPCError? {
    do {
      let job = try await body()
      Issue.record("job \(job.id) was accepted past the bound")
      return nil
    } catch {
      return error as? RPCError
    }
  }

  @Test func aPrintersOwnBound_refusesItsNextJob_only() async throws {
    let stack = try TestStack(limits: QueueLimits(perPrinter: 3, total: 100, bytes: 1 << 20))
    defer { stack.close() }
    _ = await Self.faulted(stack, "fake:a")
    _ = await Self.faulted(stack, "fake:b")
    var ids: [Int] = []
    for _ in 0..<3 { ids.append(try await stack.submit("fake:a", Self.bytes).id) }
    let error = await Self.refusal {
      try await stack.submit("fake:a", Self.bytes)
    }
    #expect(error?.code == 1008)
    #expect(error?.data?["bound"] == "printer" && error?.data?["printer"] == "fake:a")
    #expect(error?.data?["limit"] == 3 && error?.data?["waiting"] == 3)
    #expect(error?.message.contains("nothing was stored") == true)
    // Nothing of it was stored: the next job stored takes the very next id.
    let other = try await stack.submit("fake:b", Self.bytes)
    #expect(other.id == ids[2] + 1)
    #expect(stack.jobs.unfinished(printer: "fake:a").count == 3)
    #expect(stack.service.refused == [.printer: 1])
  }

  @Test func theTotalBound_countsEveryPrinter() async throws {
    let stack = try TestStack(limits: QueueLimits(perPrinter: 10, total: 4, bytes: 1 << 20))
    defer { stack.close() }
    _ = await Self.faulted(stack, "fake:a")
    _ = await Self.faulted(stack, "fake:b")
    for _ in 0..<2 { _ = try await stack.submit("fake:a", Self.bytes) }
    for _ in 0..<2 { _ = try await stack.submit("fake:b", Self.bytes) }
    let error = await Self.refusal {
      try await stack.submit("fake:b", Self.bytes)
    }
    #expect(error?.code == 1008 && error?.data?["bound"] == "total")
    #expect(error?.data?["printer"] == nil && error?.data?["waiting"] == 4)
    #expect(stack.service.refused == [.total: 1])
  }

  @Test func theBytesBound_countsTheWaitingDocuments() async throws {
    let stack = try TestStack(limits: QueueLimits(perPrinter: 10, total: 10, bytes: 1000))
    defer { stack.close() }
    _ = await Self.faulted(stack, "fake:a")
    _ = try await stack.submit("fake:a", [UInt8](repeating: 0x41, count: 600))
    let error = await Self.refusal {
      try await stack.submit("fake:a", [UInt8](repeating: 0x41, count: 401))
    }
    #expect(error?.code == 1008 && error?.data?["bound"] == "bytes")
    #expect(error?.data?["limit"] == 1000 && error?.data?["waiting"] == 600)
    // What fits still fits.
    _ = try await stack.submit("fake:a", [UInt8](repeating: 0x41, count: 400))
    #expect(
      stack.jobs.occupancy(printer: "fake:a") == QueueOccupancy(printer: 2, total: 2, bytes: 1000))
  }

  /// A job that ends gives its place back, whichever way it ends.
  @Test func aJobThatEnds_givesItsPlaceBack() async throws {
    let stack = try TestStack(limits: QueueLimits(perPrinter: 2, total: 10, bytes: 1 << 20))
    defer { stack.close() }
    let printer = await Self.faulted(stack, "fake:a")
    let first = try await stack.submit("fake:a", Self.bytes)
    let second = try await stack.submit("fake:a", Self.bytes)
    _ = await Self.refusal {
      try await stack.submit("fake:a", Self.bytes)
    }
    _ = try await stack.service.cancel(first.id, by: 1000, isAdmin: false)
    let third = try await stack.submit("fake:a", Self.bytes)
    await printer.inject([])
    _ = try await stack.wait(for: second.id, in: [.completed])
    _ = try await stack.wait(for: third.id, in: [.completed])
    #expect(stack.jobs.occupancy(printer: "fake:a") == QueueOccupancy())
    for _ in 0..<2 { _ = try await stack.submit("fake:a", Self.bytes) }
  }

  /// Many submits at once never overshoot: the place is taken before the write.
  @Test func concurrentSubmits_fillTheBoundExactly() async throws {
    let stack = try TestStack(limits: QueueLimits(perPrinter: 10, total: 100, bytes: 1 << 20))
    defer { stack.close() }
    _ = await Self.faulted(stack, "fake:a")
    let outcomes = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<50 {
        group.addTask {
          do {
            _ = try await stack.submit("fake:a", Self.bytes)
            return true
          } catch {
            return false
          }
        }
      }
      var accepted = 0
      for await ok in group where ok { accepted += 1 }
      return accepted
    }
    #expect(outcomes == 10)
    #expect(stack.jobs.unfinished(printer: "fake:a").count == 10)
    #expect(stack.service.refused == [.printer: 40])
  }

  /// The bounds change at once (SIGHUP): a lower one refuses the next job, a higher one
  /// takes it.
  @Test func newLimits_applyToTheNextSubmit() async throws {
    let stack = try TestStack(limits: QueueLimits(perPrinter: 1, total: 10, bytes: 1 << 20))
    defer { stack.close() }
    _ = await Self.faulted(stack, "fake:a")
    _ = try await stack.submit("fake:a", Self.bytes)
    #expect(throws: RPCError.self) { try stack.service.checkRoom("fake:a") }
    stack.service.queueLimits = QueueLimits(perPrinter: 2, total: 10, bytes: 1 << 20)
    try stack.service.checkRoom("fake:a")
    _ = try await stack.submit("fake:a", Self.bytes)
  }
}
