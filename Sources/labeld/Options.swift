import Glibc
import LabelCommandLine
import LabelCore
import LabelDaemon
import LabelLog
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// labeld's command line.
struct Options {
  var config: DaemonConfig
  var showHelp = false
  var showVersion = false
  /// `--check-config`: read and check everything, report, exit.
  var checkConfig = false
  /// The configuration file that was read, if any.
  var configPath: String?

  /// Every option, with its help (the `--help` page's rows, in this order).
  static let specs: [OptionSpec] = [
    OptionSpec(
      "--socket", value: "PATH",
      help: "Listen on PATH. Default, first that applies: $LABELD_SOCKET, "
        + "$RUNTIME_DIRECTORY/labeld.sock, /run/labeld/labeld.sock (root), "
        + "$XDG_RUNTIME_DIR/labeld.sock, /tmp/labeld-$UID/labeld.sock."),
    OptionSpec(
      "--state-dir", value: "DIR",
      help: "Keep state (and simulator output) in DIR. Default: /var/lib/labeld (root), "
        + "else $XDG_STATE_HOME/labeld or ~/.local/state/labeld."),
    OptionSpec(
      "--simulate", value: "NAME=LANGUAGE[,KEY=VALUE...]", repeatable: true,
      help:
        "Add a simulated printer sim:NAME (repeatable). LANGUAGE is \(PrinterLanguage.spokenList). "
        + "It writes each job's bytes to DIR/sim/NAME/<job>.<zpl|ql|tspl|epl|lw|lw5>. Keys: dpi=N, "
        + "width=MM, length=MM (0: continuous), speed=LABELS_PER_MIN (0, the default, prints "
        + "instantly), darkness (ZPL 0..30, TSPL and EPL2 0..15, dymo-lw and dymo-lw5 0..3: light, medium, normal, dark) and finish=tear|cut|peel (rendered "
        + "labels), model=NAME (the Brother QL model whose raster it takes, default "
        + "QL-820NWB), accepting=no (it refuses jobs: 1002), keep=N (the files of the newest "
        + "N jobs, default 1000). Defaults: zpl 203 dpi, 50.8 x 25.4 mm; brother-ql 300 dpi "
        + "(its only resolution), 62 mm continuous; tspl and epl2 203 dpi, 101.6 x 152.4 mm (4 x 6 in); dymo-lw and dymo-lw5 300 dpi (their only "
        + "resolution), 28.6 x 88.9 mm (the 1.125 x 3.5 in address label)."
    ),
    OptionSpec(
      "--cups", "--no-cups",
      help: "Add the CUPS server's queues as printers cups:QUEUE (default on). The server "
        + "is libcups' own: $CUPS_SERVER, client.conf, else the local scheduler. When none "
        + "answers labeld runs without CUPS printers, logs it once, and keeps looking."),
    OptionSpec(
      "--cups-language", value: "QUEUE=LANGUAGE", repeatable: true,
      help:
        "Pin the language (\(PrinterLanguage.spokenList)) of CUPS queue QUEUE (repeatable), for "
        + "queues whose make and model do not say it (raw queues). Unpinned unknown queues "
        + "print native documents only; templates for them answer 1007."),
    OptionSpec(
      "--seed", value: "DIR",
      help: "Load DIR/products.json and DIR/templates.json into an empty store at start-up "
        + "(demo data)."),
    OptionSpec(
      "--max-message-bytes", value: "N",
      help: "Longest request line accepted (default 1048576)."),
    OptionSpec(
      "--max-queued-messages", value: "N",
      help: "Outgoing messages a client may fall behind before it gets an overflow "
        + "notification and is disconnected (default 1024)."),
    OptionSpec(
      "--request-line-timeout", value: "SECONDS",
      help: "A request line longer than 64 KiB must end within SECONDS (default 30) of "
        + "passing 64 KiB, counted while labeld reads; otherwise it is answered -32600 and "
        + "the connection closes, so a client that stops mid-line cannot hold back "
        + "others' large requests."),
    OptionSpec(
      "--alert-retention", value: "N",
      help: "Alert events kept for `subscribe` replay (default 10000)."),
    OptionSpec(
      "--alert-retention-days", value: "N",
      help: "Days an alert event is kept for replay (default 7)."),
    OptionSpec(
      "--job-history", value: "N",
      help: "Ended jobs kept (default 10000); older ones are pruned."),
    OptionSpec("--job-history-days", value: "N", help: "Days an ended job is kept (default 30)."),
    OptionSpec(
      "--max-jobs", value: "N",
      help: "Jobs not ended (waiting, held or printing) on all printers together, at most "
        + "(default 50000). A submit past it, from any front (the socket, the web endpoint, "
        + "IPP), is refused at once with error 1008 (IPP: server-error-too-many-jobs) and "
        + "nothing of it is stored; the refusals are counted in /metrics."),
    OptionSpec(
      "--max-jobs-per-printer", value: "N",
      help: "Jobs not ended on one printer, at most (default 10000)."),
    OptionSpec(
      "--max-queued-bytes", value: "BYTES",
      help: "What the documents of the jobs not ended may hold together, at most (default "
        + "1G; a K, M or G suffix multiplies by 1024 once, twice or three times)."),
    OptionSpec(
      "--interrupted-jobs", value: "resend|abort",
      help: "A job that was printing when labeld stopped (crash, power cut): resend its "
        + "interrupted copy (default; a missing label is worse than a duplicate) or abort it "
        + "with reason jobAborted."),
    OptionSpec(
      "--busy-timeout-ms", value: "N",
      help: "How long a save waits for a database lock held by another process before "
        + "failing as `busy` (default 5000)."),
    OptionSpec(
      "--usb", "--no-usb",
      help: "Look for USB printers (default) or not. Without a USB bus (a container) labeld "
        + "goes on without them and says why."),
    OptionSpec(
      "--usb-timeout-ms", value: "N",
      help: "How long a USB printer has to answer a status request (default 2000); every "
        + "USB wait is bounded."),
    OptionSpec(
      "--printer", value: "NAME=socket://HOST[:PORT],language=L[,KEY=VALUE...]", repeatable: true,
      help: "Add a network printer net:NAME on a raw TCP port (repeatable; default port 9100). "
        + "language= is required (\(PrinterLanguage.spokenList)); model=NAME picks its driver row "
        + "(default: the language's), dpi=N, and width=MM, length=MM (0: continuous) the loaded "
        + "media. labeld asks its status on the same connection (Zebra ~HQES, TSPL, EPL2, DYMO; "
        + "Brother QL answers none there) and prints to no address that is not configured. In "
        + "labeld.conf: printer = NAME socket://HOST[:PORT] language=L model=\"M\"."),
    OptionSpec(
      "--red-black-roll", value: "PRINTER", repeatable: true,
      help: "USB Brother QL printer PRINTER (usb:04f9:209d:SERIAL, as `labelctl devices` shows "
        + "it) has a red/black DK-22251 roll in (repeatable). Its status reports the roll as "
        + "62 mm like a black one, so labeld cannot see the difference; with this its labels "
        + "print in two colours (elements with \"color\": \"red\" in red) while a 62 mm "
        + "continuous roll is loaded. Only the QL-800, QL-810W and QL-820NWB print red."),
    OptionSpec(
      "--rest-after", value: "SECONDS",
      help: "Once labeld has used under 2% of a core for SECONDS (default 10; 0: never), it "
        + "hands back memory it is not using: it unmaps the code and read-only data it ran "
        + "last (they stay in the page cache; what the next request runs is mapped again) and "
        + "returns the heap's free pages. Again after each busy spell."),
    OptionSpec(
      "--listen-http", value: "ADDR", repeatable: true,
      help: "Serve protocol v1 over a WebSocket at /v1/ws, the status page at / and /metrics "
        + "on ADDR (repeatable; off unless given; `http = ADDR` in labeld.conf): unix:PATH, "
        + "127.0.0.1:PORT or [::1]:PORT, or, with TLS only, any other numeric HOST:PORT. "
        + "Every request needs a token (labelctl tokens create NAME --role ROLE); the page's "
        + "own files and /metrics on this machine's addresses do not."),
    OptionSpec(
      "--tls-cert", value: "FILE",
      help: "Serve HTTP with TLS (1.2 and 1.3) presenting this PEM certificate chain; with "
        + "--tls-key. Both files are read again on SIGHUP."),
    OptionSpec("--tls-key", value: "FILE", help: "The certificate's PEM private key."),
    OptionSpec(
      "--tls-self-signed",
      help: "Serve HTTP with TLS on a self-signed certificate labeld makes once in "
        + "STATE_DIR/tls and keeps (its SHA-256 fingerprint is logged, for clients to pin)."),
    OptionSpec(
      "--web-origin", value: "ORIGIN", repeatable: true,
      help: "A browser origin (https://pos.example.com) whose pages may open the WebSocket "
        + "besides labeld's own page (repeatable). Any other origin is refused."),
    OptionSpec(
      "--listen-ipp", value: "ADDR", repeatable: true,
      help: "Serve every printer as an IPP Everywhere printer at ipp://ADDR/ipp/print/ID "
        + "(repeatable; off unless given; `listen-ipp = ADDR` in labeld.conf), for any "
        + "computer's print dialog, CUPS (lpadmin -m everywhere) and phones. The same address "
        + "forms as --listen-http: plain IPP on this machine's addresses only, IPPS with the "
        + "web endpoint's certificate elsewhere. Queries need no sign-in; printing needs an "
        + "operator token as the HTTP Basic password (see --ipp-print)."),
    OptionSpec(
      "--ipp-print", value: "operator|anyone",
      help: "Who may print over IPP: operators, signed in with a token (default), or anyone "
        + "who can reach the address (trusts the whole network it listens on)."),
    OptionSpec(
      "--document-timeout", value: "SECONDS",
      help: "A PDF is drawn in a process of its own, limited to 1 GiB of memory and SECONDS of "
        + "CPU and of time (default 60); one that takes more ends its job as aborted "
        + "(document-unprintable-error), and labeld goes on."),
    OptionSpec(
      "--log-level", value: "LEVEL",
      help: "error, warning, notice, info (default) or debug."),
    OptionSpec(
      "--admin-group", value: "GROUP",
      help: "Members of GROUP (and root, and labeld's own user) may use admin methods "
        + "(printers.simulate) and cancel anyone's jobs (default labeld-admin; empty: "
        + "nobody else)."),
    OptionSpec(
      "--socket-group", value: "GROUP",
      help: "Group of a socket labeld creates itself (default labeld, when that group "
        + "exists)."),
    OptionSpec(
      "--socket-mode", value: "MODE",
      help: "Its permissions, octal (default 0660: its user and group). A socket passed by "
        + "systemd keeps the unit's SocketMode."),
    OptionSpec(
      "--config", value: "FILE",
      help: "Read settings from FILE (default /etc/labeld/labeld.conf, when it exists): one "
        + "\"key = value\" per line, keys are these long options without \"--\"; flags "
        + "override it. See labeld.conf(5)."),
    OptionSpec("--no-config", help: "Read no configuration file."),
    OptionSpec(
      "--check-config",
      help: "Read the configuration file and the flags, check every setting, print what "
        + "would be used, and exit (0 when valid)."),
    OptionSpec("--help", "-h", help: "Show this help and exit."),
    OptionSpec("--version", help: "Show the version and exit."),
  ]

