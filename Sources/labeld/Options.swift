import LabelCore
import LabelDaemon
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// labeld's command line.
struct Options {
  var config: DaemonConfig
  var showHelp = false
  var showVersion = false

  static let usage = """
    Usage: labeld [OPTIONS]

    labeld is a label-printer driver and print-job daemon. Clients (labelctl, apps) talk to
    it over a Unix socket with JSON-RPC (protocol v1, see docs/protocol.md); every printer
    failure and every failure to save reaches them on one ordered alert channel.

    Options:
      --socket PATH            Listen on PATH. Default, first that applies: $LABELD_SOCKET,
                               $RUNTIME_DIRECTORY/labeld.sock, /run/labeld/labeld.sock (root),
                               $XDG_RUNTIME_DIR/labeld.sock, /tmp/labeld-$UID/labeld.sock.
      --state-dir DIR          Keep state (and simulator output) in DIR. Default:
                               /var/lib/labeld (root), else $XDG_STATE_HOME/labeld or
                               ~/.local/state/labeld.
      --simulate NAME=LANGUAGE[,dpi=N][,width=MM][,length=MM][,speed=LABELS_PER_MIN][,accepting=no]
                               Add a simulated printer sim:NAME (repeatable). LANGUAGE is
                               zpl or brother-ql. It writes each job's bytes to
                               DIR/sim/NAME/<job>.<zpl|ql>; speed=0 (default) prints
                               instantly; darkness=0..30 and finish=tear|cut|peel go into
                               rendered ZPL labels; accepting=no makes it refuse jobs (1002).
                               Defaults: zpl 203 dpi, 50.8 x 25.4 mm; brother-ql 300 dpi
                               (its only resolution), 62 mm continuous (length=0), raster
                               for model=QL-820NWB (any Brother QL model name).
      --seed DIR               Load DIR/products.json and DIR/templates.json into an empty
                               store at start-up (demo data).
      --max-message-bytes N    Longest request line accepted (default 1048576).
      --max-queued-messages N  Outgoing messages a client may fall behind before it gets
                               an overflow notification and is disconnected (default 1024).
      --alert-retention N      Alert events kept for `subscribe` replay (default 10000).
      --alert-retention-days N Days an alert event is kept for replay (default 7).
      --job-history N          Ended jobs kept (default 10000); older ones are pruned.
      --job-history-days N     Days an ended job is kept (default 30).
      --interrupted-jobs resend|abort
                               A job that was printing when labeld stopped (crash, power
                               cut): resend its interrupted copy (default; a missing label is
                               worse than a duplicate) or abort it with reason jobAborted.
      --busy-timeout-ms N      How long a save waits for a database lock held by another
                               process before failing as `busy` (default 5000).
      --usb, --no-usb          Look for USB printers (default) or not. Without a USB bus
                               (a container) labeld goes on without them and says why.
      --usb-timeout-ms N       How long a USB printer has to answer a status request
                               (default 2000); every USB wait is bounded.
      --log-level LEVEL        error, warning, notice, info (default) or debug.
      --help                   Show this help and exit.
      --version                Show the version and exit.

    Logs go to stderr with journald priority prefixes (<3> error ... <7> debug).
    Exit status: 0 after SIGTERM/SIGINT, 64 for a usage error, 71 when it cannot start.
    """

  /// Parses `args` (without the program name). Throws a message for exit 64.
  static func parse(_ args: [String], environment: [String: String]) throws(SpecError) -> Options {
    var socket: String?
    var stateDir: String?
    var config = DaemonConfig(socketPath: "", stateDirectory: "")
    var options = Options(config: config)
    var i = 0
    func value(_ flag: String) throws(SpecError) -> String {
      i += 1
      guard i < args.count else { throw SpecError("\(flag) needs a value") }
      return args[i]
    }
    func integer(_ flag: String, _ range: ClosedRange<Int>) throws(SpecError) -> Int {
      let text = try value(flag)
      guard let n = Int(text), range.contains(n) else {
        throw SpecError(
          "\(flag) must be an integer in \(range.lowerBound)...\(range.upperBound), got \"\(text)\""
        )
      }
      return n
    }
    while i < args.count {
      var arg = args[i]
      // Accept --flag=value as well as --flag value.
      if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
        let flag = String(arg[..<eq])
        if [
          "--socket", "--state-dir", "--simulate", "--seed", "--max-message-bytes",
          "--max-queued-messages", "--alert-retention", "--log-level", "--job-history",
          "--job-history-days", "--alert-retention-days",
          "--interrupted-jobs", "--busy-timeout-ms", "--usb-timeout-ms",
        ].contains(flag) {
          var rest = args
          rest[i] = String(arg[arg.index(after: eq)...])
          rest.insert(flag, at: i)
          return try parse(rest, environment: environment)
        }
        arg = flag
      }
      switch arg {
      case "--help", "-h": options.showHelp = true
      case "--version": options.showVersion = true
      case "--socket": socket = try value(arg)
      case "--state-dir": stateDir = try value(arg)
      case "--simulate": config.simulated.append(try SimulatedPrinterSpec.parse(try value(arg)))
      case "--seed": config.seedDirectory = try value(arg)
      case "--max-message-bytes": config.maxMessageBytes = try integer(arg, 1024...(64 << 20))
      case "--max-queued-messages": config.maxQueuedMessages = try integer(arg, 16...1_000_000)
      case "--alert-retention": config.alertRetentionCount = try integer(arg, 1...10_000_000)
      case "--job-history": config.jobHistoryCount = try integer(arg, 0...10_000_000)
      case "--job-history-days":
        config.jobHistoryAge = Double(try integer(arg, 1...36_500)) * 86_400
      case "--alert-retention-days":
        config.alertRetentionAge = Double(try integer(arg, 1...36_500)) * 86_400
      case "--busy-timeout-ms": config.busyTimeoutMS = Int32(try integer(arg, 0...600_000))
      case "--usb": config.usb.enabled = true
      case "--no-usb": config.usb.enabled = false
      case "--usb-timeout-ms": config.usb.timeouts.statusMS = UInt32(try integer(arg, 50...600_000))
      case "--interrupted-jobs":
        let name = try value(arg)
        guard let policy = InterruptedJobPolicy(rawValue: name) else {
          throw SpecError("--interrupted-jobs must be resend or abort")
        }
        config.interruptedJobs = policy
      case "--log-level":
        let name = try value(arg)
        guard let level = LogLevel(name: name) else {
          throw SpecError("--log-level must be error, warning, notice, info or debug")
        }
        config.logLevel = level
      default:
        throw SpecError("unknown option \"\(args[i])\"")
      }
      i += 1
    }
    config.socketPath = SocketPath.resolve(explicit: socket, environment: environment)
    config.stateDirectory = stateDir ?? defaultStateDirectory(environment)
    options.config = config
    return options
  }

  static func defaultStateDirectory(_ env: [String: String]) -> String {
    if getuid() == 0 { return "/var/lib/labeld" }
    if let d = env["XDG_STATE_HOME"], !d.isEmpty { return d + "/labeld" }
    return (env["HOME"] ?? "/tmp") + "/.local/state/labeld"
  }
}
