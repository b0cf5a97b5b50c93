import Foundation
import LabelCommandLine
import LabelLoad

/// labeld-bench's command line, read as labeld and labelctl read theirs (`LabelCommandLine`):
/// the same spellings (`--name value`, `--name=value`, `--`), the same usage errors (exit
/// status 64) and the same help layout.
enum BenchOptions {
  /// What a person gives.
  static let runSpecs: [OptionSpec] = [
    OptionSpec(
      "--labeld", value: "PATH",
      help: "The labeld binary to measure (default .build/release/labeld)."),
    OptionSpec(
      "--requests", value: "N",
      help: "Requests per measured row, where a section takes a count (default 2000)."),
    OptionSpec(
      "--only", value: "NAME[,NAME…]", help: "Run only these sections (--list names them)."),
    OptionSpec("--cups-only", help: "Run only the CUPS section (the same as --only cups)."),
    OptionSpec("--list", help: "List the sections with their timeouts and exit."),
    OptionSpec("--help", "-h", help: "Show this help and exit."),
  ]

  /// The soak's options (`--soak`); the runner passes them on to the child that runs it.
  static let soakSpecs: [OptionSpec] = [
    OptionSpec("--soak", help: "Run the soak instead of the sections."),
    OptionSpec("--minutes", value: "M", help: "How long the soak runs (default 30)."),
    OptionSpec("--interval", value: "S", help: "Seconds per row (default 30)."),
    OptionSpec(
      "--warmup", value: "ROWS", help: "Rows before the verdict's reference is taken (default 2)."),
    OptionSpec(
      "--window", value: "ROWS",
      help: "Rows per window whose medians the verdict compares (default 10)."),
    OptionSpec("--slow", help: "Printers print 600 labels a minute each instead of at once."),
    OptionSpec(
      "--slow-speed", value: "LABELS_PER_MIN", help: "Printers print this many labels a minute."),
    OptionSpec("--clients", value: "N", help: "Clients of the mixed load (default 16)."),
    OptionSpec(
      "--rate", value: "CALLS_PER_S", help: "Pace the clients instead of a closed loop."),
    OptionSpec(
      "--weights", value: "NAME=N,…",
      help:
        "The mix: submitNative, submitTemplate, save, renderPNG, renderNative, printersList, "
        + "jobsList, subscribeReplay."),
    OptionSpec(
      "--bytes-per-queued-job", value: "B",
      help: "RSS a queued job may account for in the verdict (default 2048)."),
    OptionSpec(
      "--journal", value: "EVENTS",
      help: "Alert events raised and cleared before the first row (default 10000; 0: none)."),
  ]

  /// Given by the runner to the process that runs one section; not for people.
  static let childSpecs: [OptionSpec] = [
    OptionSpec("--section", value: "NAME", help: "Run this one section in this process."),
    OptionSpec("--work", value: "DIR", help: "The section's work directory."),
  ]

  static let specs = runSpecs + soakSpecs + childSpecs

  static var help: String {
    HelpText.usage([
      "labeld-bench [--labeld PATH] [--requests N] [--only NAME[,NAME…]] [--list]",
      "labeld-bench --soak [--labeld PATH] [SOAK OPTIONS]",
    ]) + "\n\n"
      + HelpText.wrap(
        "Runs every benchmark section (or the named ones) against a labeld binary, each in "
          + "its own process with a timeout, and prints a Markdown report on stdout as rows "
          + "are measured; progress goes to stderr. Exits 1 when a section failed or timed "
          + "out (the report says which), 64 on a usage error.", indent: 0) + "\n\n"
      + HelpText.wrap(
        "--soak runs a mixed load (16 clients, default 30 minutes, a row every 30 s) against "
          + "a fresh labeld with two simulated printers, and ends with a verdict: PASS, or "
          + "FAIL (exit 1) naming what drifted after the warm-up rows: requests/s, judged on "
          + "the medians of windows of rows, within 10% of the run's; RSS within 10% of the "
          + "warm-up's plus --bytes-per-queued-job for each job queued since (printers slower "
          + "than the submits leave a legitimate backlog; memory may follow it, no further); "
          + "any failed call, descriptor growth, or labeld dying fails it too. Its deadline is "
          + "the minutes plus 5.", indent: 0)
      + "\n\nOptions:\n" + HelpText.options(runSpecs) + "\nSoak options:\n"
      + HelpText.options(soakSpecs)
  }

  /// The configuration the words give; a bad value is a usage error naming it.
  static func config(_ arguments: ParsedArguments) throws(UsageError) -> BenchConfig {
    var c = BenchConfig()
    if let labeld = arguments.value("--labeld") { c.labeld = labeld }
    c.requests = try arguments.int("--requests", in: 1...10_000_000) ?? c.requests
    if let work = arguments.value("--work") { c.work = URL(fileURLWithPath: work) }
    c.soakMode = arguments.flag("--soak")
    func number(_ name: String, _ range: ClosedRange<Double>) throws(UsageError) -> Double? {
      guard let text = arguments.value(name) else { return nil }
      guard let d = Double(text), range.contains(d) else {
        throw UsageError("\(name) must be a number in \(range), got \"\(text)\"")
      }
      return d
    }
    var soak = c.soak
    soak.minutes = try number("--minutes", 0.1...10_000) ?? soak.minutes
    soak.interval = try number("--interval", 1...3600) ?? soak.interval
    soak.warmup = try arguments.int("--warmup", in: 0...1000) ?? soak.warmup
    soak.window = try arguments.int("--window", in: 1...1000) ?? soak.window
    soak.journal = try arguments.int("--journal", in: 0...1_000_000) ?? soak.journal
    soak.mix.clients = try arguments.int("--clients", in: 1...1000) ?? soak.mix.clients
    soak.mix.rate = try number("--rate", 1...1_000_000) ?? soak.mix.rate
    if arguments.flag("--slow") { soak.slowSpeed = SoakOptions.defaultSlowSpeed }
    soak.slowSpeed = try number("--slow-speed", 1...10_000) ?? soak.slowSpeed
    soak.bytesPerQueuedJob =
      try number("--bytes-per-queued-job", 0...1e9) ?? soak.bytesPerQueuedJob
    if let weights = arguments.value("--weights") {
      do throws(LoadError) { try soak.mix.setWeights(weights) } catch {
        throw UsageError("--weights: \(error)")
      }
    }
    c.soak = soak
    // The soak's options, as given, for the child that runs it.
    for spec in soakSpecs where spec.names[0] != "--soak" {
      let name = spec.names[0]
      if spec.value == nil {
        if arguments.flag(name) { c.passThrough.append(name) }
      } else {
        for value in arguments.values(name) { c.passThrough += [name, value] }
      }
    }
    return c
  }
}
