import Dispatch
import LabelCore
import LabelDaemon
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// A client that disconnects mid-write must not kill the daemon.
signal(SIGPIPE, SIG_IGN)

let options: Options
do {
  options = try Options.parse(
    Array(CommandLine.arguments.dropFirst()), environment: SocketPath.processEnvironment)
} catch {
  fputs("labeld: \(error)\nTry 'labeld --help'.\n", stderr)
  exit(64)
}
if options.showHelp {
  print(Options.usage)
  exit(0)
}
if options.showVersion {
  print("labeld \(LabelVersion.version) (protocol \(LabelVersion.protocolVersion))")
  exit(0)
}

// Hundreds of clients need more descriptors than the usual soft limit of 1024.
var limit = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < limit.rlim_max {
  limit.rlim_cur = limit.rlim_max
  _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

let log = Logger(level: options.config.logLevel)
let daemon: Daemon
do {
  daemon = try Daemon(config: options.config, log: log)
} catch {
  log.error("cannot start: \(error)")
  exit(71)
}

var signalSources: [any DispatchSourceSignal] = []
for sig in [SIGTERM, SIGINT] {
  signal(sig, SIG_IGN)
  let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
  source.setEventHandler {
    log.notice("received signal \(sig), stopping")
    Task {
      await daemon.stop()
      exit(0)
    }
  }
  source.resume()
  signalSources.append(source)
}

Task {
  do {
    try await daemon.start()
  } catch {
    log.error("cannot start: \(error)")
    exit(71)
  }
}
dispatchMain()
