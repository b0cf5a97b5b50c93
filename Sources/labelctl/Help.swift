/// Renders a command's `--help` page from its configuration, man-page style, for an
/// 80-column terminal.
enum Help {
  static let width = 80
  /// Where option descriptions start.
  static let column = 26

  static func text(for command: any ParsableCommand.Type, isRoot: Bool) -> String {
    let config = command.configuration
    var out = usage(config) + "\n\n" + wrap(config.abstract, indent: 0) + "\n"
    if !config.discussion.isEmpty { out += "\n" + config.discussion + "\n" }
    if !config.subcommands.isEmpty {
      out += "\nCommands:\n"
      let defaultName = config.defaultSubcommand?.configuration.name
      for sub in config.subcommands {
        let c = sub.configuration
        let name = c.name + (c.name == defaultName ? " (default)" : "")
        out += row("  " + name, c.abstract)
      }
    }
    // A group's own options are those of its default subcommand.
    let options = config.options + (config.defaultSubcommand?.configuration.options ?? [])
    if !options.isEmpty {
      out += "\nOptions:\n"
      for option in options { out += row(label(option), option.help) }
    }
    out += "\nGlobal options (anywhere on the command line):\n"
    for option in GlobalOptions.specs + (isRoot ? [GlobalOptions.versionSpec] : []) {
      out += row(label(option), option.help)
    }
    if isRoot { out += "\n" + Root.footer + "\n" }
    return out
  }

  /// "Usage: ..." with one line per form, continuation lines aligned.
  static func usage(_ config: CommandConfiguration) -> String {
    var lines: [String] = []
    for (i, form) in config.usage.enumerated() {
      lines.append((i == 0 ? "Usage: " : "       ") + form)
    }
    return lines.joined(separator: "\n")
  }

  /// "  -o, --output FILE" (short spellings first, as is usual).
  static func label(_ option: OptionSpec) -> String {
    let names = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
    return "  " + names + (option.value.map { " " + $0 } ?? "")
  }

  /// A two-column row; a label too wide for the column puts the text on the next line.
  static func row(_ label: String, _ text: String) -> String {
    let body = wrap(text, indent: column)
    if label.count + 2 <= column {
      let padding = String(repeating: " ", count: column - label.count)
      return label + padding + String(body.dropFirst(column)) + "\n"
    }
    return label + "\n" + body + "\n"
  }

  /// `text` wrapped at word boundaries to `width`, every line indented by `indent`.
  static func wrap(_ text: String, indent: Int) -> String {
    let prefix = String(repeating: " ", count: indent)
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      if !line.isEmpty && indent + line.count + 1 + word.count > width {
        lines.append(prefix + line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty || lines.isEmpty { lines.append(prefix + line) }
    return lines.joined(separator: "\n")
  }
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
