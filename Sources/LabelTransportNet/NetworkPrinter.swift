import LabelConcurrency
import LabelCore
import LabelInterfaces
import LabelLanguages
import LabelLog
import LabelPOSIX
import Synchronization

/// How long labeld waits on a network printer; every wait is bounded.
public struct NetworkTimeouts: Sendable, Equatable {
  /// A TCP connection accepted.
  public var connectMS: Int32 = 3000
  /// A status reply (Zebra `~HQES`, TSPL `<ESC>!?`, EPL2 `^ee`, DYMO `ESC A`).
  public var statusMS: Int32 = 2000
  /// Room in the send buffer: a printer that takes no data for this long is offline.
  public var writeMS: Int32 = 10_000
  public init() {}
}

/// The network printers configured (`--printer`, `printer =`), and how they are polled.
public struct NetworkSettings: Sendable, Equatable {
  public var printers: [NetworkPrinterSpec] = []
  public var timeouts = NetworkTimeouts()
  /// Status polls while a fault is held (first interval; it grows to `maxFaultPoll`).
  public var faultPoll: Duration = .milliseconds(500)
  public var maxFaultPoll: Duration = .seconds(5)
  /// Status polls of a printer with no fault.
  public var idlePoll: Duration = .seconds(30)
  public init() {}
}

