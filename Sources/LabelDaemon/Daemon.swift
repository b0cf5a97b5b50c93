import FoundationEssentials
import LabelConcurrency
import LabelCore
import LabelEvents
import LabelHTTP
import LabelIPP
import LabelInterfaces
import LabelLog
import LabelPOSIX
import LabelPrint
import LabelScheduler
import LabelServer
import LabelStore
import LabelTransportCUPS
import LabelTransportNet
import LabelTransportSim
import LabelTransportUSB
import LabelWeb
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// How the daemon is set up: labeld.conf, then the command line.
public struct DaemonConfig: Sendable, Equatable {
  public var socketPath: String
  public var stateDirectory: String
  public var simulated: [SimulatedPrinterSpec] = []
  /// Add the CUPS server's queues as `cups:QUEUE` printers (when a server answers).
  public var cups = true
  /// Languages of CUPS queues that cannot be inferred from their make and model.
  public var cupsLanguages: [String: PrinterLanguage] = [:]
  public var maxMessageBytes = 1 << 20
  public var maxQueuedMessages = 1024
  /// Seconds a request line past 64 KiB has to end (`ConnectionLimits.longLineSeconds`).
  public var longLineSeconds = 30
  public var alertRetentionCount = 10_000
  public var alertRetentionAge: TimeInterval = 7 * 86_400
  public var jobHistoryCount = 10_000
  public var jobHistoryAge: TimeInterval = 30 * 86_400
  public var interruptedJobs = InterruptedJobPolicy.resend
  public var busyTimeoutMS: Int32 = 5000
  public var seedDirectory: String?
  public var logLevel: LogLevel = .info
  /// Members of this group (besides root and labeld's own user) may use admin methods
  /// (`printers.simulate`) and cancel anyone's jobs.
  public var adminGroup: String? = "labeld-admin"
  /// The group that owns a socket labeld creates itself (mode 0660); nil: the process's.
  public var socketGroup: String? = "labeld"
  /// Permissions of a socket labeld creates itself.
  public var socketMode: mode_t = 0o660
  /// USB printers: on by default, quietly off where there is no USB bus.
  public var usb = USBSettings()
  /// Network printers: only those configured (`--printer`, `printer =`).
  public var network = NetworkSettings()
  /// How long labeld must be at rest before it hands back memory it is not using
  /// (`RestingMemory`); zero: never.
  public var restAfter: Duration = .seconds(10)
  /// The HTTP endpoint (`--listen-http`, `http =`): off while it has no address.
  package var web = WebSettings()
  /// The IPP front (`--listen-ipp`, `ipp-print`): off while it has no address.
  package var ipp = IPPSettings()
  /// How long a PDF may take to draw (`--document-timeout`), in its own process.
  public var documentSeconds = 60
  /// The waiting queue's bounds (`--max-jobs`, `--max-jobs-per-printer`,
  /// `--max-queued-bytes`): past them a submit is refused with 1008.
  package var queueLimits = QueueLimits.standard

  public init(socketPath: String, stateDirectory: String) {
    self.socketPath = socketPath
    self.stateDirectory = stateDirectory
  }
}

/// The composition root: opens the store, restores state, builds the channel, printers
/// and server, and runs them.
public final class Daemon: Sendable {
  /// The configuration started with; `current` has the reloadable parts as now in force.
  public let config: DaemonConfig
  private let current: Mutex<DaemonConfig>
  let services: ServerContext
  private let store: StateStore
  private let jobStore: JobStore
  private let server: Server
  /// The HTTP endpoint (nothing opened unless configured) and the tokens it signs in by.
  private let web: WebEndpoint
  /// labeld's printers as IPP Everywhere printers (nothing opened unless configured).
  private let ipp: IPPEndpoint
  private let tokens: WebTokens
  private let log: Logger
  /// The configured simulated printers, adopted at start.
  private let simulated: [SimulatedPrinter]
  /// Every part of the running daemon, in the order it opened: the state and the socket,
  /// the printer sources, the printers, the server, then the long-running loops (discovery,
  /// history pruning, memory at rest). Shutdown closes them in the reverse order, each
  /// after the ones opened after it have closed.
  private let parts = ServiceGroup()
  /// How long the printers' labels in progress may take to finish on shutdown.
  private let drainDeadline = Mutex<Duration>(.zero)

