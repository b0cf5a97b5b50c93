import Foundation
import LabelCore
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// How the daemon is set up: from the command line now, from labeld.conf later.
public struct DaemonConfig: Sendable {
  public var socketPath: String
  public var stateDirectory: String
  public var simulated: [SimulatedPrinterSpec] = []
  public var maxMessageBytes = 1 << 20
  public var maxQueuedMessages = 1024
  public var alertRetentionCount = 10_000
  public var alertRetentionAge: TimeInterval = 7 * 86_400
  public var jobHistoryCount = 10_000
  public var jobHistoryAge: TimeInterval = 30 * 86_400
  public var interruptedJobs = InterruptedJobPolicy.resend
  public var busyTimeoutMS: Int32 = 5000
  public var seedDirectory: String?
  public var logLevel: LogLevel = .info
  /// USB printers: on by default, quietly off where there is no USB bus.
  public var usb = USBSettings()

  public init(socketPath: String, stateDirectory: String) {
    self.socketPath = socketPath
    self.stateDirectory = stateDirectory
  }
}

/// The composition root: opens the store, restores state, builds the channel, printers
/// and server, and runs them.
public final class Daemon: Sendable {
  public let config: DaemonConfig
  let services: Services
  private let store: StateStore
  private let jobStore: JobStore
  private let server: Server
  private let log: Logger

  public init(config: DaemonConfig, log: Logger) throws {
    self.config = config
    self.log = log
    let state = URL(fileURLWithPath: config.stateDirectory, isDirectory: true)
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)

    store = StateStore(
      directory: config.stateDirectory, busyTimeoutMS: config.busyTimeoutMS, log: log)
    let alertStore = AlertStore(store: store)
    var journal = AlertJournal(
      maxCount: config.alertRetentionCount, maxAge: config.alertRetentionAge)
    jobStore = JobStore(store: store)
    do {
      try store.open()
      journal = try alertStore.load(
        maxCount: config.alertRetentionCount, maxAge: config.alertRetentionAge)
      try jobStore.load()
    } catch {
      // labeld still starts: it serves printers and reads, and every save answers (and
      // raises) `unavailable` until the store can be opened.
      log.error("store: \(error.message); saves will fail until it can be opened")
    }
    let channel = EventChannel(journal: journal, persistence: alertStore, log: log)
    let registry = PrinterRegistry()
    let saveErrors = SaveErrors(channel: channel)
    for spec in config.simulated {
      if registry.queue("sim:\(spec.name)") != nil {
        throw SpecError("--simulate \(spec.name) is given twice")
      }
      let printer = try SimulatedPrinter(spec: spec, stateDirectory: state)
      registry.add(PrinterQueue(transport: printer, jobs: jobStore, channel: channel, log: log))
    }
    services = Services(
      channel: channel, printers: registry, products: ProductStore(store: store),
      templates: TemplateStore(store: store),
      jobs: JobService(
        jobs: jobStore, printers: registry, channel: channel, saveErrors: saveErrors),
      renderer: LabelRenderer(), saveErrors: saveErrors, log: log,
      usb: USBMonitor(
        settings: config.usb, registry: registry, jobs: jobStore, channel: channel, log: log))

    let (fd, owned) = try Self.listeningSocket(config.socketPath, log: log)
    var limits = ConnectionLimits()
    limits.maxMessageBytes = config.maxMessageBytes
    limits.maxQueuedMessages = config.maxQueuedMessages
    server = Server(
      listenFD: fd, ownedPath: owned, dispatcher: Dispatcher(services: services),
      channel: channel, limits: limits, log: log)
  }

  /// Loads demo data, resumes unfinished jobs, starts the printers and begins serving.
  public func start() async throws {
    if let seeds = config.seedDirectory {
      try await Seeds(directory: seeds, log: log).load(into: services)
    }
    await jobStore.prune(keep: config.jobHistoryCount, maxAge: config.jobHistoryAge)
    // USB printers plugged in now are known before unfinished jobs are handed out.
    await services.usb?.start()
    let unfinished = jobStore.unfinished
    for queue in services.printers.all {
      await queue.resume(
        unfinished.filter { $0.printer == queue.id }, policy: config.interruptedJobs)
      await queue.start()
    }
    await abortOrphans(unfinished)
    clearStalePrinterAlerts()
    server.start()
    log.notice(
      "labeld \(LabelVersion.version) listening on \(config.socketPath); "
        + "\(services.printers.all.count) printer(s); \(unfinished.count) unfinished job(s) resumed; "
        + "state in \(config.stateDirectory)")
    Task { [jobStore, config] in
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(600))
        await jobStore.prune(keep: config.jobHistoryCount, maxAge: config.jobHistoryAge)
      }
    }
  }

  /// Jobs of printers that are no longer configured end now, with a reason.
  private func abortOrphans(_ unfinished: [Job]) async {
    for job in unfinished where services.printers.queue(job.printer) == nil {
      let message = "printer \(job.printer) is no longer configured"
      if let (updated, _) = await jobStore.update(
        job.id,
        {
          $0.state = .aborted
          $0.error = JobError(reason: .notFound, message: message)
        })
      {
        services.channel.publish(job: updated)
      }
      log.warning("job \(job.id) aborted: \(message)")
    }
  }

  /// A printerError alert from the previous run whose printer is fine now is cleared: the
  /// active set says what is wrong now, not what was.
  private func clearStalePrinterAlerts() {
    for event in services.channel.active {
      switch event.alert {
      case .printerError(let d):
        let faults = services.printers.queue(d.printer)?.snapshot.reasons ?? []
        if faults.isEmpty { services.channel.clear(id: event.id) }
      case .saveError:
        break  // stays until a later save of the same key succeeds
      }
    }
  }

  public func stop() async {
    server.stop()
    for queue in services.printers.all { await queue.stop() }
    await services.usb?.stop()
    store.drain()
    services.channel.sealSequence()
    store.close()
  }

  /// A socket passed by systemd (LISTEN_FDS) as it is, else a fresh one at `path`.
  private static func listeningSocket(_ path: String, log: Logger) throws -> (Int32, String?) {
    let env = SocketPath.processEnvironment
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
    return (try UnixSocket.listen(path: path, mode: 0o666), path)
  }
}