/// A printer on a raw TCP port (9100): each copy is a connection on which labeld asks the
/// printer's status, sends the job and asks again, in the printer's language (its driver's
/// status request and parser, as over USB); the copy counts once the printer answers with
/// no fault. A printer that does not accept the connection, or stops taking data, is
/// `offline` and its job waits; one that never answers its status is `communication`.
/// Every call blocks on the printer's own queue, with bounded waits: a dead printer stalls
/// only its own jobs.
package final class NetworkPrinter: PrinterTransport {
  package let spec: NetworkPrinterSpec
  package let model: ModelEntry
  private let driver: any LanguageDriver
  private let settings: NetworkSettings
  private let log: Logger
  private let io: BlockingQueue
  private let kick = Wakeup()
  private struct State {
    /// Bumped when a job meets a fault: a poll that began earlier must not clear it.
    var faultGeneration = 0
    /// When the printer last answered a status with no fault (the copy before this one).
    var lastClean: ContinuousClock.Instant?
    /// The media its status reports (Brother QL, P-touch).
    var reportedMedia: Media?
    /// The job that met `mediaMismatch`: the fault lasts until its media is in.
    var needs: JobFacts?
  }

  /// A clean answer this recent stands for the status before the next copy: a queue of
  /// labels is asked once between two labels, not twice.
  private static let freshStatus: Duration = .seconds(1)
  private let state = Mutex(State())

  package init(spec: NetworkPrinterSpec, settings: NetworkSettings, log: Logger)
    throws(DriverError)
  {
    let name = spec.model ?? spec.language.profile.defaultModel
    guard let model = DriverTable.model(named: name, language: spec.language) else {
      throw DriverError("no \(spec.language.profile.displayName) model \(name)")
    }
    self.spec = spec
    self.model = model
    driver = try DriverTable.driver(for: model, settings: LabelSettings(model: model.name))
    self.settings = settings
    self.log = log
    io = BlockingQueue(label: "labeld.net.\(spec.name)")
  }

  package var id: String { "net:\(spec.name)" }

  package var descriptor: Printer {
    // Configured media first; else what the printer's status says is loaded.
    let media =
      spec.widthMM.map { width in
        let length = spec.lengthMM ?? 0
        let continuous = spec.language.profile.printsOnTape ? "tape" : "continuous"
        return Media(widthMM: width, lengthMM: length, kind: length == 0 ? continuous : "labels")
      } ?? state.withLock { $0.reportedMedia }
    return Printer(
      id: id, name: spec.name, transport: .net, model: model.displayName,
      language: spec.language,
      dpi: spec.dpi ?? model.capabilities.dpi.first ?? spec.language.profile.defaultDPI,
      media: media, uri: spec.uri)
  }

  package var labelSettings: LabelSettings { LabelSettings(model: model.name) }

  /// Where the printer answers its status: on the printing connection (ZPL and most
  /// languages), over SNMP (Brother QL network models, which send nothing back on 9100),
  /// or nowhere.
  private enum StatusChannel { case socket, snmp([UInt32]), none }

  private var channel: StatusChannel {
    guard model.capabilities.confirmation != .none else { return .none }
    if driver.answersStatusOverSocket { return .socket }
    if let oid = driver.snmpStatusOID { return .snmp(oid) }
    return .none
  }

  /// The status request's name, for messages: the language's, or the SNMP object.
  private var statusName: String {
    if case .snmp(let oid) = channel {
      return "SNMP status (\(oid.map(String.init).joined(separator: ".")))"
    }
    return driver.statusRequestName
  }

  /// Whether a copy is confirmed by the printer's status after it (else it counts once
  /// the printer took every byte).
  private var confirms: Bool {
    if case .none = channel { return false }
    return true
  }

  // MARK: printing

  package func print(
    _ bytes: [UInt8], job: Int, copy: Int, cancel _: CancelRequest, status: any PrinterStatusSink
  ) async throws(CancellationError) -> PrintOutcome {
    try await PrintOutcome.of { try await printCopy(bytes, job: job, status: status) }
  }

  /// One copy: status, job, status; a fault found after it holds the count until it clears.
  private func printCopy(_ bytes: [UInt8], job: Int, status sink: any PrinterStatusSink)
    async throws
  {
    let cancelled = Atomic<Bool>(false)
    let status: DeviceStatus?
    // Polls keep a mismatch until this job's media is in.
    let facts = driver.jobFacts(bytes)
    state.withLock { $0.needs = facts }
    do {
      status = try await withTaskCancellationHandler {
        try await io.run { () throws -> DeviceStatus? in
          try self.send(bytes, facts: facts, job: job) { cancelled.load(ordering: .relaxed) }
        }
      } onCancel: {
        cancelled.store(true, ordering: .relaxed)
      }
    } catch let error as TransportError {
      state.withLock {
        $0.faultGeneration += 1
        $0.lastClean = nil
      }
      kick.signal()
      throw error
    }
    state.withLock { $0.needs = nil }
    if let status { await note(status, reportingTo: sink) }
    guard let status, !status.faults.isEmpty else { return }
    // The label is in the printer and prints when the fault clears.
    try await sink.waitWhileHeld(status.faults) {
      let again = try await io.run { () throws -> StatusRead in
        try self.status(try self.connect(job: job), job: job)
      }
      guard case .status(let s) = again else { return nil }
      return s.faults
    } stoppedAnswering: {
      TransportError(
        reason: .communication,
        message: "\(spec.name): stopped answering its \(statusName) while job \(job) "
          + "waited in it; the copy is not counted and is sent again once it answers")
    }
  }

  /// One copy on the printer's queue: status, job, status. Returns the status after the
  /// job (nil when the printer cannot be asked).
  private func send(_ bytes: [UInt8], facts: JobFacts, job: Int, cancelled: () -> Bool) throws
    -> DeviceStatus?
  {
    let link = try connect(job: job)
    let request = statusName
    let (recent, lastMedia) = state.withLock { s in
      (s.lastClean.map { ContinuousClock.now - $0 < Self.freshStatus } ?? false, s.reportedMedia)
    }
    if confirms && recent, let why = facts.mismatch(loaded: lastMedia) {
      throw mismatch(why, job: job)
    }
    if confirms && !recent {
      // Nothing goes into a printer that already has a fault: it would print when the
      // fault clears, and again when labeld resends the copy.
      switch try status(link, job: job) {
      case .status(let s):
        if let fault = s.faults.first {
          throw TransportError(
            reason: fault, message: "\(spec.name): \(fault.phrase) (\(s.detail)); job \(job) waits")
        }
        // Nor a job for other media (a 12 mm job with a 24 mm cassette in): the printer
        // would refuse it, or print it on the wrong tape.
        if let why = facts.mismatch(loaded: s.media) {
          throw mismatch(why, job: job)
        }
      case .silent:
        throw TransportError(
          reason: .communication,
          message: "\(spec.name): no answer to \(request) at \(spec.uri); job \(job) waits "
            + "until it answers")
      case .unreadable(let why):
        throw TransportError(
          reason: .communication,
          message: "\(spec.name): its answer to \(request) is not a status (\(why)); job \(job) "
            + "waits")
      }
    }
    do {
      try link.write(bytes, timeoutMS: settings.timeouts.writeMS, cancelled: cancelled)
    } catch {
      if error.isCancellation { throw CancellationError() }
      throw TransportError(
        reason: .offline,
        message: "\(spec.name): stopped taking job \(job) at \(spec.uri) (\(error)); the copy "
          + "is sent again once it answers")
    }
    guard confirms else { return nil }
    switch try status(link, job: job) {
    case .status(let s):
      state.withLock { $0.lastClean = s.faults.isEmpty ? .now : nil }
      return s
    case .silent:
      throw TransportError(
        reason: .communication,
        message: "\(spec.name): no answer to \(request) after job \(job) was sent; the copy is "
          + "not counted and is sent again once the printer answers")
    case .unreadable(let why):
      throw TransportError(
        reason: .communication,
        message: "\(spec.name): its answer to \(request) after job \(job) is not a status "
          + "(\(why)); the copy is not counted and is sent again once it answers properly")
    }
  }

  private func mismatch(_ why: String, job: Int) -> TransportError {
    TransportError(
      reason: .mediaMismatch,
      message: "\(spec.name): \(why); job \(job) waits for the right media", detail: why)
  }

  /// A connection, or `offline` naming the waiting job.
  private func connect(job: Int?) throws(TransportError) -> TCPConnection {
    do {
      return try TCPConnection.connect(
        host: spec.host, port: spec.port, timeoutMS: settings.timeouts.connectMS)
    } catch {
      let waiting = job.map { "; job \($0) waits until it answers" } ?? ""
      throw TransportError(
        reason: .offline, message: "\(spec.name): cannot reach \(spec.uri) (\(error))\(waiting)")
    }
  }

  /// Asks the printer its status (on `link`, or over SNMP) and reads the answer within the
  /// status timeout.
  private func status(_ link: TCPConnection, job: Int?) throws(TransportError) -> StatusRead {
    if case .snmp(let oid) = channel { return snmpStatus(oid) }
    do {
      try link.write(
        driver.statusPreamble + driver.statusRequest, timeoutMS: settings.timeouts.statusMS)
    } catch {
      throw TransportError(
        reason: .offline, message: "\(spec.name): cannot ask \(spec.uri) its status (\(error))")
    }
    var input: [UInt8] = []
    var deadline = ContinuousClock.now + .milliseconds(Int(settings.timeouts.statusMS))
    while true {
      scan: while !input.isEmpty {
        switch driver.scanStatus(input[...]) {
        case .status(let status, let consumed):
          input.removeFirst(min(max(consumed, 1), input.count))
          if status.kind == .reply { return .status(status) }
        case .unreadable(let why, _): return .unreadable(why)
        case .skip(let count): input.removeFirst(min(max(count, 1), input.count))
        case .needMore: break scan
        }
      }
      let left = deadline - ContinuousClock.now
      guard left > .zero else {
        return input.isEmpty ? .silent : .unreadable("\(input.count) bytes without a status")
      }
      let (seconds, attoseconds) = left.components
      let ms = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
      do {
        input += try link.read(timeoutMS: max(ms, 1))
      } catch {
        throw TransportError(
          reason: .offline,
          message: "\(spec.name): closed the connection while asked its status (\(error))")
      }
      if input.count > 4096 { deadline = .now }  // no status in 4 KiB: not a status
    }
  }

  /// The status block over SNMP, read by the driver as it reads the USB reply.
  private func snmpStatus(_ oid: [UInt32]) -> StatusRead {
    let value: [UInt8]
    do {
      value = try SNMPGet.octets(
        oid: oid, host: spec.host, port: spec.snmpPort, community: spec.community,
        timeoutMS: settings.timeouts.statusMS / 2)
    } catch let error as SNMPGet.Failure {
      return error.description.contains("SNMP GET to") ? .silent : .unreadable(error.description)
    } catch {
      return .silent
    }
    switch driver.scanStatus(value[...]) {
    case .status(let status, _): return .status(status)
    case .unreadable(let why, _): return .unreadable(why)
    case .skip, .needMore:
      return .unreadable("the SNMP value is not a status (\(value.count) bytes)")
    }
  }

  // MARK: status

  /// Keeps the media a status reports (when none is configured); the printer is published
  /// again when it changes.
  private func note(_ status: DeviceStatus, reportingTo sink: any PrinterStatusSink) async {
    guard spec.widthMM == nil, let media = status.media else { return }
    let changed = state.withLock { s in
      defer { s.reportedMedia = media }
      return s.reportedMedia != media
    }
    if changed { await sink.update(faults: nil) }
  }

  /// The printer's faults now: `offline` when it does not accept a connection,
  /// `communication` when it does not answer its status, else what it answers.
  private func poll(reportingTo sink: any PrinterStatusSink) async -> (
    faults: [Reason], generation: Int
  ) {
    let generation = state.withLock { $0.faultGeneration }
    let read: Result<StatusRead?, TransportError> = await io.run {
      () -> Result<StatusRead?, TransportError> in
      do throws(TransportError) {
        let link = try self.connect(job: nil)
        return .success(self.confirms ? try self.status(link, job: nil) : nil)
      } catch {
        return .failure(error)
      }
    }
    switch read {
    case .failure(let error): return ([error.reason], generation)
    case .success(nil): return ([], generation)
    case .success(.status(let s)?):
      await note(s, reportingTo: sink)
      let needs = state.withLock { $0.needs }
      if s.faults.isEmpty, let needs, needs.mismatch(loaded: s.media) != nil {
        return ([.mediaMismatch], generation)
      }
      return (s.faults, generation)
    case .success(_?): return ([.communication], generation)
    }
  }

  /// Polls at once, then often while a fault is held and rarely when all is well.
  package func monitor(_ sink: any PrinterStatusSink) async {
    await withTaskCancellationHandler {
      var faultWait = settings.faultPoll
      var first = true
      while !Task.isCancelled {
        if !first {
          let faulted = !sink.heldFaults.isEmpty
          let kicked = await kick.wait(timeout: faulted ? faultWait : settings.idlePoll)
          faultWait =
            faulted && !kicked
            ? min(faultWait * 3 / 2, settings.maxFaultPoll) : settings.faultPoll
          if Task.isCancelled { return }
        }
        first = false
        // Nothing waits for other media any more (the job was cancelled).
        if await sink.isIdle { state.withLock { $0.needs = nil } }
        let found = await poll(reportingTo: sink)
        guard found.generation == state.withLock({ $0.faultGeneration }) else { continue }
        await sink.update(faults: found.faults)
      }
    } onCancel: {
      kick.signal()
    }
  }
}

/// What a printer answered to a status request.
enum StatusRead: Sendable {
  case status(DeviceStatus)
  case silent
  case unreadable(String)
}