  public init(config: DaemonConfig, log: Logger) throws {
    self.config = config
    self.current = Mutex(config)
    self.log = log
    let state = config.stateDirectory
    // Before anything opens: a web endpoint that cannot be served stops start-up.
    if let problem = config.webProblem { throw SpecError(problem) }
    try Directory.create(state)

    store = StateStore(
      directory: config.stateDirectory, busyTimeoutMS: config.busyTimeoutMS, log: log)
    jobStore = JobStore(store: store)
    var storeOpened = true
    do {
      try store.open()
      try jobStore.load()
    } catch {
      // labeld still starts: it serves printers and reads, and every save answers (and
      // raises) `unavailable` until the store can be opened.
      log.error("store: \(error.message); saves will fail until it can be opened")
      storeOpened = false
    }
    let channel = AlertChannelSetup.make(
      store: store, storeOpened: storeOpened, config: config,
      runtimeDirectory: Self.runtimeDirectory(socketPath: config.socketPath), log: log)
    let registry = PrinterRegistry(jobs: jobStore, channel: channel, log: log)
    let saveErrors = SaveErrors(channel: channel)
    var simulated: [SimulatedPrinter] = []
    for spec in config.simulated {
      if simulated.contains(where: { $0.spec.name == spec.name }) {
        throw SpecError("--simulate \(spec.name) is given twice")
      }
      simulated.append(try SimulatedPrinter(spec: spec, stateDirectory: state))
    }
    self.simulated = simulated
    var sources: [any PrinterSource] = []
    if config.cups {
      sources.append(
        CUPSDiscovery(pins: config.cupsLanguages, stateDirectory: state, log: log))
    }
    sources.append(USBMonitor(settings: config.usb, log: log))
    // Also with no printer configured: `devices.list` shows what DNS-SD finds.
    sources.append(try NetworkSource(settings: config.network, log: log))
    var context = ServerContext(
      channel: channel, printers: registry, products: ProductStore(store: store),
      templates: TemplateStore(store: store), jobStore: jobStore,
      jobs: JobManager(
        jobs: jobStore, printers: registry, channel: channel, saveErrors: saveErrors,
        limits: config.queueLimits),
      renderer: LabelRenderer(), saveErrors: saveErrors,
      access: AccessPolicy(adminGroup: config.adminGroup), log: log, sources: sources,
      documents: DocumentConverter(
        pdfWorker: Self.documentWorkerExecutable, limits: Self.documentLimits(config)))
    let tokens = WebTokens(store: TokenStore(store: store))
    context.tokens = tokens
    services = context
    self.tokens = tokens

    let (fd, owned) = try Self.listeningSocket(
      config.socketPath, mode: config.socketMode, group: config.socketGroup, log: log)
    var limits = ConnectionLimits()
    limits.maxMessageBytes = config.maxMessageBytes
    limits.maxQueuedMessages = config.maxQueuedMessages
    limits.longLineSeconds = Double(config.longLineSeconds)
    let dispatcher = Dispatcher(services: services)
    server = try Server(
      listenFD: fd, ownedPath: owned, dispatcher: dispatcher,
      channel: channel, limits: limits, log: log)
    var webSettings = config.web
    webSettings.stateDirectory = config.stateDirectory
    webSettings.maxMessageBytes = config.maxMessageBytes
    web = WebEndpoint(
      settings: webSettings, server: server, tokens: tokens,
      metrics: { [services, server, jobStore, state, dispatcher] in
        var m = MetricsSnapshot()
        let counted = jobStore.counted
        m.copiesPrinted = counted.copiesPrinted
        m.jobsEnded = counted.ended
        m.latency = dispatcher.latency.snapshot
        m.printers = services.printers.printers
        m.alerts = services.channel.active
        let now = Date()
        for job in jobStore.unfinished() {
          m.unfinishedJobs[job.state, default: 0] += 1
          let waited = max(0, Int(now.timeIntervalSince(job.createdAt)))
          m.oldestJobSeconds[job.printer] = max(m.oldestJobSeconds[job.printer] ?? 0, waited)
        }
        m.refusedJobs = services.jobs.refused
        m.clients = server.connectionCount
        m.clientsOverflowed = server.overflowCount
        m.storeBytes = Self.fileSize(state + "/labeld.db")
        return m.text()
      }, log: log)
    tokens.setConnectionCloser { [web] name in web.closeConnections(signedInWith: name) }
    var ippSettings = config.ippSettings
    if let page = config.web.listen.first {
      ippSettings.statusPage = Self.statusPage(page, tls: config.web.usesTLS)
    }
    ipp = IPPEndpoint(
      settings: ippSettings, print: services.print, jobStore: jobStore,
      uuidSeed: Self.instanceSeed(state, log: log),
      signIn: { [tokens] secret in
        switch tokens.authenticate(secret)?.role {
        case .admin: .admin
        case .operator: .operator
        case .viewer: .viewer
        case nil: .unknown
        }
      }, log: log)
    // Closed last: the listening socket goes (if the server never started), the store is
    // flushed, the journal written and sealed, the store closed.
    parts.start(
      HeldPart("state and socket") { [server, store, channel] in
        server.stop()
        store.drain()
        channel.stopJournal(timeout: .seconds(5))
        store.close()
      })
  }

