import LabelCommandLine
import LabelCore

/// `labelctl jobs`: list and show print jobs.
struct JobsCommand: CommandGroup {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "jobs",
      abstract: "List and inspect print jobs.",
      usage: [
        "labelctl jobs [list] [--printer PRINTER] [--state STATE]... [--owner USER]",
        "                     [--since TIME]",
        "labelctl jobs show JOB",
      ],
      discussion: """
        Job states are IPP's: pending, held, processing, then one of completed, canceled
        or aborted. Every accepted job reaches one of those, across restarts too.
        """,
      subcommands: [JobsList.self, JobsShow.self],
      defaultSubcommand: JobsList.self)
  }

  static func table(_ jobs: [Job]) -> String {
    var table = Table(
      "ID", "PRINTER", "STATE", "PRINTED", "OWNER", "FROM", "CREATED", "MESSAGE")
    for j in jobs {
      table.add(
        String(j.id), j.printer, j.state.rawValue, Output.progress(j), Output.user(j.owner.uid),
        origin(j.origin), Output.time(j.createdAt), j.error?.message ?? "")
    }
    return table.text
  }

  /// Where a job came from, in a word or two: `socket`, `web counter-ipad`, `ipp alice`.
  static func origin(_ origin: JobOrigin?) -> String {
    guard let origin else { return JobOrigin.Kind.socket.rawValue }
    return [origin.kind.rawValue, origin.user].compactMap { $0 }.joined(separator: " ")
  }

  static func details(_ j: Job) -> String {
    var pairs = [
      ("Job", String(j.id)), ("Printer", j.printer), ("State", j.state.rawValue),
      ("Printed", "\(j.printed) of \(Output.copies(j.copies))"),
      ("Owner", Output.userAndUID(j.owner.uid)), ("From", origin(j.origin)),
      ("Created", Output.time(j.createdAt)), ("Updated", Output.time(j.updatedAt)),
    ]
    if let name = j.origin?.name { pairs.insert(("Name", name), at: 1) }
    if let error = j.error {
      pairs.append(("Reason", error.reason.rawValue))
      pairs.append(("Message", error.message))
    }
    return Output.fields(pairs)
  }

  /// A job id from the command line.
  static func id(_ text: String) throws(UsageError) -> Int {
    try ParsedArguments.integer(text, "JOB", in: 1...Int.max)
  }
}

struct JobsList: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list", abstract: "List print jobs, oldest first (jobs.list).",
      usage: [
        "labelctl jobs [list] [--printer PRINTER] [--state STATE]... [--owner USER]",
        "                     [--since TIME]",
      ],
      discussion: "The list comes from labeld in pages of \(Context.pageSize); a long one shows\n"
        + "its progress on standard error.",
      options: [
        OptionSpec("--printer", value: "PRINTER", help: "Only jobs of PRINTER."),
        OptionSpec(
          "--state", value: "STATE", repeatable: true,
          help: "Only jobs in STATE: pending, held, processing, completed, canceled or "
            + "aborted. Repeat it, or separate states with commas, for several."),
        OptionSpec(
          "--owner", value: "USER", help: "Only jobs submitted by USER, a user name or uid."),
        OptionSpec(
          "--since", value: "TIME",
          help: "Only jobs created at or after TIME, an RFC 3339 time such as "
            + "2026-12-01T09:00:00Z."),
      ])
  }

  var printer: String?
  var states: [JobState] = []
  var owner: Int?
  var since: String?

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    printer = arguments.value("--printer")
    if let user = arguments.value("--owner") {
      guard let uid = Output.uid(user) else { throw UsageError("--owner: no user '\(user)'") }
      owner = Int(uid)
    }
    since = arguments.value("--since")
    for item in arguments.values("--state") {
      for name in item.split(separator: ",") {
        guard let state = JobState(rawValue: String(name)) else {
          let known = JobState.allCases.map(\.rawValue).joined(separator: ", ")
          throw UsageError("unknown job state '\(name)' (one of: \(known))")
        }
        states.append(state)
      }
    }
  }

  func run(_ context: Context) throws(CommandError) {
    var params: [String: JSONValue] = [:]
    if let printer { params["printer"] = .string(printer) }
    if !states.isEmpty { params["states"] = .array(states.map { .string($0.rawValue) }) }
    if let owner { params["owner"] = .int(owner) }
    if let since { params["since"] = .string(since) }
    try context.showAll(.jobsList, params, key: "jobs", as: JobsResult.self) {
      $0.jobs.isEmpty ? "No jobs.\n" : JobsCommand.table($0.jobs)
    }
  }
}

struct JobsShow: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "show", abstract: "Show one job in full (jobs.get).",
      usage: ["labelctl jobs show JOB"])
  }

  var job: Int

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    job = try JobsCommand.id(try arguments.positional("JOB"))
  }

  func run(_ context: Context) throws(CommandError) {
    try context.show(.jobsGet, ["job": .int(job)], as: JobResult.self) {
      JobsCommand.details($0.job)
    }
  }
}

/// `labelctl cancel JOB`.
struct CancelCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "cancel",
      abstract: "Cancel a print job (jobs.cancel).",
      usage: ["labelctl cancel JOB"],
      discussion: """
        A waiting job is canceled at once; a printing one stops after the label in
        progress. Only the job's owner (or root) may cancel it (else error 1005).
        Canceling a job that has already ended reports its final state.
        """)
  }

  var job: Int

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    job = try JobsCommand.id(try arguments.positional("JOB"))
  }

  func run(_ context: Context) throws(CommandError) {
    try context.show(.jobsCancel, ["job": .int(job)], as: JobResult.self) {
      "job \($0.job.id): \($0.job.state.rawValue) (\(Output.progress($0.job)) printed)\n"
    }
  }
}
