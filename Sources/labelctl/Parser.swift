import LabelCommandLine

/// A command line resolved to one command: which one, by what path, with what arguments.
struct Invocation {
  var command: any ParsableCommand.Type
  /// The words naming the command ("labelctl", "printers", "show").
  var path: [String]
  var arguments: ParsedArguments
  var global: GlobalOptions
}

/// A command line that could not be read, with how far reading got (for its usage line).
struct ParseFailure: Error {
  var message: String
  /// The words naming the command reached ("labelctl", "printers").
  var path: [String]
}

/// Reads a command line against the command tree.
///
/// Subcommand names are matched only where a group expects one. A group with a default
/// subcommand hands anything that is not one of its subcommands to the default, so
/// `labelctl alerts --follow` is `labelctl alerts list --follow`. Global options are
/// recognised at every level, before or after the subcommand.
enum CommandParser {
  static func parse(_ tokens: [String], root: any ParsableCommand.Type)
    throws(ParseFailure) -> Invocation
  {
    var command = root
    var path = [root.configuration.name]
    var global = GlobalOptions()
    var arguments = ParsedArguments()
    var reader = CommandLineReader(tokens)

    func failure(_ message: String) -> ParseFailure {
      ParseFailure(message: message, path: path)
    }
    /// Moves into the default subcommand of a group; false when there is none.
    func descend() -> Bool {
      guard let next = command.configuration.defaultSubcommand else { return false }
      command = next
      path.append(next.configuration.name)
      return true
    }
    func isGroup() -> Bool { !command.configuration.subcommands.isEmpty }

    do throws(UsageError) {
      while let word = reader.next() {
        switch word {
        case .option(let name, let inline):
          switch name {
          case "--socket":
            global.socket = try reader.value(of: name, inline: inline, placeholder: "PATH")
            continue
          case "--json", "--help", "-h", "--version":
            try CommandLineReader.noValue(name, inline: inline)
            if name == "--json" { global.json = true }
            if name == "--help" || name == "-h" { global.help = true }
            if name == "--version" { global.version = true }
            continue
          default: break
          }
          if isGroup() && !descend() { throw UsageError("unknown option '\(name)'") }
          guard
            let spec = command.configuration.options.first(where: { $0.names.contains(name) })
          else { throw UsageError("unknown option '\(name)'") }
          try arguments.record(spec, as: name, inline: inline, from: &reader)
        case .positional(let token):
          if isGroup() {
            if !reader.pastOptions,
              let sub = command.configuration.subcommands.first(where: {
                $0.configuration.name == token
              })
            {
              command = sub
              path.append(token)
              continue
            }
            guard descend() else { throw UsageError("unknown command '\(token)'") }
          }
          arguments.positionals.append(token)
        }
      }
    } catch {
      throw failure(error.message)
    }
    // `labelctl alerts --help` shows the group's help, which covers its default.
    if isGroup() && !global.help && !global.version && !descend() {
      throw failure("missing command")
    }
    return Invocation(command: command, path: path, arguments: arguments, global: global)
  }

  /// The command named by `words` below `root` ("printers", "show"), nil if there is none.
  static func find(_ words: [String], from root: any ParsableCommand.Type)
    -> (any ParsableCommand.Type)?
  {
    var command = root
    for word in words {
      guard
        let sub = command.configuration.subcommands.first(where: {
          $0.configuration.name == word
        })
      else { return nil }
      command = sub
    }
    return command
  }

  /// Whether the user asked for help anywhere before `--` (then a parse error shows help).
  static func asksForHelp(_ tokens: [String]) -> Bool { CommandLineReader.asksForHelp(tokens) }
}