  /// The status page's address, for IPP's printer-more-info (a TCP listener's; a Unix
  /// socket's page is not one a client can open).
  static func statusPage(_ address: HTTPAddress, tls: Bool) -> String? {
    guard case .tcp(let host, let port) = address else { return nil }
    let shown = host == "0.0.0.0" || host == "::" ? "localhost" : host
    return "\(tls ? "https" : "http")://\(shown.contains(":") ? "[\(shown)]" : shown):\(port)/"
  }

  /// 16 random bytes kept in STATE_DIR/ipp-instance: the seed of the printers' IPP UUIDs,
  /// the same across restarts. Without a file that can be kept, UUIDs hold for this run.
  static func instanceSeed(_ state: String, log: Logger) -> [UInt8] {
    let path = state + "/ipp-instance"
    if let kept = try? PlainFile.read(path, limit: 64), kept.count == 16 { return kept }
    var generator = SystemRandomNumberGenerator()
    let seed = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    do {
      try PlainFile.replace(path, with: seed)
    } catch {
      log.warning("cannot keep \(path): \(error); IPP printer UUIDs hold until labeld restarts")
    }
    return seed
  }

  /// The first argument that makes labeld the process drawing a PDF's pages for a daemon.
  public static let documentWorkerFlag = DocumentWorker.flag

  /// Runs as that process; returns its exit status.
  public static func documentWorker(_ arguments: [String]) -> Int32 {
    DocumentWorker.main(arguments)
  }

  static func documentLimits(_ config: DaemonConfig) -> DocumentLimits {
    var limits = DocumentLimits()
    limits.pdfSeconds = Double(config.documentSeconds)
    limits.pdfCPUSeconds = config.documentSeconds
    return limits
  }

  /// This very executable (even if replaced on disk since it started).
  static let documentWorkerExecutable = "/proc/self/exe"

