import FoundationEssentials
import LabelCommandLine
import LabelCore
import LabelWire

/// `labelctl print`: submit a job, and with `--wait` follow it to its end.
struct PrintCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "print",
      abstract: "Print a file, or a template filled from a product or data (jobs.submit).",
      usage: [
        "labelctl print PRINTER --file PATH [--format FORMAT] [--scaling MODE]",
        "               [--copies N] [--wait]",
        "labelctl print PRINTER --template NAME (--sku SKU | --data KEY=VALUE...)",
        "               [--copies N] [--wait]",
      ],
      discussion: """
        The job is accepted once it is stored, and printed in order with the printer's
        other jobs. A printer with a fault still accepts it: the job waits until the
        fault clears ('labelctl alerts' shows what it waits for).

        With --wait, labelctl follows the job to its end: on a terminal it keeps one
        progress line up to date ("job 7: processing 2/5"), otherwise it prints one line
        per change. It exits 0 when the job completed and 1 when it was canceled or
        aborted. With --json it prints the final job instead.
        """,
      options: [
        OptionSpec(
          "--file", value: "PATH",
          help: "Print the bytes of PATH ('-' reads stdin), in the printer's own language "
            + "(ZPL, Brother QL raster, TSPL, EPL2, DYMO LabelWriter), or a PNG, PDF, JPEG "
            + "or raster document, see --format. On a printer with a red/black roll, red "
            + "pixels of a PNG print red."),
        OptionSpec(
          "--format", value: "FORMAT",
          help: "What --file holds: native (default), png (one pixel per dot, not scaled), "
            + "or a document whose pages are each placed on one label: pdf, jpeg, "
            + "pwg-raster, urf."),
        OptionSpec(
          "--scaling", value: "MODE",
          help: "How a document's page meets the label (IPP print-scaling): auto "
            + "(default: at its own size if it fits, else fill), auto-fit (at its own size "
            + "if it fits, else fit), fit (the whole page, as large as fits), fill (the "
            + "whole label covered, the page cut), none (its own size, centred)."),
        OptionSpec(
          "--template", value: "NAME", help: "Print the template NAME ('labelctl templates')."),
        OptionSpec("--sku", value: "SKU", help: "Fill the template from the product SKU."),
        OptionSpec(
          "--data", value: "KEY=VALUE", repeatable: true,
          help: "Fill the template's ${KEY} with VALUE (repeatable), instead of --sku."),
        OptionSpec("--copies", value: "N", help: "Print N copies, 1 to 999 (default 1)."),
        OptionSpec("--wait", help: "Follow the job until it completes, is canceled or aborts."),
      ])
  }

  var printer: String
  var file: String?
  var format: String?
  var scaling: String?
  var template: String?
  var sku: String?
  var data: [String: String]?
  var copies: Int?
  var wait: Bool

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    printer = try arguments.positional("PRINTER")
    file = arguments.value("--file")
    format = arguments.value("--format")
    scaling = arguments.value("--scaling")
    template = arguments.value("--template")
    sku = arguments.value("--sku")
    data = try arguments.keyValues("--data")
    copies = try arguments.int("--copies", in: 1...999)
    wait = arguments.flag("--wait")
  }

  /// Documents placed page by page on labels (jobs.submit's document formats).
  static let documents = ["pdf", "jpeg", "pwg-raster", "urf"]
  static let formats = ["native", "png"] + documents

  func validate() throws(UsageError) {
    switch (file, template) {
    case (nil, nil): throw UsageError("give --file PATH or --template NAME")
    case (.some, .some): throw UsageError("give --file or --template, not both")
    case (.some, nil):
      if sku != nil || data != nil { throw UsageError("--sku and --data need --template") }
      if let format, !Self.formats.contains(format) {
        throw UsageError(
          "--format must be one of \(Self.formats.joined(separator: ", ")), got \"\(format)\"")
      }
      if let scaling {
        guard Self.documents.contains(format ?? "native") else {
          throw UsageError("--scaling goes with --format pdf, jpeg, pwg-raster or urf")
        }
        guard ["auto", "auto-fit", "fit", "fill", "none"].contains(scaling) else {
          throw UsageError(
            "--scaling must be auto, auto-fit, fit, fill or none, got \"\(scaling)\"")
        }
      }
    case (nil, .some):
      if format != nil || scaling != nil {
        throw UsageError("--format and --scaling go with --file")
      }
      if (sku == nil) == (data == nil) { throw UsageError("give --sku SKU or --data KEY=VALUE") }
    }
  }

  func run(_ context: Context) throws(CommandError) {
    var params: [String: JSONValue] = ["printer": .string(printer)]
    if let copies { params["copies"] = .int(copies) }
    if let file {
      let bytes = try readInput(file)
      if bytes.isEmpty { throw .failed("\(file) is empty: nothing to print") }
      var document: [String: JSONValue] = [
        "format": .string(format ?? "native"), "data": .string(Data(bytes).base64EncodedString()),
      ]
      if let scaling { document["scaling"] = .string(scaling) }
      params["document"] = .object(document)
    } else if let template {
      params["template"] = .string(template)
      if let sku { params["sku"] = .string(sku) }
      if let data { params["data"] = .object(data.mapValues { .string($0) }) }
    }
    if wait {
      // Subscribed before submitting, on the same connection, so no change of the new
      // job can happen unseen; alerts tell what the job waits for.
      try context.call(.subscribe, ["topics": ["jobs", "alerts"]])
    }
    let result = try context.call(.jobsSubmit, params)
    let job = try context.decode(JobResult.self, from: result).job
    guard wait else {
      if context.json {
        print(Output.json(result))
      } else {
        print("job \(job.id) submitted to \(job.printer) (\(Output.copies(job.copies)))")
      }
      return
    }
    var follower = JobFollower(job: job, interactive: context.interactive, quiet: context.json)
    let final = try follower.follow(context)
    if context.json { print(Output.json(["job": try jsonValue(final)])) }
    switch final.state {
    case .completed: return
    case .canceled, .aborted, .pending, .held, .processing:
      let why = final.error.map { ": \($0.message)" } ?? ""
      throw .failed("job \(final.id) \(final.state.rawValue)\(why)")
    }
  }

  private func jsonValue(_ job: Job) throws(CommandError) -> JSONValue {
    do { return try LabelJSON.value(job) } catch { throw .failed("cannot encode job: \(error)") }
  }
}

