/// One word of a command line, as both executables read it.
public enum CommandLineWord: Sendable, Equatable {
  /// `--name`, `-h`, or `--name=value` (the value inline).
  case option(name: String, inline: String?)
  /// Anything else: an argument, `-` alone, or any word after `--`.
  case positional(String)
}

/// Reads a command line word by word with the rules labeld and labelctl share: `--` ends
/// the options (every word after it is an argument, even one starting with `-`),
/// `--name=value` gives an option its value inline, and an option that takes a value and
/// has none inline takes the next word.
public struct CommandLineReader: Sendable {
  private let words: [String]
  private var index = 0
  private var literal = false

  public init(_ words: [String]) { self.words = words }

  /// Whether `--` has been read: words now are arguments, never commands or options.
  public var pastOptions: Bool { literal }

  public mutating func next() -> CommandLineWord? {
    while index < words.count {
      let word = words[index]
      index += 1
      if literal { return .positional(word) }
      if word == "--" {
        literal = true
        continue
      }
      guard word.hasPrefix("-"), word != "-" else { return .positional(word) }
      if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
        return .option(name: String(word[..<eq]), inline: String(word[word.index(after: eq)...]))
      }
      return .option(name: word, inline: nil)
    }
    return nil
  }

  /// The value of option `name`: the inline one, or the next word. `placeholder` names it
  /// in the usage error when there is none ("--socket needs a value (PATH)").
  public mutating func value(of name: String, inline: String?, placeholder: String)
    throws(UsageError) -> String
  {
    if let inline { return inline }
    guard index < words.count else { throw UsageError("\(name) needs a value (\(placeholder))") }
    index += 1
    return words[index - 1]
  }

  /// A flag given a value inline (`--json=yes`) is a usage error.
  public static func noValue(_ name: String, inline: String?) throws(UsageError) {
    if inline != nil { throw UsageError("\(name) takes no value") }
  }

  /// Whether `words` ask for help before any `--` (a page, even on a line with errors).
  public static func asksForHelp(_ words: [String]) -> Bool {
    for word in words {
      if word == "--" { return false }
      if word == "--help" || word == "-h" { return true }
    }
    return false
  }
}