  /// Loads demo data, resumes unfinished jobs, starts the printers and begins serving.
  public func start() async throws {
    if let seeds = config.seedDirectory {
      try await Seeds(directory: seeds, log: log).load(into: services)
    }
    for printer in simulated { await services.printers.adopt(printer) }
    // CUPS queues and USB printers there now are known before unfinished jobs are handed
    // out; printers found later take back their own when they are adopted.
    for source in services.sources { await source.start(into: services.printers) }
    parts.start(
      HeldPart("printer sources") { [sources = services.sources] in
        for source in sources.reversed() { await source.stop() }
      })
    let unfinished = jobStore.unfinished()
    await services.printers.open(policy: config.interruptedJobs)
    parts.start(HeldPart("printers") { [weak self] in await self?.drainPrinters() })
    await settleOrphans(unfinished)
    await abortIncoming()
    clearStalePrinterAlerts()
    do {
      try await tokens.load()
    } catch {
      log.error("store: cannot read the web tokens: \(error.message); none can sign in")
    }
    // Stopped after the server, whose connections its WebSockets are.
    parts.start(HeldPart("web endpoint") { [web] in web.stop() })
    try server.start()
    parts.start(HeldPart("server") { [server] in server.stop() })
    do {
      try web.start()
    } catch {
      throw WebStartError(description: "web endpoint: \(error)")
    }
    // Stopped first: no new IPP job once labeld is going.
    parts.start(HeldPart("IPP endpoint") { [ipp] in ipp.stop() })
    do {
      try ipp.start()
    } catch {
      throw WebStartError(description: "IPP endpoint: \(error)")
    }
    log.notice(
      "labeld \(LabelVersion.version) listening on \(config.socketPath); "
        + "\(services.printers.all.count) printer(s); \(unfinished.count) unfinished job(s) resumed; "
        + "state in \(config.stateDirectory)")
    for source in services.sources { if let loop = source.service { parts.start(loop) } }
    // History beyond --job-history goes now (in the background: start-up does not wait
    // for it), then every 10 minutes (--job-history-days), and sooner whenever a tenth of
    // the kept count (at least 1,000) new jobs came in: however fast jobs arrive, the
    // table stays near its configured size and no write pays for a history ten minutes
    // of a busy day piled up (measured in docs/benchmarks.md, Soak).
    parts.start(
      LoopService("history pruning") { [jobStore, weak self] in
        while let now = self?.current.withLock({ $0 }) {
          await jobStore.prune(keep: now.jobHistoryCount, maxAge: now.jobHistoryAge)
          let due = ContinuousClock.now.advanced(by: .seconds(600))
          while ContinuousClock.now < due {
            do { try await Task.sleep(for: .seconds(5)) } catch { return }
            guard let keep = self?.current.withLock({ $0.jobHistoryCount }) else { return }
            if jobStore.createdSincePrune >= max(1000, keep / 10) { break }
          }
        }
      })
    if config.restAfter > .zero {
      // Kept while working, handed back at rest: only with the hand-back running.
      RestingMemory.keepWhileWorking()
      parts.start(
        LoopService("memory at rest") { [config, log] in
          await Self.handBackAtRest(after: config.restAfter, log: log)
        })
    }
  }

  /// Hands back what an idle labeld does not use (`RestingMemory`: code and read-only data
  /// it ran last, free heap pages) once it has used under 2% of a core for `period`: after
  /// start-up, then again after work (50 ms of CPU since the last time: a few hundred
  /// jobs, thousands of listings, or long idle polling), so a labeld left alone for months
  /// is as small as one that has just started. What a release costs, and what the first
  /// request after it pays, is measured in docs/benchmarks.md ("Idle memory").
  private static func handBackAtRest(after period: Duration, log: Logger) async {
    var last = RestingMemory.processCPUTime()
    var atRelease: Duration?
    while true {
      do { try await Task.sleep(for: period) } catch { return }
      let now = RestingMemory.processCPUTime()
      let used = now - last
      last = now
      let worked = atRelease.map { now - $0 >= .milliseconds(50) } ?? true
      guard used < period / 50, worked else { continue }
      let released = RestingMemory.release()
      last = RestingMemory.processCPUTime()
      atRelease = last
      log.debug(
        "at rest: unmapped \(released.residentKB) KB of code and read-only data "
          + "(\(released.mappings) mappings) and trimmed the heap in \(last - now) of CPU")
    }
  }

  /// Jobs whose printer is not here at start-up. Those of a printer that may still come
  /// (a USB printer not plugged in, a CUPS queue) wait for it, with an active printerError
  /// naming the job they wait in (`AbsentPrinters`); they can be listed and cancelled.
  /// Those of a printer no longer configured (a simulated one dropped from the command
  /// line, a transport switched off) end now, with a reason.
  /// Jobs a previous run stored without their document (an IPP client's Create-Job whose
  /// Send-Document never came before labeld stopped) end as aborted: the client's
  /// connection, and the document it was sending, are gone (RFC 8011 §4.2.4: a job whose
  /// document does not arrive is aborted).
  private func abortIncoming() async {
    for job in jobStore.incoming() {
      let error = JobError(
        reason: .jobAborted,
        message: "job \(job.id) was waiting for its document when labeld stopped; it never came")
      if await services.jobs.endIncoming(job.id, .aborted, error: error) != nil {
        log.warning("job \(job.id) aborted: its document never came before labeld stopped")
      }
    }
  }

