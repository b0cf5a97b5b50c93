import LabelCommandLine
import Testing

/// The rules both executables read command lines by.
@Suite struct ReaderTests {
  static func read(_ words: [String]) -> [CommandLineWord] {
    var reader = CommandLineReader(words)
    var out: [CommandLineWord] = []
    while let word = reader.next() { out.append(word) }
    return out
  }

  @Test func options_inlineValues_andTheEndOfOptions() {
    #expect(
      Self.read(["--json", "-h", "--socket=/run/x.sock", "-", "show", "--", "--not-an-option"])
        == [
          .option(name: "--json", inline: nil), .option(name: "-h", inline: nil),
          .option(name: "--socket", inline: "/run/x.sock"), .positional("-"),
          .positional("show"), .positional("--not-an-option"),
        ])
    #expect(Self.read(["--a=b=c"]) == [.option(name: "--a", inline: "b=c")])
    #expect(Self.read(["--x="]) == [.option(name: "--x", inline: "")])
  }

  @Test func aValue_isInline_orTheNextWord_orAUsageError() throws {
    var reader = CommandLineReader(["--socket", "/tmp/s", "--state-dir"])
    guard case .option(let name, let inline) = reader.next() else {
      Issue.record("no option read")
      return
    }
    #expect(try reader.value(of: name, inline: inline, placeholder: "PATH") == "/tmp/s")
    guard case .option(let last, let none) = reader.next() else { return }
    #expect(throws: UsageError("--state-dir needs a value (DIR)")) {
      try reader.value(of: last, inline: none, placeholder: "DIR")
    }
    #expect(reader.next() == nil)
    #expect(throws: UsageError("--json takes no value")) {
      try CommandLineReader.noValue("--json", inline: "yes")
    }
  }

  @Test func help_isAskedFor_onlyBeforeTheEndOfOptions() {
    #expect(CommandLineReader.asksForHelp(["print", "-h"]))
    #expect(CommandLineReader.asksForHelp(["--help"]))
    #expect(!CommandLineReader.asksForHelp(["print", "--", "--help"]))
  }

  @Test func helpRows_wrapAtEightyColumns_andLongLabelsGetTheirOwnLine() {
    let rows = HelpText.options([
      OptionSpec("--socket", value: "PATH", help: String(repeating: "word ", count: 40)),
      OptionSpec(
        "--simulate", value: "NAME=LANGUAGE[,KEY=VALUE...]", help: "Add a simulated printer."),
      OptionSpec("--help", "-h", help: "Show help."),
    ])
    let lines = rows.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.allSatisfy { $0.count <= HelpText.width })
    #expect(lines.first?.hasPrefix("  --socket PATH           word word") == true)
    #expect(
      rows.contains(
        "  --simulate NAME=LANGUAGE[,KEY=VALUE...]\n"
          + String(repeating: " ", count: HelpText.column) + "Add a simulated printer.\n"))
    #expect(rows.contains("  -h, --help              Show help.\n"))
  }
}