/// Follows one job's `job` notifications to a terminal state and shows its progress:
/// a line rewritten in place on a terminal, one line per change otherwise.
struct JobFollower {
  private(set) var job: Job
  let interactive: Bool
  /// No progress output (with --json, which prints the final job instead).
  let quiet: Bool
  private var shown: String?
  /// The last "waiting" message shown, so an alert re-sent for the same fault is not
  /// repeated.
  private var waitingFor: String?

  init(job: Job, interactive: Bool, quiet: Bool) {
    self.job = job
    self.interactive = interactive
    self.quiet = quiet
  }

  mutating func follow(_ context: Context) throws(CommandError) -> Job {
    show(job)
    // End the progress line, so what follows (a shell prompt, an error) starts afresh.
    defer { if interactive && shown != nil { print("") } }
    // Waiting for a printer fault to clear may take any time: no read timeout.
    try context.connection().timeout = nil
    while !job.state.isTerminal {
      let notification = try context.nextNotification()
      switch notification.method {
      case NotificationMethod.job.rawValue:
        let update = try context.decode(Job.self, from: notification.params)
        guard update.id == job.id else { continue }
        job = update
        show(job)
      case NotificationMethod.alert.rawValue:
        let event = try context.decode(AlertEvent.self, from: notification.params)
        guard case .printerError(let d) = event.alert, d.printer == job.printer,
          d.job == nil || d.job == job.id
        else { continue }
        if event.state == .active, waitingFor != d.message {
          waitingFor = d.message
          note("waiting: \(d.message)")
        } else if event.state != .active {
          waitingFor = nil
        }
      case NotificationMethod.overflow.rawValue:
        // The daemon dropped us for falling behind: resubscribe, then catch up.
        try context.reconnect().timeout = nil
        try context.call(.subscribe, ["topics": ["jobs", "alerts"]])
        let result = try context.call(.jobsGet, ["job": .int(job.id)])
        job = try context.decode(JobResult.self, from: result).job
        show(job)
      default: continue
      }
    }
    return job
  }

  /// "job 7: processing 2/5", plus what it waits for.
  private mutating func show(_ job: Job) {
    if quiet { return }
    var line = "job \(job.id): \(job.state.rawValue) \(Output.progress(job))"
    if !job.state.isTerminal, let error = job.error { line += " (\(error.message))" }
    guard line != shown else { return }
    shown = line
    if interactive {
      // Carriage return and erase-to-end-of-line: the line is rewritten in place.
      print("\r\(line)\u{1B}[K", terminator: "")
      Output.flush()
    } else {
      print(line)
    }
  }

  /// A line of its own, keeping the progress line below it on a terminal.
  private mutating func note(_ text: String) {
    if quiet { return }
    if interactive {
      print("\r\(text)\u{1B}[K")
      if let shown { print(shown, terminator: "") }
      Output.flush()
    } else {
      print(text)
    }
  }
}