  private func settleOrphans(_ unfinished: [Job]) async {
    var absent: [String: Absence] = [:]
    for job in unfinished where services.printers.queue(job.printer) == nil {
      if let absence = services.sources.lazy.compactMap({ $0.absence(of: job.printer) }).first {
        if absent[job.printer] == nil {
          log.notice("job \(job.id) waits for \(job.printer) (\(absence.reason.rawValue))")
        }
        absent[job.printer] = absence
        continue
      }
      let message = "printer \(job.printer) is no longer configured"
      if let (updated, write) = await jobStore.update(
        job.id,
        {
          $0.state = .aborted
          $0.error = JobError(reason: .notFound, message: message)
        })
      {
        services.saveErrors.jobWrite(write, job: job.id)
        services.channel.publish(job: updated)
      }
      log.warning("job \(job.id) aborted: \(message)")
    }
    for (printer, absence) in absent { services.jobs.absent.hold(printer, absence) }
  }

  /// A printerError alert from the previous run whose printer is fine now is cleared: the
  /// active set says what is wrong now, not what was. An absent printer's alert stays.
  private func clearStalePrinterAlerts() {
    PrinterAlerts(channel: services.channel).clearResolved { printer in
      services.jobs.absent.contains(printer)
        || !(services.printers.queue(printer)?.snapshot.reasons ?? []).isEmpty
    }
  }

  public func stop() async {
    await shutdown(deadline: .zero)
  }

  /// Stops gracefully: no new connections or requests, each printer finishes the label it
  /// is printing (jobs part-way go back to pending), then the store is flushed and closed
  /// (the parts close in the reverse order they opened). After `deadline` labels still
  /// printing are cut off; their jobs stay `processing` and the next start's
  /// `--interrupted-jobs` policy applies. Accepted jobs are already durable, so none is
  /// lost either way.
  public func shutdown(deadline: Duration) async {
    drainDeadline.withLock { $0 = deadline }
    await parts.shutdown()
  }

  /// Lets each printer finish the label in progress, within the shutdown's deadline.
  private func drainPrinters() async {
    let queues = services.printers.all
    let deadline = drainDeadline.withLock { $0 }
    await withTaskGroup(of: Void.self) { group in
      // The cut-off: once the deadline has passed, the labels still printing are stopped.
      group.addTask {
        try? await Task.sleep(for: deadline)
        guard !Task.isCancelled else { return }
        for queue in queues { await queue.stop() }
      }
      await withTaskGroup(of: Void.self) { drains in
        for queue in queues { drains.addTask { await queue.drain() } }
      }
      group.cancelAll()
    }
  }

