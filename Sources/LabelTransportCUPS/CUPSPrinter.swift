import Dispatch
import FoundationEssentials
import LabelCUPS
import LabelConcurrency
import LabelCore
import LabelInterfaces
import LabelLog
import LabelPOSIX
import Synchronization

/// A CUPS queue as a printer (`cups:QUEUE`): each copy is one raw CUPS job, followed until
/// CUPS ends it, and the queue's IPP state becomes the scheduler's faults.
///
/// Status comes from polling (Get-Printer-Attributes, Get-Job-Attributes) on the printer's
/// own `CUPSClient` queues. CUPS refreshes a remote printer's reasons only while it runs a
/// job, so device reasons (media-empty…) count only then; while idle only the queue's own
/// state counts (stopped → paused), or stale reasons would hold jobs forever.
package final class CUPSPrinter: PrinterTransport {
  package let queueName: String
  /// Jobs: submit, follow, cancel.
  private let jobs: CUPSClient
  /// Status: admission checks and the monitor, never stuck behind a long submit.
  private let status: CUPSClient
  /// Prefix of the CUPS job names of this labeld installation (finds its jobs after a
  /// restart).
  private let instance: String
  private let pin: PrinterLanguage?
  private let log: Logger
  private let state: Mutex<State>

  private struct State {
    var printer: Printer
    var queue: CUPSQueue?
    /// The labeld job and its CUPS job being followed now.
    var inFlight: (job: Int, cups: Int)?
    /// A job failed because the device could not be reached: `offline` until a probe
    /// (or, for non-network URIs, a retry delay) says to try again.
    var unreachableSince: ContinuousClock.Instant?
    /// The CUPS server itself does not answer.
    var serverDown = false
    /// Jobs a previous run of labeld submitted, by name (loaded on the first print).
    var previous: [String: Int]?
    /// Jobs whose CUPS job completed without readable evidence: the CUPS job to ask about
    /// again on the next try (never sent again while CUPS knows it).
    var unconfirmed: [Int: (cups: Int, reasonsBefore: Set<String>)] = [:]
  }

  /// Status poll interval while idle and while a job runs.
  package static let idleInterval: Duration = .milliseconds(500)
  package static let busyInterval: Duration = .milliseconds(250)
  /// How long a non-network device stays `offline` before a job is tried again.
  package static let retryDelay: Duration = .seconds(10)

  package init(queue: CUPSQueue, pin: PrinterLanguage?, instance: String, log: Logger) {
    queueName = queue.name
    jobs = CUPSClient(label: "\(queue.name).jobs")
    status = CUPSClient(label: "\(queue.name).status")
    self.instance = instance
    self.pin = pin
    self.log = log
    state = Mutex(State(printer: CUPSPrinterModel.printer(queue, pin: pin), queue: queue))
  }

  package var descriptor: Printer { state.withLock { $0.printer } }
  private var id: String { CUPSPrinterModel.idPrefix + queueName }

  // MARK: admission

  package func admit() async throws(RPCError) {
    do {
      let q = try await status.queue(queueName)
      update(q)
      guard q.accepting else {
        throw RPCError.printerNotAccepting(
          id,
          reason: "CUPS queue \(queueName) is rejecting jobs"
            + (q.message.isEmpty ? "" : ": \(q.message)"))
      }
    } catch let error as CUPSError {
      if error.status == .notFound { throw .printerNotFound(id) }
      // Server unreachable: the job is accepted and waits; the monitor reports offline.
    } catch let error as RPCError {
      throw error
    } catch {}
  }

  // MARK: status

  package func monitor(_ sink: any PrinterStatusSink) async {
    while !Task.isCancelled {
      await refresh(reportingTo: sink)
      let busy = state.withLock { $0.inFlight != nil }
      try? await Task.sleep(for: busy ? Self.busyInterval : Self.idleInterval)
    }
  }

  /// Reads the queue, works out the faults and reports them.
  private func refresh(reportingTo sink: any PrinterStatusSink) async {
    do {
      update(try await status.queue(queueName))
      serverAnswered()
    } catch {
      if error.isConnectionFailure {
        serverFailed(error)
      } else if error.status == .notFound {
        state.withLock { $0.queue = nil }
      } else {
        log.debug("printer \(id): status: \(error)")
      }
    }
    await probeIfUnreachable()
    await sink.update(faults: state.withLock { Self.faults($0) })
  }

  private func update(_ q: CUPSQueue) {
    state.withLock { s in
      s.queue = q
      var printer = CUPSPrinterModel.printer(q, pin: pin)
      printer.state = s.printer.state
      printer.reasons = s.printer.reasons
      s.printer = printer
    }
  }

  private func serverAnswered() {
    let was = state.withLock { s in
      defer { s.serverDown = false }
      return s.serverDown
    }
    if was { log.notice("printer \(id): the CUPS server \(CUPSClient.server) answers again") }
  }

  private func serverFailed(_ error: CUPSError) {
    let was = state.withLock { s in
      defer { s.serverDown = true }
      return s.serverDown
    }
    if !was { log.warning("printer \(id): \(error.message); retrying") }
  }

  /// The faults the scheduler should hold jobs for, from everything known now.
  private static func faults(_ s: State) -> [Reason] {
    if s.serverDown { return [.offline] }
    guard let q = s.queue else { return [.notFound] }
    let mapped = IPPReasonTable.reasons(printerKeywords: q.reasons)
    var out: [Reason]
    if q.state == .stopped {
      out = mapped.contains(.paused) ? mapped : [.paused] + mapped
    } else if s.inFlight != nil || q.state == .processing {
      out = mapped
      if IPPReasonTable.isUnreachable(message: q.message), !out.contains(.offline) {
        out.insert(.offline, at: 0)
      }
    } else {
      out = mapped.filter { $0 == .paused }
    }
    if s.unreachableSince != nil, !out.contains(.offline) { out.insert(.offline, at: 0) }
    return out
  }

  /// While the device is marked unreachable: a TCP connect to a network device's address
  /// clears the mark; other devices are tried again after `retryDelay`.
  private func probeIfUnreachable() async {
    let (since, uri) = state.withLock { ($0.unreachableSince, $0.queue?.deviceURI ?? "") }
    guard let since else { return }
    let reachable: Bool
    if let url = URLComponents(string: uri), let host = url.host,
      let scheme = url.scheme, ["ipp", "ipps", "http", "https", "socket", "lpd"].contains(scheme)
    {
      let port =
        url.port ?? ["ipp": 631, "ipps": 631, "http": 80, "https": 443, "socket": 9100][scheme]
        ?? 515
      reachable = await Self.probe(host: host, port: port)
    } else {
      reachable = ContinuousClock.now - since >= Self.retryDelay
    }
    if reachable {
      state.withLock { $0.unreachableSince = nil }
      log.notice("printer \(id): the device at \(uri) answers again")
    }
  }

  private static let probeQueue = BlockingQueue(label: "labeld.cups.probe")

  /// A TCP connect off the cooperative pool.
  private static func probe(host: String, port: Int) async -> Bool {
    await probeQueue.run { TCPProbe.canConnect(host: host, port: port) }
  }

  // MARK: printing

  package func print(
    _ bytes: [UInt8], job: Int, copy: Int, cancel: CancelRequest, status: any PrinterStatusSink
  ) async throws(CancellationError) -> PrintOutcome {
    try await PrintOutcome.of {
      try await printCopy(bytes, job: job, copy: copy, cancel: cancel, status: status)
    }
  }

  /// One copy as one CUPS job, followed to its end (or the job a previous run sent).
  private func printCopy(
    _ bytes: [UInt8], job: Int, copy: Int, cancel: CancelRequest, status: any PrinterStatusSink
  ) async throws {
    let name = "labeld \(instance) job \(job) copy \(copy)"
    // Printer reasons already there before this job are not its own: the ipp backend
    // leaves cups-ipp-missing-job-history on the printer after the job it was about.
    var before = Set(state.withLock { $0.queue?.reasons ?? [] })
    let cupsID: Int
    if let pending = state.withLock({ $0.unconfirmed.removeValue(forKey: job) }) {
      log.notice("printer \(id) job \(job): asking CUPS about job \(pending.cups) again")
      cupsID = pending.cups
      before = pending.reasonsBefore
    } else if let earlier = await previousJob(named: name) {
      log.notice("printer \(id) job \(job): following CUPS job \(earlier) sent before a restart")
      cupsID = earlier
    } else {
      do {
        cupsID = try await jobs.submitRaw(queue: queueName, title: name, bytes: bytes)
      } catch {
        throw submitFailure(error)
      }
      log.debug("printer \(id) job \(job) copy \(copy): CUPS job \(cupsID)")
    }
    state.withLock { $0.inFlight = (job, cupsID) }
    defer { state.withLock { $0.inFlight = nil } }
    try await follow(cupsID, job: job, reasonsBefore: before, cancel: cancel)
    // Device reasons stop counting once the job is done: report the idle view at once.
    state.withLock { $0.inFlight = nil }
    await status.update(faults: state.withLock { Self.faults($0) })
  }

  /// A submit CUPS refused, as a printer fault.
  private func submitFailure(_ error: CUPSError) -> TransportError {
    if error.isConnectionFailure {
      serverFailed(error)
      return TransportError(
        reason: .offline, message: "\(queueName): CUPS server unreachable: \(error.message)")
    }
    if error.status == .notAcceptingJobs {
      return TransportError(
        reason: .jobRejected, message: "\(queueName): CUPS queue is rejecting jobs")
    }
    if error.status == .notFound {
      state.withLock { $0.queue = nil }
      return TransportError(
        reason: .notFound, message: "\(queueName): CUPS has no such queue any more")
    }
    return TransportError(
      reason: .jobRejected, message: "\(queueName): CUPS refused the job: \(error)")
  }

  /// Polls CUPS job `cupsID` until it ends: returns when it printed, throws when it did not.
  private func follow(
    _ cupsID: Int, job: Int, reasonsBefore: Set<String>, cancel: CancelRequest
  ) async throws {
    let started = ContinuousClock.now
    while true {
      try Task.checkCancellation()
      let j: CUPSJob
      do {
        j = try await jobs.job(cupsID)
      } catch {
        if error.status == .notFound {
          throw TransportError(
            reason: .jobAborted,
            message:
              "\(queueName): CUPS no longer knows job \(cupsID); it cannot be confirmed printed"
          )
        }
        if error.isConnectionFailure { serverFailed(error) }
        try await Task.sleep(for: .seconds(1))  // the server restarts: ask again
        continue
      }
      var printerReasons: [String]? = []
      if j.state == .completed {
        // The backend reports a job the printer forgot on the printer, as the job ends:
        // without the printer's state the completion is not evidence (nil: not counted).
        printerReasons = await completionEvidence(reasonsBefore: reasonsBefore)
        log.debug(
          "printer \(id) CUPS job \(cupsID) completed: job \(j.reasons), printer "
            + (printerReasons.map { "\($0)" } ?? "unreadable"))
        if printerReasons == nil {
          // Asked again on the next try instead of being sent again.
          state.withLock { $0.unconfirmed[job] = (cupsID, reasonsBefore) }
        }
      }
      switch IPPReasonTable.outcome(j, printerReasons: printerReasons) {
      case .waiting, .printing:
        // Fast at first (a label takes tens of milliseconds), then easing off.
        let elapsed = ContinuousClock.now - started
        let pause: Duration =
          elapsed < .seconds(1)
          ? .milliseconds(10) : elapsed < .seconds(5) ? .milliseconds(50) : .milliseconds(250)
        try await Task.sleep(for: pause)
      case .printed:
        return
      case .canceled:
        if cancel.isRequested { throw CancellationError() }
        throw TransportError(
          reason: .jobAborted,
          message: "\(queueName): CUPS job \(cupsID) was canceled outside labeld")
      case .notPrinted(let reason, let message):
        if reason == .offline { state.withLock { $0.unreachableSince = .now } }
        throw TransportError(reason: reason, message: "\(queueName): \(message)")
      }
    }
  }

  /// The queue's printer-state-reasons that appeared during the job, read a few times
  /// (the server may be restarting); nil when they cannot be read.
  private func completionEvidence(reasonsBefore: Set<String>) async -> [String]? {
    for attempt in 0..<5 {
      if let q = try? await status.queue(queueName) {
        update(q)
        return q.reasons.filter { !reasonsBefore.contains($0) }
      }
      try? await Task.sleep(for: .milliseconds(200 << attempt))
    }
    return nil
  }

  /// The CUPS job a previous run submitted under `name`, if CUPS still has it.
  private func previousJob(named name: String) async -> Int? {
    if let known = state.withLock({ $0.previous }) { return known[name] }
    var found: [String: Int] = [:]
    do {
      for j in try await jobs.jobs(queue: queueName)
      where j.name.hasPrefix("labeld \(instance) ") {
        found[j.name] = max(found[j.name] ?? 0, j.id)
      }
    } catch {
      log.debug("printer \(id): cannot list CUPS jobs: \(error)")
      return nil  // ask again next time
    }
    state.withLock { $0.previous = found }
    return found[name]
  }

  package func cancel(job: Int) async {
    let cupsID = state.withLock { s -> Int? in
      guard let f = s.inFlight, f.job == job else { return nil }
      return f.cups
    }
    guard let cupsID else { return }
    do {
      try await jobs.cancel(job: cupsID)
    } catch {
      log.warning("printer \(id) job \(job): cancelling CUPS job \(cupsID) failed: \(error)")
    }
  }
}
