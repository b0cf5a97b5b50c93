// Both executables read their command lines the same way (labeld's options and
// labelctl's commands): one spelling of an option, one reader of words, one help layout,
// one kind of usage error (exit status 64).

/// One option a command accepts.
public struct OptionSpec: Sendable {
  /// Spellings, the first being the canonical one ("--output", "-o").
  public var names: [String]
  /// The value's placeholder in help ("PATH"); nil for a flag that takes no value.
  public var value: String?
  /// Whether the option may be given more than once (values are kept in order).
  public var repeatable = false
  public var help: String

  public init(_ names: String..., value: String? = nil, repeatable: Bool = false, help: String) {
    self.names = names
    self.value = value
    self.repeatable = repeatable
    self.help = help
  }
}

/// A usage error: exit status 64, with the usage line and a pointer to `--help`.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// The positionals and option values given to one command, read off by its `init`.
public struct ParsedArguments: Sendable {
  public var positionals: [String] = []
  /// Values by canonical option name, in the order given; a flag has one empty value.
  public var options: [String: [String]] = [:]

  public init() {}

  /// Takes the next positional; missing is a usage error naming `name`.
  public mutating func positional(_ name: String) throws(UsageError) -> String {
    guard !positionals.isEmpty else { throw UsageError("missing argument \(name)") }
    return positionals.removeFirst()
  }

  public mutating func optionalPositional() -> String? {
    positionals.isEmpty ? nil : positionals.removeFirst()
  }

  public func flag(_ name: String) -> Bool { options[name] != nil }

  public func value(_ name: String) -> String? { options[name]?.last }

  public func values(_ name: String) -> [String] { options[name] ?? [] }

  /// An integer option's value, checked against `range`.
  public func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = value(name) else { return nil }
    return try Self.integer(text, name, in: range)
  }

  /// `text` as an integer in `range`; `what` names it in the error.
  public static func integer(_ text: String, _ what: String, in range: ClosedRange<Int>)
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
  public func keyValues(_ name: String) throws(UsageError) -> [String: String]? {
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

extension ParsedArguments {
  /// Records option `name`, one of `spec`'s spellings, under its canonical name: its value
  /// (inline, or the next word of `reader`) or, for a flag, that it was given. An option
  /// that is not repeatable given twice is a usage error.
  public mutating func record(
    _ spec: OptionSpec, as name: String, inline: String?, from reader: inout CommandLineReader
  ) throws(UsageError) {
    let key = spec.names[0]
    if !spec.repeatable && options[key] != nil { throw UsageError("\(key) given more than once") }
    if let placeholder = spec.value {
      options[key, default: []].append(
        try reader.value(of: name, inline: inline, placeholder: placeholder))
    } else {
      try CommandLineReader.noValue(name, inline: inline)
      options[key] = [""]
    }
  }

  /// Reads the words of a command without subcommands: each an option of `specs` or a
  /// positional.
  public static func read(_ words: [String], specs: [OptionSpec]) throws(UsageError)
    -> ParsedArguments
  {
    var parsed = ParsedArguments()
    var reader = CommandLineReader(words)
    while let word = reader.next() {
      switch word {
      case .option(let name, let inline):
        guard let spec = specs.first(where: { $0.names.contains(name) }) else {
          throw UsageError("unknown option '\(name)'")
        }
        try parsed.record(spec, as: name, inline: inline, from: &reader)
      case .positional(let argument):
        parsed.positionals.append(argument)
      }
    }
    return parsed
  }
}
