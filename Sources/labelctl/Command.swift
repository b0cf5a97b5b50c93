// A small command framework in the shape of swift-argument-parser (which this project cannot
// depend on): commands declare a configuration, read their typed values from the parsed
// arguments in `init(parsing:)`, check combinations in `validate()`, and act in `run(_:)`.

/// One option a command accepts.
struct OptionSpec {
  /// Spellings, the first being the canonical one ("--output", "-o").
  var names: [String]
  /// The value's placeholder in help ("PATH"); nil for a flag that takes no value.
  var value: String?
  /// Whether the option may be given more than once (values are kept in order).
  var repeatable = false
  var help: String

  init(_ names: String..., value: String? = nil, repeatable: Bool = false, help: String) {
    self.names = names
    self.value = value
    self.repeatable = repeatable
    self.help = help
  }
}

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

/// A usage error: exit status 64, with the usage line and a pointer to `--help`.
struct UsageError: Error {
  var message: String
  init(_ message: String) { self.message = message }
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

/// The positionals and option values given to one command, read off by its `init`.
struct ParsedArguments {
  var positionals: [String] = []
  /// Values by canonical option name, in the order given; a flag has one empty value.
  var options: [String: [String]] = [:]

  /// Takes the next positional; missing is a usage error naming `name`.
  mutating func positional(_ name: String) throws(UsageError) -> String {
    guard !positionals.isEmpty else { throw UsageError("missing argument \(name)") }
    return positionals.removeFirst()
  }

  mutating func optionalPositional() -> String? {
    positionals.isEmpty ? nil : positionals.removeFirst()
  }

  func flag(_ name: String) -> Bool { options[name] != nil }

  func value(_ name: String) -> String? { options[name]?.last }

  func values(_ name: String) -> [String] { options[name] ?? [] }

  /// An integer option's value, checked against `range`.
  func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = value(name) else { return nil }
    return try Self.integer(text, name, in: range)
  }

  /// `text` as an integer in `range`; `what` names it in the error.
  static func integer(_ text: String, _ what: String, in range: ClosedRange<Int>)
    throws(UsageError) -> Int
  {
    guard let n = Int(text), range.contains(n) else {
      let upper = range.upperBound == Int.max ? "" : "\(range.upperBound)"
      throw UsageError(
        "\(what) must be an integer in \(range.lowerBound)...\(upper), got \"\(text)\"")
    }
    return n
  }

  /// The KEY=VALUE values of a repeatable option as a dictionary.
  func keyValues(_ name: String) throws(UsageError) -> [String: String]? {
    let items = values(name)
    if items.isEmpty { return nil }
    var out: [String: String] = [:]
    for item in items {
      guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
        throw UsageError("\(name) expects KEY=VALUE, got \"\(item)\"")
      }
      out[String(item[..<eq])] = String(item[item.index(after: eq)...])
    }
    return out
  }
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
        + "$XDG_RUNTIME_DIR/labeld.sock, /tmp/labeld-$UID/labeld.sock."),
    OptionSpec(
      "--json",
      help: "Print the daemon's result as JSON (pretty-printed, sorted keys) instead of text."),
    OptionSpec("--help", "-h", help: "Show help for the command and exit."),
  ]

  static let versionSpec = OptionSpec("--version", help: "Show labelctl's version and exit.")
}
