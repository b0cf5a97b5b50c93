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
  public var seedDirectory: String?
  public var logLevel: LogLevel = .info

  public init(socketPath: String, stateDirectory: String) {
    self.socketPath = socketPath
    self.stateDirectory = stateDirectory
  }
}

/// The composition root: builds the stores, channel, printers and server, and runs them.
public final class Daemon: Sendable {
  public let config: DaemonConfig
  let services: Services
  private let server: Server
  private let log: Logger

  public init(config: DaemonConfig, log: Logger) throws {
    self.config = config
    self.log = log
    let state = URL(fileURLWithPath: config.stateDirectory, isDirectory: true)
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)

    let channel = EventChannel(
      journal: AlertJournal(
        maxCount: config.alertRetentionCount, maxAge: config.alertRetentionAge),
      log: log)
    let registry = PrinterRegistry()
    let jobStore = JobStore()
    let saveErrors = SaveErrors(channel: channel)
    for spec in config.simulated {
      if registry.queue("sim:\(spec.name)") != nil {
        throw SpecError("--simulate \(spec.name) is given twice")
      }
      let printer = try SimulatedPrinter(spec: spec, stateDirectory: state)
      registry.add(PrinterQueue(transport: printer, jobs: jobStore, channel: channel, log: log))
    }
    services = Services(
      channel: channel, printers: registry, products: ProductStore(), templates: TemplateStore(),
      jobs: JobService(
        jobs: jobStore, printers: registry, channel: channel, saveErrors: saveErrors),
      renderer: LabelRenderer(), saveErrors: saveErrors, log: log)

    let (fd, owned) = try Self.listeningSocket(config.socketPath, log: log)
    var limits = ConnectionLimits()
    limits.maxMessageBytes = config.maxMessageBytes
    limits.maxQueuedMessages = config.maxQueuedMessages
    server = Server(
      listenFD: fd, ownedPath: owned, dispatcher: Dispatcher(services: services),
      channel: channel, limits: limits, log: log)
  }

  /// Loads demo data, starts the printers and begins serving.
  public func start() async throws {
    if let seeds = config.seedDirectory {
      try await Seeds(directory: seeds, log: log).load(into: services)
    }
    for queue in services.printers.all { await queue.start() }
    server.start()
    log.notice(
      "labeld \(LabelVersion.version) listening on \(config.socketPath); "
        + "\(services.printers.all.count) printer(s); state in \(config.stateDirectory)")
  }

  public func stop() async {
    server.stop()
    for queue in services.printers.all { await queue.stop() }
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
