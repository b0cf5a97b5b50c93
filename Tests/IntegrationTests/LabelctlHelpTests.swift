import LabelTestKit
import Testing

/// `--help` of the built labelctl: every command has a page, and it is the same page
/// however it is asked for. No daemon is needed.
@Suite struct LabelctlHelpTests {
  @Test func rootHelp_listsEveryCommandAndExitStatuses() throws {
    let run = try labelctl(["--help"])
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("Usage: labelctl "))
    for command in [
      "status", "printers", "print", "jobs", "cancel", "products", "templates", "render",
      "preview", "alerts", "simulate", "help",
    ] {
      #expect(run.stdout.contains("\n  \(command) "), "root help lacks \(command)")
    }
    #expect(run.stdout.contains("69  labeld cannot be reached"))
    #expect(run.stdout.contains("--version"))
  }

  @Test(arguments: [
    ["status"], ["printers"], ["printers", "show"], ["print"], ["jobs"], ["cancel"],
    ["products", "save"], ["templates", "save"], ["render"], ["preview"], ["alerts"],
    ["alerts", "dismiss"], ["simulate"],
  ])
  func subcommandHelp_isItsUsageAndMatchesHelpCommand(_ words: [String]) throws {
    let flag = try labelctl(words + ["--help"])
    #expect(flag.status == 0)
    #expect(flag.stdout.hasPrefix("Usage: labelctl \(words.joined(separator: " "))"))
    #expect(flag.stdout.contains("Global options"))
    let help = try labelctl(["help"] + words)
    #expect(help.status == 0)
    #expect(help.stdout == flag.stdout)
  }

  @Test func help_beforeTheCommandAndWithMissingArguments_stillShowsHelp() throws {
    // -h before the subcommand, and a command whose required argument is missing.
    let early = try labelctl(["-h", "print"])
    let late = try labelctl(["print", "--help"])
    #expect(early.status == 0 && late.status == 0)
    #expect(early.stdout == late.stdout)
    #expect(late.stdout.contains("--wait"))
  }

  @Test func simulateHelp_listsEveryFault() throws {
    let run = try labelctl(["simulate", "--help"])
    for fault in ["offline", "mediaEmpty", "coverOpen", "jobRejected", "communication"] {
      #expect(run.stdout.contains("\n  \(fault) "), "simulate help lacks \(fault)")
    }
  }

  @Test func helpLines_fitEightyColumns() throws {
    for words in [[], ["print"], ["products", "save"], ["render"], ["alerts"]] {
      let run = try labelctl(words + ["--help"])
      let wide = run.stdout.split(separator: "\n").filter { $0.count > 80 }.map(String.init)
      #expect(wide.isEmpty, "\(words): \(wide)")
    }
  }

  @Test func version_printsVersion() throws {
    let run = try labelctl(["--version"])
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix("labelctl "))
  }
}