  /// Applies a re-read configuration (SIGHUP). Log level, alert retention, job history,
  /// the admin group and the queue's bounds change at once; anything else is logged as waiting for a restart.
  public func reload(_ new: DaemonConfig) {
    let old = current.withLock { $0 }
    var changed: [String] = []
    var restart: [String] = []
    func note<T: Equatable>(_ name: String, _ path: KeyPath<DaemonConfig, T>, live: Bool) {
      guard old[keyPath: path] != new[keyPath: path] else { return }
      if live { changed.append(name) } else { restart.append(name) }
    }
    note("log-level", \.logLevel, live: true)
    note("alert-retention", \.alertRetentionCount, live: true)
    note("alert-retention-days", \.alertRetentionAge, live: true)
    note("job-history", \.jobHistoryCount, live: true)
    note("job-history-days", \.jobHistoryAge, live: true)
    note("admin-group", \.adminGroup, live: true)
    note("max-jobs, max-jobs-per-printer, max-queued-bytes", \.queueLimits, live: true)
    note("socket", \.socketPath, live: false)
    note("state-dir", \.stateDirectory, live: false)
    note("simulate", \.simulated, live: false)
    note("seed", \.seedDirectory, live: false)
    note("max-message-bytes", \.maxMessageBytes, live: false)
    note("max-queued-messages", \.maxQueuedMessages, live: false)
    note("interrupted-jobs", \.interruptedJobs, live: false)
    note("busy-timeout-ms", \.busyTimeoutMS, live: false)
    note("socket-group", \.socketGroup, live: false)
    note("cups", \.cups, live: false)
    note("usb", \.usb, live: false)
    note("printer", \.network, live: false)
    note("cups-language", \.cupsLanguages, live: false)
    note("http, tls-*, web-origin", \.web, live: false)
    note("listen-ipp, ipp-print", \.ipp, live: false)
    note("document-timeout", \.documentSeconds, live: false)
    // The certificate and key are read again whatever changed: a renewed certificate
    // replaces the old one in its files.
    web.reloadCredentials()
    log.level = new.logLevel
    services.channel.setRetention(count: new.alertRetentionCount, age: new.alertRetentionAge)
    services.access.setAdminGroup(new.adminGroup)
    services.jobs.queueLimits = new.queueLimits
    current.withLock {
      $0.logLevel = new.logLevel
      $0.alertRetentionCount = new.alertRetentionCount
      $0.alertRetentionAge = new.alertRetentionAge
      $0.jobHistoryCount = new.jobHistoryCount
      $0.jobHistoryAge = new.jobHistoryAge
      $0.adminGroup = new.adminGroup
      $0.queueLimits = new.queueLimits
    }
    log.notice(
      "configuration reloaded: "
        + (changed.isEmpty
          ? "nothing changed that applies now" : "applied \(changed.joined(separator: ", "))")
        + (restart.isEmpty
          ? "" : "; \(restart.joined(separator: ", ")) changed and take effect after a restart"))
  }

  /// One line for `systemctl status`: where it listens and what it serves.
  public var statusLine: String {
    "serving \(services.printers.all.count) printer(s) on \(config.socketPath)"
  }

  /// A round trip through the parts that must be alive to serve: the alert channel's
  /// lock and the store's queue. The watchdog pings systemd only after this returns.
  public func healthCheck() async {
    _ = services.channel.latestSeq
    await store.ping()
  }

  /// Where the alert sequence's mirror goes: systemd's `$RUNTIME_DIRECTORY` (the first
  /// one), else the socket's directory.
  static func runtimeDirectory(socketPath: String) -> String? {
    if let dirs = ProcessEnvironment.variables["RUNTIME_DIRECTORY"], !dirs.isEmpty {
      return dirs.split(separator: ":").first.map(String.init)
    }
    return Directory.parent(of: socketPath)
  }

  /// A socket passed by systemd (LISTEN_FDS) as it is, else a fresh one at `path`.
  private static func listeningSocket(
    _ path: String, mode: mode_t, group: String?, log: Logger
  ) throws -> (Int32, String?) {
    let env = ProcessEnvironment.variables
    if let fds = env["LISTEN_FDS"], Int(fds) ?? 0 >= 1,
      let pid = env["LISTEN_PID"], Int32(pid) == getpid()
    {
      let fd: Int32 = 3  // SD_LISTEN_FDS_START
      try UnixSocket.setNonBlocking(fd)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      unsetenv("LISTEN_FDS")
      unsetenv("LISTEN_PID")
      unsetenv("LISTEN_FDNAMES")
      log.info("using the socket passed by the service manager (fd 3)")
      return (fd, nil)
    }
    try UnixSocket.makeParentDirectory(of: path)
    let gid = group.flatMap { UnixSocket.groupID(named: $0) }
    let fd = try UnixSocket.listen(path: path, mode: mode, group: gid) { error in
      log.warning(
        "cannot give \(path) to group \(group ?? ""): \(String(cString: strerror(error)))")
    }
    return (fd, path)
  }
}

/// The web endpoint could not start (its message says why); labeld does not run without it
/// once it is configured.
struct WebStartError: Error, CustomStringConvertible {
  var description: String
}

extension Daemon {
  /// The size of the file at `path`, or nil.
  static func fileSize(_ path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
  }
}
