import Foundation
import LabelCore
import LabelInterfaces
import LabelTestKit
import Testing

@testable import LabelScheduler

/// The scheduler on the test kit: a fake printer at the transport's wire, the real queue,
/// store (in memory) and channel. Each test asserts what reached the printer, what the
/// store says and what a subscriber heard.
@Suite struct PrinterQueueTests {
  static let bytes = Array("^XA^FDhello^FS^XZ".utf8)

  @Test func copies_reachThePrinter_inOrder_withTheirBytes() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:a")
    await stack.add(printer)
    let first = try await stack.submit("fake:a", Self.bytes, copies: 3)
    let second = try await stack.submit("fake:a", Array("^XA^XZ".utf8))
    #expect(try await stack.wait(for: second.id, in: [.completed]).state == .completed)
    let done = try await stack.job(first.id)
    #expect(done.state == .completed && done.printed == 3)
    #expect(
      printer.copies == [
        .init(job: first.id, copy: 1, bytes: Self.bytes),
        .init(job: first.id, copy: 2, bytes: Self.bytes),
        .init(job: first.id, copy: 3, bytes: Self.bytes),
        .init(job: second.id, copy: 1, bytes: Array("^XA^XZ".utf8)),
      ])
  }

  /// A fault met while printing holds the job with an alert naming it; the printer's own
  /// report that it cleared clears the alert, and the copy is printed once.
  @Test func aFaultMidJob_holdsIt_alertNamesIt_andClearing_printsEachCopyOnce() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:b")
    await stack.add(printer)
    let client = NotificationRecorder()
    stack.channel.subscribe(client, topics: [.alerts, .jobs], since: nil) { _ in [] }
    printer.failNext(.mediaEmpty, "out of labels")
    let job = try await stack.submit("fake:b", Self.bytes, copies: 2)
    let held = try await stack.wait(for: job.id, in: [.held])
    #expect(held.state == .held && held.printed == 0)
    let alert = try #require(stack.channel.activeEvent(id: "printerError:fake:b"))
    guard case .printerError(let details) = alert.alert else {
      Issue.record("not a printerError: \(alert)")
      return
    }
    #expect(details.reason == .mediaEmpty && details.job == job.id)
    #expect(stack.registry.queue("fake:b")?.snapshot.reasons == [.mediaEmpty])

    await printer.inject([])  // the printer says it is fine again
    let done = try await stack.wait(for: job.id, in: [.completed])
    #expect(done.printed == 2)
    #expect(printer.copies.map(\.copy) == [1, 2])
    #expect(stack.channel.activeEvent(id: "printerError:fake:b") == nil)
    await stack.channel.waitForDelivery()
    let alerts = client.notifications("alert")
    #expect(alerts.map { $0["state"] } == [.string("active"), .string("cleared")])
    #expect(alerts.first?["job"] == .int(job.id))
  }

  /// A fault the printer reports while idle holds the next job before anything is sent.
  /// What a transport says of a fault beyond its reason (the tapes of a mismatch) is on the
  /// alert while that fault lasts, and goes with it.
  @Test func whatTheTransportSaidOfAFault_isOnItsAlert_whileItLasts() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:m")
    await stack.add(printer)
    printer.failNext(
      .mediaMismatch, "m: wrong tape", detail: "the job is for 12 mm tape but 24 mm tape is loaded")
    let job = try await stack.submit("fake:m", Self.bytes)
    _ = try await stack.wait(for: job.id, in: [.held])
    func message() -> String? {
      guard case .printerError(let d)? = stack.channel.activeEvent(id: "printerError:fake:m")?.alert
      else { return nil }
      return d.message
    }
    #expect(
      message()
        == "fake:m: loaded media does not fit the job (the job is for 12 mm tape but 24 mm tape "
        + "is loaded); job \(job.id) is waiting")
    // Another fault replaces it: the detail was about the mismatch, not this.
    await printer.inject([.coverOpen])
    #expect(message() == "fake:m: cover open; job \(job.id) is waiting")
    await printer.inject([])
    _ = try await stack.wait(for: job.id, in: [.completed])
    #expect(message() == nil)
  }

  @Test func aReportedFault_holdsTheNextJob_beforeAnyByteIsSent() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:c")
    await stack.add(printer)
    await printer.inject([.coverOpen])
    let job = try await stack.submit("fake:c", Self.bytes)
    let event = try #require(stack.channel.activeEvent(id: "printerError:fake:c"))
    guard case .printerError(let details) = event.alert else { return }
    #expect(details.reason == .coverOpen && details.job == job.id)
    #expect(printer.started == 0)
    await printer.inject([])
    #expect(try await stack.wait(for: job.id, in: [.completed]).printed == 1)
    #expect(printer.copies.count == 1)
  }

  /// A fault that makes a job unprintable aborts it with that reason, and says so on the
  /// channel (the alert names the job; the printer itself is not faulted, so it clears).
  @Test func anAbortingFault_abortsTheJob_withItsReason() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:d")
    await stack.add(printer)
    let client = NotificationRecorder()
    stack.channel.subscribe(client, topics: [.alerts], since: nil) { _ in [] }
    printer.failNext(.jobRejected, "the printer refused it")
    let job = try await stack.submit("fake:d", Self.bytes)
    let aborted = try await stack.wait(for: job.id, in: [.aborted])
    #expect(aborted.state == .aborted && aborted.error?.reason == .jobRejected)
    #expect(printer.copies.isEmpty)
    // The job is aborted, then the alert raised: wait for it as a client would.
    let alert = try #require(await client.first("alert"))
    #expect(alert["reason"] == .string("jobRejected") && alert["job"] == .int(job.id))
    #expect(alert["state"] == .string("active"))
  }

  /// Cancelling the job being printed stops it at the printer, and the copy in progress is
  /// not counted; the next job prints.
  @Test func cancellingThePrintingJob_stopsIt_andTheNextJobPrints() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:e")
    await stack.add(printer)
    printer.hold()
    let job = try await stack.submit("fake:e", Self.bytes, copies: 2)
    _ = try await stack.wait(for: job.id, in: [.processing])
    for _ in 0..<1000 where printer.started == 0 { try await Task.sleep(for: .milliseconds(10)) }
    let canceled = try await stack.service.cancel(job.id, by: 1000, isAdmin: false)
    let final = try await stack.wait(for: canceled.id, in: [.canceled])
    #expect(final.state == .canceled && final.printed == 0)
    #expect(printer.cancelled == [job.id])
    printer.release()
    let next = try await stack.submit("fake:e", Array("^XA^XZ".utf8))
    #expect(try await stack.wait(for: next.id, in: [.completed]).state == .completed)
    #expect(printer.copies.map(\.job) == [next.id])
  }

  /// A printer that appears after start-up (plugged in, a CUPS queue added) takes back the
  /// jobs stored for it, oldest first, and prints each once; adopting it twice is refused.
  @Test func aPrinterAdoptedLater_takesBackItsJobs() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let document = Array("^XA^FDlate^FS^XZ".utf8)
    var waiting: [Int] = []
    for _ in 0..<3 {
      let admission = try await stack.jobs.create(
        NewJob(
          printer: "fake:late", copies: 1, owner: JobOwner(uid: 1000),
          document: .native(document)),
        within: .standard)
      guard case .created(let job, _) = admission else {
        Issue.record("refused: \(admission)")
        return
      }
      waiting.append(job.id)
    }
    await stack.registry.open(policy: .resend)
    let printer = FakeTransport(id: "fake:late")
    #expect(await stack.registry.adopt(printer))
    let twice = await stack.registry.adopt(FakeTransport(id: "fake:late"))
    #expect(!twice, "one printer per id")
    for id in waiting { _ = try await stack.wait(for: id, in: [.completed]) }
    #expect(printer.copies.map(\.job) == waiting)
    #expect(printer.copies.allSatisfy { $0.bytes == document })
  }

  /// Only the owner or an administrator cancels a job.
  @Test func someoneElsesJob_cannotBeCancelled() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:f")
    await stack.add(printer)
    await printer.inject([.paused])
    let job = try await stack.submit("fake:f", Self.bytes, uid: 1000)
    await #expect(throws: RPCError.self) {
      _ = try await stack.service.cancel(job.id, by: 2000, isAdmin: false)
    }
    #expect(try await stack.job(job.id).state == .pending)
    #expect(try await stack.service.cancel(job.id, by: 2000, isAdmin: true).state == .canceled)
  }
}
