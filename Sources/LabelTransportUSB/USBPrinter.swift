import Dispatch
import FoundationEssentials
import LabelConcurrency
import LabelCore
import LabelInterfaces
import LabelLanguages
import LabelLog
import LabelUSB
import Synchronization

/// A USB label printer, in whatever language its driver speaks. How a copy counts as
/// printed follows the model row's `confirmation`: printers that report each page
/// (Brother QL) are asked for their status, sent the job and heard out page by page;
/// printers that only answer when asked (ZPL `~HQES`) are asked before and after each
/// copy, bounded, with back-off while they stay silent.
///
/// All device I/O runs on the printer's own serial dispatch queue; the device is opened
/// and claimed for each operation (a copy, a status poll) and closed after, so a printer
/// left idle is free for other programs and a replug needs no cleanup.
package final class USBPrinter: PrinterTransport {
  package let id: String
  /// The printer's language: its bytes, its status request and how to read the answer.
  package let driver: any LanguageDriver
  package let serial: String?
  package let manufacturer: String?
  package let timeouts: USBTimeouts
  private let settings: USBSettings
  /// Wakes the printer's status poller: a job just met a fault, or the device came back.
  package let kick = Wakeup()
  private let io: BlockingQueue
  private let state: Mutex<State>
  private let log: Logger

  private struct State {
    var device: USBDevice?
    var interface: USBPrinterInterface?
    var media: Media?
    /// The labels left on the roll, where the printer counts them (LabelWriter 550).
    var labelsRemaining: Int?
    /// Bumped whenever a job raises a fault: a poll that began earlier must not clear it.
    var faultGeneration = 0
    /// The job that met `mediaMismatch`: the fault lasts until its media is in.
    var needs: JobFacts?
    /// Status back-off (printers that answer only when asked): no status request before this instant.
    var quietUntil: ContinuousClock.Instant?
    var quietBackoff: Duration = .seconds(2)
    /// Set by `stopMonitoring`: the poller ends.
    var stopped = false
  }

  package init(candidate: USBCandidate, model: ModelEntry, settings: USBSettings, log: Logger)
    throws(DriverError)
  {
    id = candidate.printerID
    driver = try DriverTable.driver(for: model)
    serial = candidate.serial
    manufacturer = candidate.info.manufacturer
    self.timeouts = settings.timeouts
    self.settings = settings
    self.log = log
    io = BlockingQueue(label: "labeld.usb.\(candidate.printerID)")
    state = Mutex(State(device: candidate.device, interface: candidate.interface))
  }

  package var model: ModelEntry { driver.model }

  /// "QL-820NWB", "Zebra ZD420".
  package var name: String { model.name }

  package var descriptor: Printer {
    let (media, remaining) = state.withLock { ($0.media, $0.labelsRemaining) }
    let make = model.make ?? manufacturer ?? model.language.profile.make
    let full = model.displayName
    var uri =
      "usb://\(make.replacing(" ", with: "%20"))/"
      + model.name.replacing(" ", with: "%20")
    if let serial { uri += "?serial=\(serial)" }
    var printer = Printer(
      id: id, name: name, transport: .usb, model: full, language: model.language,
      dpi: model.capabilities.dpi.first ?? 300, media: media, uri: uri)
    printer.labelsRemaining = remaining
    return printer
  }

  package var labelSettings: LabelSettings {
    LabelSettings(model: model.name)
  }

  // MARK: plugging

  /// The device is on the bus (again) at this address.
  package func attach(_ device: USBDevice, interface: USBPrinterInterface?) {
    state.withLock {
      $0.device = device
      $0.interface = interface
      $0.quietUntil = nil
    }
  }

  /// The device left the bus: the monitor reports it disconnected.
  package func detach() {
    state.withLock { $0.device = nil }
    kick.signal()
  }

  package var isAttached: Bool { state.withLock { $0.device != nil } }
  package var deviceKey: USBDeviceKey? {
    state.withLock { s in s.device.map { USBDeviceKey(bus: $0.busNumber, address: $0.address) } }
  }
  package var generation: Int { state.withLock { $0.faultGeneration } }

  // MARK: printing

  package func print(
    _ bytes: [UInt8], job: Int, copy: Int, cancel _: CancelRequest, status: any PrinterStatusSink
  ) async throws(CancellationError) -> PrintOutcome {
    try await PrintOutcome.of { try await printCopy(bytes, job: job, status: status) }
  }

  /// One copy, by the flow the model's row names.
  private func printCopy(_ bytes: [UInt8], job: Int, status: any PrinterStatusSink) async throws {
    let cancel = CancelFlag()
    do {
      try await withTaskCancellationHandler {
        switch model.capabilities.confirmation {
        case .perPage:
          try await printHearingPages(bytes, job: job, cancel: cancel, status: status)
        case .statusAfterSend, .none:
          try await printThenAsk(bytes, job: job, cancel: cancel, status: status)
        }
      } onCancel: {
        cancel.set()
      }
      state.withLock { $0.needs = nil }
    } catch let error as TransportError {
      state.withLock { $0.faultGeneration += 1 }
      kick.signal()
      throw error
    }
  }

  /// Opens the printer for one operation on the I/O queue.
  private func withLink<T: Sendable>(
    cancel: CancelFlag, job: Int?, _ body: @escaping @Sendable (USBLink) throws -> T
  ) async throws -> T {
    guard let (device, interface) = state.withLock({ s in s.device.map { ($0, s.interface) } })
    else {
      let waiting = job.map { "; job \($0) waits until it is plugged in again" } ?? ""
      throw TransportError(reason: .disconnected, message: "\(name): not connected\(waiting)")
    }
    guard let interface else {
      throw TransportError(
        reason: .unknown, message: "\(name): the device has no printer-class interface")
    }
    let (name, timeouts) = (self.name, self.timeouts)
    return try await io.run { () throws -> T in
      let link = try USBLink(
        device: device, interface: interface, name: name, timeouts: timeouts, cancel: cancel)
      do {
        return try body(link)
      } catch let error as USBLinkError {
        throw link.transportError(error)
      }
    }
  }

  /// A copy on a printer that reports each page: its status first (a fault, or media the
  /// job is not for, holds the job), then the job, then one "printed" per page.
  private func printHearingPages(
    _ bytes: [UInt8], job: Int, cancel: CancelFlag, status sink: any PrinterStatusSink
  ) async throws {
    let facts = driver.jobFacts(bytes)
    let (name, timeouts, driver) = (self.name, self.timeouts, self.driver)
    // Polls keep a mismatch until this job's media is in.
    state.withLock { $0.needs = facts }
    let media = try await withLink(cancel: cancel, job: job) { link -> Media? in
      guard case .status(let status) = try link.requestStatus(driver) else {
        throw TransportError(
          reason: .offline,
          message: "\(name): no answer to a status request within \(timeouts.statusMS) ms; "
            + "job \(job) waits")
      }
      if let fault = status.faults.first {
        throw TransportError(
          reason: fault, message: "\(name): \(fault.phrase) (\(status.detail)); job \(job) waits")
      }
      if let why = facts.mismatch(loaded: status.media) {
        throw TransportError(
          reason: .mediaMismatch, message: "\(name): \(why); job \(job) waits for the right media",
          detail: why)
      }
      try link.write(bytes, doing: "sending job \(job)")
      // A page counts once the printer says it printed it.
      var printed = 0
      while printed < facts.pages {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeouts.pageMS))
        guard let s = try link.nextStatus(driver, until: deadline) else {
          throw TransportError(
            reason: .offline,
            message: "\(name): printed \(printed) of \(facts.pages) page(s) of job \(job), then "
              + "no status for \(timeouts.pageMS) ms; the copy is not counted")
        }
        switch s.kind {
        case .pagePrinted: printed += 1
        case .error, .turnedOff:
          let fault = s.kind == .turnedOff ? .offline : (s.faults.first ?? .unknown)
          throw TransportError(
            reason: fault,
            message: "\(name): \(fault.phrase) while printing job \(job) (\(s.detail)); "
              + "the copy is printed again once it clears")
        case .reply, .other: continue
        }
      }
      return status.media
    }
    await noteMedia(media, reportingTo: sink)
  }

  /// A copy on a printer that answers when asked (ZPL `~HQES`): its status first (a
  /// faulted printer gets nothing), then the label, then the status again: the copy counts only once the printer answers it (unless
  /// its driver row says it cannot answer at all). Silence or an answer that is not a
  /// status is a `communication` fault: the job is held, and the copy is sent again once
  /// the printer answers (a missing label is worse than a duplicate).
  private func printThenAsk(
    _ bytes: [UInt8], job: Int, cancel: CancelFlag, status sink: any PrinterStatusSink
  ) async throws {
    let (name, driver) = (self.name, self.driver)
    let request = driver.statusRequestName
    let confirms = model.capabilities.confirmation != .none
    let ask = shouldAskStatus()
    let reply = try await withLink(cancel: cancel, job: job) { link -> StatusRead? in
      if ask && confirms {
        // Nothing goes into a printer that already has a fault: it would print when the
        // fault clears, and again when labeld resends the copy.
        if case .status(let status) = try link.requestStatus(driver),
          let fault = status.faults.first
        {
          throw TransportError(
            reason: fault, message: "\(name): \(fault.phrase) (\(request)); job \(job) waits")
        }
      }
      try link.write(bytes, doing: "sending job \(job)")
      guard confirms else { return nil }
      // A job that carries its own status requests (LabelWriter 550) is confirmed by their
      // answers, the last one counting; asking again would leave an answer unread.
      let carried = driver.statusRepliesCarried(by: bytes)
      return carried > 0
        ? try link.carriedStatus(driver, replies: carried) : try link.requestStatus(driver)
    }
    guard let reply else { return }  // a printer that reports nothing: accepted is printed
    let status: DeviceStatus
    switch reply {
    case .status(let s):
      heard()
      status = s
      await noteRemaining(s.labelsRemaining, reportingTo: sink)
      await noteMedia(s.media, reportingTo: sink)
    case .silent:
      quiet(name: name)
      throw TransportError(
        reason: .communication,
        message: "\(name): no answer to \(request) after job \(job) was sent; the copy is not "
          + "counted and is sent again once the printer answers")
    case .unreadable(let why):
      heard()
      throw TransportError(
        reason: .communication,
        message: "\(name): its answer to \(request) after job \(job) was sent is not a status "
          + "(\(why)); the copy is not counted and is sent again once it answers properly")
    }
    guard !status.faults.isEmpty else { return }
    // The label is in the printer's buffer and prints when the fault clears.
    try await sink.waitWhileHeld(status.faults) {
      let again = try await withLink(cancel: cancel, job: job) { link in
        try link.requestStatus(driver)
      }
      guard case .status(let s) = again else { return nil }
      return s.faults
    } stoppedAnswering: {
      TransportError(
        reason: .communication,
        message: "\(name): stopped answering \(request) while job \(job) waited in it; the copy "
          + "is not counted and is sent again once it answers")
    }
  }

  // MARK: status

  /// The printer's poller: asks for its status right away when kicked (attached,
  /// replugged, a job met a fault), often while a fault is held (which is what clears
  /// it), rarely when all is well; a printer off the bus is `disconnected`.
  package func monitor(_ sink: any PrinterStatusSink) async {
    await withTaskCancellationHandler {
      var faultWait = settings.faultPoll
      while !Task.isCancelled && !state.withLock({ $0.stopped }) {
        let faulted = !sink.heldFaults.isEmpty
        let kicked = await kick.wait(timeout: faulted ? faultWait : settings.idlePoll)
        faultWait =
          faulted && !kicked ? min(faultWait * 3 / 2, settings.maxFaultPoll) : settings.faultPoll
        if Task.isCancelled || state.withLock({ $0.stopped }) { return }
        guard isAttached else {
          if sink.heldFaults != [.disconnected] { await sink.update(faults: [.disconnected]) }
          continue
        }
        if await sink.isIdle { forgetNeeds() }
        let found = await self.poll(reportingTo: sink)
        guard let faults = found.faults, found.generation == generation else { continue }
        await sink.update(faults: faults)
      }
    } onCancel: {
      kick.signal()
    }
  }

  /// Ends the poller (USB is shutting down).
  package func stopMonitoring() {
    state.withLock { $0.stopped = true }
    kick.signal()
  }

  /// What a poll found: the faults (nil: nothing learned, keep what is known).
  package struct Poll: Sendable {
    package var faults: [Reason]?
    package var generation: Int

    package init(faults: [Reason]? = nil, generation: Int) {
      self.faults = faults
      self.generation = generation
    }
  }

  /// Asks the printer how it is (used while a fault is held, and now and then when idle).
  /// A change of media or labels left is reported to `sink` (none before the printer has
  /// a queue: its first poll).
  package func poll(reportingTo sink: (any PrinterStatusSink)? = nil) async -> Poll {
    let generation = self.generation
    guard isAttached else { return Poll(faults: nil, generation: generation) }
    let (cancel, driver) = (CancelFlag(), self.driver)
    do {
      switch model.capabilities.confirmation {
      case .perPage:
        let needs = state.withLock { $0.needs }
        let read = try await withLink(cancel: cancel, job: nil) { link in
          try link.requestStatus(driver)
        }
        guard case .status(let status) = read else {
          return Poll(faults: [.offline], generation: generation)
        }
        await noteMedia(status.media, reportingTo: sink)
        var faults = status.faults
        if faults.isEmpty, let needs, needs.mismatch(loaded: status.media) != nil {
          faults = [.mediaMismatch]
        }
        return Poll(faults: faults, generation: generation)
      case .statusAfterSend, .none:
        guard model.capabilities.confirmation != .none, shouldAskStatus() else {
          return Poll(faults: nil, generation: generation)
        }
        let reply = try await withLink(cancel: cancel, job: nil) { link in
          try link.requestStatus(driver)
        }
        switch reply {
        case .status(let status):
          heard()
          await noteRemaining(status.labelsRemaining, reportingTo: sink)
          // A LabelManager that names its tape (`ESC A` byte 1): labels are drawn for it.
          await noteMedia(status.media, reportingTo: sink)
          return Poll(faults: status.faults, generation: generation)
        case .unreadable:
          heard()
          return Poll(faults: [.communication], generation: generation)
        case .silent:
          quiet(name: name)
          return Poll(faults: nil, generation: generation)
        }
      }
    } catch let error as TransportError {
      return Poll(faults: [error.reason], generation: generation)
    } catch {
      return Poll(faults: nil, generation: generation)
    }
  }

  /// Nothing waits for a roll any more (the job was cancelled).
  package func forgetNeeds() { state.withLock { $0.needs = nil } }

  /// A new count of labels left shows on the printer (listeners hear of it as of media).
  private func noteRemaining(_ count: Int?, reportingTo sink: (any PrinterStatusSink)?) async {
    let changed = state.withLock { s in
      defer { s.labelsRemaining = count }
      return s.labelsRemaining != count
    }
    if changed { await sink?.update(faults: nil) }
  }

  /// Keeps the media a status reports. A status that names none (no roll or tape in, or a
  /// P-touch whose open cover hides its cassette) leaves the last one known, as the
  /// network printer does: a label submitted meanwhile is drawn for it, the media most
  /// likely to come back, not for a driver's assumption it would then wait for forever.
  private func noteMedia(_ reported: Media?, reportingTo sink: (any PrinterStatusSink)?) async {
    guard var media = reported else { return }
    // A red/black roll reports as the black 62 mm one: configuration says which it is.
    if settings.redBlackRolls.contains(id), media.widthMM == 62, media.lengthMM == 0 {
      media.redBlack = true
    }
    let changed = state.withLock { s in
      defer { s.media = media }
      return s.media != media
    }
    if changed { await sink?.update(faults: nil) }
  }

  // MARK: back-off (printers that answer only when asked)

  private func shouldAskStatus() -> Bool {
    state.withLock { s in s.quietUntil.map { ContinuousClock.now >= $0 } ?? true }
  }

  /// The printer did not answer: no status requests for a while, twice as long each time.
  private func quiet(name: String) {
    let backoff = state.withLock { s in
      s.quietUntil = .now + s.quietBackoff
      // At most 5 s between asks: a silent printer holds its jobs (communication), so it
      // is asked about as often as any faulted printer, and found again soon when it wakes.
      defer { s.quietBackoff = min(s.quietBackoff * 2, .seconds(5)) }
      return s.quietBackoff
    }
    log.warning(
      "\(name) (\(id)): no answer to \(driver.statusRequestName); its jobs wait (communication), "
        + "next ask in \(backoff)")
  }

  private func heard() {
    state.withLock { s in
      s.quietUntil = nil
      s.quietBackoff = .seconds(2)
    }
  }
}
