import LabelCommandLine
import LabelCore
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// `labelctl`: the command tree's root.
struct Root: CommandGroup {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "labelctl",
      abstract: "Control labeld, the label-printer daemon: printers, print jobs, products, "
        + "templates and alerts.",
      usage: ["labelctl [--socket PATH] [--json] COMMAND [ARGUMENTS...]"],
      discussion: """
        labelctl talks to labeld over its Unix socket (JSON-RPC, protocol v1). Every
        command prints readable tables by default; with --json it prints the daemon's
        result instead, for scripts.
        """,
      subcommands: [
        StatusCommand.self, PrintersCommand.self, PrintCommand.self, JobsCommand.self,
        CancelCommand.self, ProductsCommand.self, TemplatesCommand.self, RenderCommand.self,
        PreviewCommand.self, AlertsCommand.self, SimulateCommand.self, DevicesCommand.self,
        TokensCommand.self, HelpCommand.self,
      ])
  }

  static let footer = """
    Run 'labelctl COMMAND --help' or 'labelctl help COMMAND' for a command's
    arguments and options.

    Environment:
      LABELD_SOCKET            The daemon's socket, unless --socket is given.

    Exit status:
      0   success
      1   the daemon answered with an error (shown with its code), a job did not
          complete, or a local file could not be read or written
      64  usage error (unknown command or option, missing argument)
      69  labeld cannot be reached, or went away
    """
}

/// Runs one command line: parse, validate, run, report.
enum CLI {
  static func main(_ tokens: [String], environment: [String: String]) -> Int32 {
    let invocation: Invocation
    do {
      invocation = try CommandParser.parse(tokens, root: Root.self)
    } catch {
      // `labelctl print --help` must show help even though PRINTER is missing.
      let command = CommandParser.find(Array(error.path.dropFirst()), from: Root.self) ?? Root.self
      if CommandParser.asksForHelp(tokens) {
        print(Help.text(for: command, isRoot: error.path.count == 1), terminator: "")
        return ExitStatus.success.rawValue
      }
      return usageError(error.message, command: command, path: error.path)
    }
    let global = invocation.global
    if global.help {
      print(Help.text(for: invocation.command, isRoot: invocation.path.count == 1), terminator: "")
      return ExitStatus.success.rawValue
    }
    if global.version {
      print("labelctl \(LabelVersion.version) (protocol \(LabelVersion.protocolVersion))")
      return ExitStatus.success.rawValue
    }
    var arguments = invocation.arguments
    let command: any ParsableCommand
    do throws(UsageError) {
      command = try invocation.command.init(parsing: &arguments)
      if let extra = arguments.positionals.first {
        throw UsageError("unexpected argument '\(extra)'")
      }
      try command.validate()
    } catch {
      return usageError(error.message, command: invocation.command, path: invocation.path)
    }
    let context = Context(
      socketPaths: SocketPath.clientCandidates(
        explicit: global.socket, environment: environment, uid: getuid()),
      json: global.json, interactive: isatty(STDOUT_FILENO) == 1)
    do {
      try command.run(context)
      return ExitStatus.success.rawValue
    } catch {
      if case .usage(let message) = error {
        return usageError(message, command: invocation.command, path: invocation.path)
      }
      Output.error(error.report)
      return error.status.rawValue
    }
  }

  /// Reports a usage error with the command's usage and where to read more.
  static func usageError(
    _ message: String, command: any ParsableCommand.Type, path: [String]
  ) -> Int32 {
    Output.error(
      "labelctl: \(message)\n\(Help.usage(command.configuration))\n"
        + "Try '\(path.joined(separator: " ")) --help'.")
    return ExitStatus.usage.rawValue
  }
}

/// `labelctl status`: is the daemon there, and how is it doing.
struct StatusCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "status",
      abstract: "Show the daemon's version and counts of printers, jobs waiting and alerts.",
      usage: ["labelctl status"],
      discussion: """
        Calls hello, printers.list, jobs.list and alerts.active. Exits 69 when labeld
        cannot be reached, so 'labelctl status' also answers "is labeld running?".
        """)
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    let hello = try context.decode(
      HelloResult.self, from: try context.call(.hello, ["client": "labelctl"]))
    let printers = try context.decode(PrintersResult.self, from: try context.call(.printersList))
    let jobs = try context.decode(
      JobsResult.self,
      from: try context.call(.jobsList, ["states": ["pending", "held", "processing"]]))
    let alerts = try context.decode(AlertsResult.self, from: try context.call(.alertsActive))
    let faulty = printers.printers.filter { !$0.reasons.isEmpty }.count
    if context.json {
      print(
        Output.json([
          "server": .string(hello.server), "version": .string(hello.version),
          "protocol": .int(hello.protocol), "socket": .string(context.socketPath),
          "printers": .int(printers.printers.count), "printersWithFaults": .int(faulty),
          "activeJobs": .int(jobs.jobs.count), "activeAlerts": .int(alerts.alerts.count),
        ]))
      return
    }
    print(
      Output.fields([
        ("Server", "\(hello.server) \(hello.version) (protocol \(hello.protocol))"),
        ("Socket", context.socketPath),
        ("Printers", "\(printers.printers.count) (\(faulty) with faults)"),
        ("Active jobs", "\(jobs.jobs.count)"),
        ("Active alerts", "\(alerts.alerts.count)"),
      ]), terminator: "")
  }
}
