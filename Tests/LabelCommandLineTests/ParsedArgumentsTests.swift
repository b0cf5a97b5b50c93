import LabelCommandLine
import Testing

/// A command without subcommands read against its options (labeld-bench's way; labelctl
/// records each option the same way).
@Suite struct ParsedArgumentsTests {
  static let specs = [
    OptionSpec("--labeld", value: "PATH", help: ""),
    OptionSpec("--only", "-o", value: "NAMES", help: ""),
    OptionSpec("--env", value: "K=V", repeatable: true, help: ""),
    OptionSpec("--list", help: ""),
  ]

  @Test func optionsAndPositionals_underTheirCanonicalNames() throws {
    let parsed = try ParsedArguments.read(
      [
        "-o", "a,b", "--labeld=/x/labeld", "--env", "A=1", "--env=B=2", "--list", "extra", "--",
        "--list",
      ],
      specs: Self.specs)
    #expect(parsed.value("--only") == "a,b")
    #expect(parsed.value("--labeld") == "/x/labeld")
    #expect(try parsed.keyValues("--env") == ["A": "1", "B": "2"])
    #expect(parsed.flag("--list"))
    #expect(parsed.positionals == ["extra", "--list"])
  }

  @Test func mistakes_areUsageErrors() {
    let cases: [([String], String)] = [
      (["--nope"], "unknown option '--nope'"),
      (["--labeld"], "--labeld needs a value (PATH)"),
      (["--list=yes"], "--list takes no value"),
      (["--only", "a", "-o", "b"], "--only given more than once"),
    ]
    for (words, message) in cases {
      #expect(throws: UsageError(message), "\(words)") {
        try ParsedArguments.read(words, specs: Self.specs)
      }
    }
  }
}