  /// The `--help` page: the same layout as labelctl's (`HelpText`).
  static var usage: String {
    HelpText.usage(["labeld [OPTIONS]"]) + "\n\n"
      + HelpText.wrap(
        "labeld is a label-printer driver and print-job daemon. Clients (labelctl, apps) talk "
          + "to it over a Unix socket with JSON-RPC (protocol v1, see docs/protocol.md); every "
          + "printer failure and every failure to save reaches them on one ordered alert "
          + "channel.", indent: 0)
      + "\n\nOptions:\n" + HelpText.options(specs) + "\n" + footer
  }

  static let footer = """
    Signals: SIGTERM/SIGINT stop gracefully (labels being printed are finished,
    waiting jobs stay queued for the next start); a second one exits at once.
    SIGHUP re-reads the configuration file: log-level, alert-retention[-days],
    job-history[-days], admin-group, max-jobs[-per-printer] and max-queued-bytes
    apply at once; other changes are logged and wait for a restart. Under systemd
    labeld reports readiness and feeds the watchdog (Type=notify) and takes its
    socket from socket activation.

    Logs go to stderr with journald priority prefixes (<3> error ... <7> debug).
    Exit status: 0 after SIGTERM/SIGINT, 64 for a usage error, 71 when it cannot
    start, 78 for a bad configuration file.
    """

