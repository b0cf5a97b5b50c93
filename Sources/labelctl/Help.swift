import LabelCommandLine

/// Renders a command's `--help` page from its configuration, in the layout labeld's page
/// has too (`HelpText`).
enum Help {
  static func text(for command: any ParsableCommand.Type, isRoot: Bool) -> String {
    let config = command.configuration
    var out = usage(config) + "\n\n" + HelpText.wrap(config.abstract, indent: 0) + "\n"
    if !config.discussion.isEmpty { out += "\n" + config.discussion + "\n" }
    if !config.subcommands.isEmpty {
      out += "\nCommands:\n"
      let defaultName = config.defaultSubcommand?.configuration.name
      for sub in config.subcommands {
        let c = sub.configuration
        let name = c.name + (c.name == defaultName ? " (default)" : "")
        out += HelpText.row("  " + name, c.abstract)
      }
    }
    // A group's own options are those of its default subcommand.
    let options = config.options + (config.defaultSubcommand?.configuration.options ?? [])
    if !options.isEmpty {
      out += "\nOptions:\n"
      out += HelpText.options(options)
    }
    out += "\nGlobal options (anywhere on the command line):\n"
    out += HelpText.options(GlobalOptions.specs + (isRoot ? [GlobalOptions.versionSpec] : []))
    if isRoot { out += "\n" + Root.footer + "\n" }
    return out
  }

  static func usage(_ config: CommandConfiguration) -> String { HelpText.usage(config.usage) }
}

/// `labelctl help [COMMAND...]`: the same page as `labelctl COMMAND... --help`.
struct HelpCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "help",
      abstract: "Show help for labelctl or one of its commands.",
      usage: ["labelctl help [COMMAND [SUBCOMMAND]]"],
      discussion: """
        'labelctl help printers show' prints the same page as
        'labelctl printers show --help'.
        """)
  }

  var words: [String]

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    words = arguments.positionals
    arguments.positionals = []
  }

  func validate() throws(UsageError) {
    if CommandParser.find(words, from: Root.self) == nil {
      throw UsageError("no such command '\(words.joined(separator: " "))'")
    }
  }

  func run(_ context: Context) throws(CommandError) {
    guard let command = CommandParser.find(words, from: Root.self) else { return }
    print(Help.text(for: command, isRoot: words.isEmpty), terminator: "")
  }
}
