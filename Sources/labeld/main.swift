import LabelCore
import LabelDaemon
import LabelLog
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// The process that draws a PDF's pages for the daemon, with limits of its own
// (`DocumentWorker`): labeld runs itself so, never a user.
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == Daemon.documentWorkerFlag {
  exit(Daemon.documentWorker(Array(CommandLine.arguments.dropFirst(2))))
}

// A client that disconnects mid-write must not kill the daemon.
signal(SIGPIPE, SIG_IGN)
// SIGTERM, SIGINT and SIGHUP are caught from the first line on and written to a pipe
// (`SignalPipe`), read below once the daemon is built: one that arrives early (a client
// may already connect once the socket is bound) waits in the pipe instead of killing
// labeld or being lost. Every signal is unblocked, whatever mask the parent left us.
let signalPipe: Int32
do {
  signalPipe = try SignalPipe.install([SIGTERM, SIGINT, SIGHUP])
} catch {
  fputs("labeld: cannot set up signal handling: \(error)\n", stderr)
  exit(71)
}

let environment = ProcessEnvironment.variables
let arguments = Array(CommandLine.arguments.dropFirst())
let options: Options
do {
  options = try Options.parse(arguments, environment: environment)
} catch {
  switch error {
  case .usage: fputs("labeld: \(error)\nTry 'labeld --help'.\n", stderr)
  case .config: fputs("labeld: \(error)\n", stderr)
  }
  exit(error.exitStatus)
}
if options.showHelp {
  print(Options.usage)
  exit(0)
}
if options.showVersion {
  print("labeld \(LabelVersion.version) (protocol \(LabelVersion.protocolVersion))")
  exit(0)
}

if options.checkConfig {
  do {
    try options.check()
  } catch {
    fputs("labeld: \(error)\n", stderr)
    exit(78)
  }
  print(options.summary)
  exit(0)
}

// Hundreds of clients need more descriptors than the usual soft limit of 1024.
var limit = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < limit.rlim_max {
  limit.rlim_cur = limit.rlim_max
  _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

let log = Logger(level: options.config.logLevel)
let manager = SystemdNotifier(environment: environment)
let daemon: Daemon
do {
  daemon = try Daemon(config: options.config, log: log)
} catch {
  log.error("cannot start: \(error)")
  manager.send("STATUS=cannot start: \(error)\nERRNO=71")
  exit(71)
}

/// How long a graceful stop may take before labels still printing are cut off; systemd's
/// TimeoutStopSec (10 s in the unit) leaves time to flush and exit after it.
let stopDeadline: Duration = .seconds(8)
let stopping = Atomic<Bool>(false)

/// SIGTERM/SIGINT: stop gracefully; a second one: exit now.
func stop(_ sig: Int32) {
  guard !stopping.exchange(true, ordering: .relaxed) else {
    // Second signal: go now. Every accepted job is already durable; a label cut off
    // mid-print is handled by the next start's --interrupted-jobs policy.
    log.notice("received signal \(sig) again, exiting now")
    exit(0)
  }
  log.notice("received signal \(sig), stopping (finishing labels in progress)")
  manager.stopping(status: "stopping: finishing labels in progress")
  Task.detached {
    await daemon.shutdown(deadline: stopDeadline)
    log.notice("stopped")
    exit(0)
  }
}

/// SIGHUP: read the configuration again; a file that does not parse changes nothing.
func reload() {
  manager.reloading()
  do {
    let reloaded = try Options.parse(arguments, environment: environment)
    try reloaded.check()
    daemon.reload(reloaded.config)
  } catch {
    log.error("reload failed, keeping the running configuration: \(error)")
  }
  manager.ready(status: daemon.statusLine)
}

// The daemon runs on its own threads and Swift's global executor; the main thread is left
// to act on signals, in the order they came, as they arrive on the pipe. (Not
// `dispatchMain()`: it parks the main thread by `pthread_exit`, whose unwinding maps
// unwind tables and libgcc's unwinder into every idle labeld, and nothing of
// labeld's runs on the main queue.)
Task.detached {
  do {
    try await daemon.start()
  } catch {
    log.error("cannot start: \(error)")
    manager.send("STATUS=cannot start: \(error)\nERRNO=71")
    exit(71)
  }
  manager.ready(status: daemon.statusLine)
  // The watchdog is fed only after a round trip through the daemon's own queues, so a
  // wedged daemon stops feeding it and systemd restarts it.
  if let interval = manager.watchdogInterval {
    while true {
      await daemon.healthCheck()
      manager.watchdog()
      try? await Task.sleep(for: interval / 2)
    }
  }
}
while true {
  for sig in SignalPipe.wait(signalPipe) {
    if sig == SIGHUP { reload() } else { stop(sig) }
  }
}