  /// The configuration file read when `--config` does not name one.
  static let defaultConfigPath = "/etc/labeld/labeld.conf"

  /// Options that take a value; each (but `--config`) is also a key of labeld.conf.
  static let valueFlags = Set(specs.filter { $0.value != nil }.flatMap(\.names))

  /// labeld.conf keys without a command-line form of their own (`cups = yes|no`, which
  /// is `--cups`/`--no-cups` on the command line).
  static let fileOnlyKeys: Set<String> = ["--cups", "--usb", "--http", "--tls-self-signed"]

  /// Parses `args` (without the program name) over the configuration file: the file's
  /// settings first, then the flags, which win (flags that give `--simulate` replace the
  /// file's simulated printers).
  static func parse(
    _ args: [String], environment: [String: String], defaultConfig: String = defaultConfigPath
  ) throws(OptionsError) -> Options {
    var options = Options(config: DaemonConfig(socketPath: "", stateDirectory: ""))
    // Pick out the flags that shape the parse itself; the rest apply in order.
    var flags: [(flag: String, value: String?)] = []
    var explicitConfig: String?
    var noConfig = false
    var reader = CommandLineReader(args)
    do throws(UsageError) {
      while let word = reader.next() {
        guard case .option(let name, let inline) = word else {
          if case .positional(let argument) = word {
            throw UsageError("unexpected argument \"\(argument)\"")
          }
          continue
        }
        guard let spec = specs.first(where: { $0.names.contains(name) }) else {
          throw UsageError("unknown option \"\(name)\"")
        }
        if let placeholder = spec.value {
          let value = try reader.value(of: name, inline: inline, placeholder: placeholder)
          if name == "--config" { explicitConfig = value } else { flags.append((name, value)) }
          continue
        }
        try CommandLineReader.noValue(name, inline: inline)
        switch name {
        case "--help", "-h": options.showHelp = true
        case "--version": options.showVersion = true
        case "--check-config": options.checkConfig = true
        case "--no-config": noConfig = true
        case "--tls-self-signed": flags.append(("--tls-self-signed", "yes"))
        case "--cups": flags.append(("--cups", "yes"))
        case "--no-cups": flags.append(("--cups", "no"))
        case "--usb": flags.append(("--usb", "yes"))
        case "--no-usb": flags.append(("--usb", "no"))
        default: throw UsageError("unknown option \"\(name)\"")
        }
      }
    } catch {
      throw .usage(error.message)
    }
    var settings = Settings()
    if !noConfig {
      let path = explicitConfig ?? defaultConfig
      if explicitConfig != nil || PlainFile.exists(path) {
        let file: ConfigFile
        do { file = try ConfigFile(contentsOf: path) } catch { throw .config(error.description) }
        for entry in file.entries {
          let flag = "--\(entry.key)"
          guard valueFlags.contains(flag) || fileOnlyKeys.contains(flag), flag != "--config" else {
            throw .config(
              ConfigError(path: path, line: entry.line, "unknown key \"\(entry.key)\"").description)
          }
          do { try settings.apply(flag, entry.value) } catch {
            throw .config(ConfigError(path: path, line: entry.line, error.description).description)
          }
        }
        options.configPath = path
      }
    }
    if flags.contains(where: { $0.flag == "--simulate" }) { settings.config.simulated = [] }
    if flags.contains(where: { $0.flag == "--printer" }) { settings.config.network.printers = [] }
    if flags.contains(where: { $0.flag == "--listen-http" }) { settings.config.clearWebListeners() }
    if flags.contains(where: { $0.flag == "--listen-ipp" }) { settings.config.clearIPPListeners() }
    for (flag, value) in flags {
      do throws(SpecError) { try settings.apply(flag, value ?? "") } catch {
        throw .usage(error.description)
      }
    }
    var config = settings.config
    config.socketPath = SocketPath.resolve(
      explicit: settings.socket, environment: environment, uid: getuid())
    config.stateDirectory = settings.stateDirectory ?? defaultStateDirectory(environment)
    options.config = config
    return options
  }

