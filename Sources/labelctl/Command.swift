import LabelCommandLine

// A small command framework in the shape of swift-argument-parser (which this project cannot
// depend on): commands declare a configuration, read their typed values from the parsed
// arguments in `init(parsing:)`, check combinations in `validate()`, and act in `run(_:)`.

/// What a command is called, how it is used, and what it accepts.
struct CommandConfiguration {
  var name: String
  /// One sentence, shown in the parent's command list and under the usage lines.
  var abstract: String
  /// Usage lines, each a complete command line ("labelctl cancel JOB").
  var usage: [String]
  /// Paragraphs after the abstract, already wrapped to 80 columns.
  var discussion = ""
  var options: [OptionSpec] = []
  var subcommands: [any ParsableCommand.Type] = []
  /// Run when a group is given no subcommand, and given the group's options.
  var defaultSubcommand: (any ParsableCommand.Type)?
}

/// A command of labelctl. Groups (commands with subcommands) get their `init` and `run`
/// from `CommandGroup`.
protocol ParsableCommand {
  static var configuration: CommandConfiguration { get }
  /// Reads the command's positionals and options; what is left over is a usage error.
  init(parsing arguments: inout ParsedArguments) throws(UsageError)
  /// Checks combinations of options before anything is sent to the daemon.
  func validate() throws(UsageError)
  func run(_ context: Context) throws(CommandError)
}

extension ParsableCommand {
  func validate() throws(UsageError) {}
}

/// A command that only groups subcommands.
protocol CommandGroup: ParsableCommand {}

extension CommandGroup {
  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    throw UsageError("missing command")
  }

  func run(_ context: Context) throws(CommandError) {}
}

/// The options every command accepts, anywhere on the command line.
struct GlobalOptions {
  var socket: String?
  var json = false
  var help = false
  var version = false

  static let specs: [OptionSpec] = [
    OptionSpec(
      "--socket", value: "PATH",
      help: "Talk to labeld at PATH. Default, first that applies: $LABELD_SOCKET, "
        + "$RUNTIME_DIRECTORY/labeld.sock, /run/labeld/labeld.sock (root), "
        + "$XDG_RUNTIME_DIR/labeld.sock, /tmp/labeld-$UID/labeld.sock; when nothing "
        + "listens there, the system service's /run/labeld/labeld.sock."),
    OptionSpec(
      "--json",
      help: "Print the daemon's result as JSON (pretty-printed, sorted keys) instead of text."),
    OptionSpec("--help", "-h", help: "Show help for the command and exit."),
  ]

  static let versionSpec = OptionSpec("--version", help: "Show labelctl's version and exit.")
}