  /// Settings as they are applied, from the file and then the flags.
  struct Settings {
    var config = DaemonConfig(socketPath: "", stateDirectory: "")
    var socket: String?
    var stateDirectory: String?

    mutating func apply(_ flag: String, _ value: String) throws(SpecError) {
      let option = KeyValueOption(key: flag, value: value)
      func integer(_ range: ClosedRange<Int>) throws(SpecError) -> Int {
        try option.integer(in: range)
      }
      switch flag {
      case "--socket": socket = value
      case "--state-dir": stateDirectory = value
      case "--simulate":
        try config.simulate(value)
      case "--seed": config.seedDirectory = value
      case "--max-message-bytes": config.maxMessageBytes = try integer(1024...(64 << 20))
      case "--max-queued-messages": config.maxQueuedMessages = try integer(16...1_000_000)
      case "--request-line-timeout": config.longLineSeconds = try integer(1...3600)
      case "--alert-retention": config.alertRetentionCount = try integer(1...10_000_000)
      case "--job-history": config.jobHistoryCount = try integer(0...10_000_000)
      case "--job-history-days": config.jobHistoryAge = Double(try integer(1...36_500)) * 86_400
      case "--max-jobs": config.queueLimits.total = try integer(1...10_000_000)
      case "--max-jobs-per-printer": config.queueLimits.perPrinter = try integer(1...10_000_000)
      case "--max-queued-bytes":
        guard let bytes = Options.byteCount(value), (1 << 20...1 << 40).contains(bytes) else {
          throw SpecError(
            "\(flag) must be a byte count from 1M to 1024G (a K, M or G suffix), got \"\(value)\"")
        }
        config.queueLimits.bytes = bytes
      case "--alert-retention-days":
        config.alertRetentionAge = Double(try integer(1...36_500)) * 86_400
      case "--busy-timeout-ms": config.busyTimeoutMS = Int32(try integer(0...600_000))
      case "--usb": config.usb.enabled = try option.yesNo()
      case "--usb-timeout-ms": config.usb.timeouts.statusMS = UInt32(try integer(50...600_000))
      case "--rest-after": config.restAfter = .seconds(try integer(0...86_400))
      case "--printer":
        try config.addNetworkPrinter(value)
      case "--red-black-roll":
        guard value.hasPrefix("usb:"), value.split(separator: ":").count >= 3 else {
          throw SpecError(
            "--red-black-roll must name a USB printer (usb:VVVV:PPPP:SERIAL), got \"\(value)\"")
        }
        config.usb.redBlackRolls.insert(value)
      case "--interrupted-jobs":
        try config.setInterruptedJobs(value)
      case "--log-level":
        guard let level = LogLevel(name: value) else {
          throw SpecError("--log-level must be error, warning, notice, info or debug")
        }
        config.logLevel = level
      case "--admin-group":
        config.adminGroup = value.isEmpty ? nil : value
      case "--listen-http", "--http", "--tls-cert", "--tls-key", "--tls-self-signed",
        "--web-origin":
        try config.setWeb(flag, value)
      case "--document-timeout": config.documentSeconds = try integer(1...3600)
      case "--listen-ipp", "--ipp-print":
        try config.setIPP(flag, value)
      case "--socket-group":
        config.socketGroup = value.isEmpty ? nil : value
      case "--cups": config.cups = try option.yesNo()
      case "--cups-language":
        let kv = value.split(separator: "=", maxSplits: 1).map(String.init)
        guard kv.count == 2, !kv[0].isEmpty, let language = PrinterLanguage(rawValue: kv[1]) else {
          let known = PrinterLanguage.allCases.map(\.rawValue).joined(separator: " or ")
          throw SpecError(
            "--cups-language must be QUEUE=LANGUAGE with LANGUAGE \(known), got \"\(value)\"")
        }
        config.cupsLanguages[kv[0]] = language
      case "--socket-mode":
        guard let mode = mode_t(value, radix: 8), mode <= 0o777 else {
          throw SpecError("--socket-mode must be octal permissions such as 0660, got \"\(value)\"")
        }
        config.socketMode = mode
      default:
        throw SpecError("unknown option \"\(flag)\"")
      }
    }
  }

  /// `1048576`, `512K`, `64M`, `2G` (1024-based); nil for anything else.
  static func byteCount(_ text: String) -> Int? {
    guard let last = text.last else { return nil }
    let shift: Int
    switch last {
    case "K", "k": shift = 10
    case "M", "m": shift = 20
    case "G", "g": shift = 30
    default: return Int(text)
    }
    guard let n = Int(text.dropLast()), n >= 0, n <= Int.max >> shift else { return nil }
    return n << shift
  }

  /// Checks what parsing cannot: printers named twice, directories that cannot be used.
  func check() throws(SpecError) {
    var names = Set<String>()
    for spec in config.simulated where !names.insert(spec.name).inserted {
      throw SpecError("simulated printer \(spec.name) is defined twice")
    }
    if let seed = config.seedDirectory {
      var info = stat()
      guard stat(seed, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
        throw SpecError("seed directory \(seed) does not exist")
      }
    }
    if let group = config.socketGroup, group != "labeld", UnixSocket.groupID(named: group) == nil {
      throw SpecError("socket-group \(group) does not exist")
    }
    if let problem = config.webProblem { throw SpecError(problem) }
  }

  /// What `--check-config` prints: every setting that will be used.
  var summary: String {
    let c = config
    var lines = [
      "configuration: \(configPath ?? "none (no file read)")",
      "socket = \(c.socketPath) (mode \(String(c.socketMode, radix: 8)), group \(c.socketGroup ?? "-"))",
      "state-dir = \(c.stateDirectory)",
    ]
    for spec in c.simulated {
      lines.append(
        "simulate = \(spec.name)=\(spec.language.rawValue),dpi=\(spec.dpi),width=\(spec.widthMM),"
          + "length=\(spec.lengthMM),speed=\(spec.speed)")
    }
    lines += [
      "seed = \(c.seedDirectory ?? "-")",
      "log-level = \(c.logLevel)",
      "admin-group = \(c.adminGroup ?? "-")",
      "http = \(c.webSummary.http)",
      "tls = \(c.webSummary.tls)",
      "listen-ipp = \(c.ippSummary)",
      "document-timeout = \(c.documentSeconds)",
      "max-message-bytes = \(c.maxMessageBytes)",
      "max-queued-messages = \(c.maxQueuedMessages)",
      "request-line-timeout = \(c.longLineSeconds)",
      "alert-retention = \(c.alertRetentionCount)",
      "alert-retention-days = \(Int(c.alertRetentionAge / 86_400))",
      "job-history = \(c.jobHistoryCount)",
      "job-history-days = \(Int(c.jobHistoryAge / 86_400))",
      "max-jobs = \(c.queueLimits.total)",
      "max-jobs-per-printer = \(c.queueLimits.perPrinter)",
      "max-queued-bytes = \(c.queueLimits.bytes)",
      "interrupted-jobs = \(c.interruptedJobs.rawValue)",
      "busy-timeout-ms = \(c.busyTimeoutMS)",
      "rest-after = \(c.restAfter.components.seconds)",
      "cups = \(c.cups ? "yes" : "no")",
      "usb = \(c.usb.enabled ? "yes" : "no")",
    ]
    for (queue, language) in c.cupsLanguages.sorted(by: { $0.key < $1.key }) {
      lines.append("cups-language = \(queue)=\(language.rawValue)")
    }
    for printer in c.usb.redBlackRolls.sorted() { lines.append("red-black-roll = \(printer)") }
    for p in c.network.printers {
      var line = "printer = \(p.name) \(p.uri) language=\(p.language.rawValue)"
      if let model = p.model { line += " model=\"\(model)\"" }
      if let dpi = p.dpi { line += " dpi=\(dpi)" }
      if let width = p.widthMM { line += " width=\(width)" }
      if let length = p.lengthMM { line += " length=\(length)" }
      lines.append(line)
    }
    lines += [
      "OK"
    ]
    return lines.joined(separator: "\n")
  }

  static func defaultStateDirectory(_ env: [String: String]) -> String {
    if getuid() == 0 { return "/var/lib/labeld" }
    if let d = env["XDG_STATE_HOME"], !d.isEmpty { return d + "/labeld" }
    return (env["HOME"] ?? "/tmp") + "/.local/state/labeld"
  }
}

/// Why the options cannot be used: a bad flag (exit 64) or a bad configuration file
/// (exit 78, EX_CONFIG).
enum OptionsError: Error, CustomStringConvertible {
  case usage(String)
  case config(String)

  var description: String {
    switch self {
    case .usage(let m), .config(let m): return m
    }
  }

  var exitStatus: Int32 {
    switch self {
    case .usage: return 64
    case .config: return 78
    }
  }
}
