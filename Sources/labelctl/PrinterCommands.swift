import LabelCommandLine
import LabelCore

/// `labelctl printers`: list, show, refresh.
struct PrintersCommand: CommandGroup {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "printers",
      abstract: "List and inspect printers.",
      usage: [
        "labelctl printers [list]", "labelctl printers show PRINTER",
        "labelctl printers refresh",
      ],
      discussion: """
        Printer ids are stable across restarts and re-plugging: usb:VVVV:PPPP:SERIAL,
        cups:QUEUE, sim:NAME. A printer with a fault (REASONS) still accepts jobs; they
        wait until the fault clears.
        """,
      subcommands: [PrintersList.self, PrintersShow.self, PrintersRefresh.self],
      defaultSubcommand: PrintersList.self)
  }

  /// The printers table shared by `list` and `refresh`.
  static func table(_ printers: [Printer]) -> String {
    var table = Table("ID", "NAME", "LANGUAGE", "DPI", "STATE", "REASONS", "MEDIA")
    for p in printers {
      let state = p.accepting ? p.state.rawValue : "\(p.state.rawValue) (not accepting)"
      table.add(
        p.id, p.name, p.languageName, String(p.dpi), state, Output.reasons(p.reasons),
        Output.media(p.media))
    }
    return table.text
  }

  /// Every field of one printer.
  static func details(_ p: Printer) -> String {
    Output.fields([
      ("ID", p.id), ("Name", p.name), ("Model", p.model), ("Transport", p.transport.rawValue),
      ("Language", p.languageName), ("DPI", String(p.dpi)), ("State", p.state.rawValue),
      ("Reasons", Output.reasons(p.reasons)), ("Media", Output.media(p.media)),
      ("URI", p.uri ?? "-"), ("Accepting jobs", p.accepting ? "yes" : "no"),
    ])
  }
}

struct PrintersList: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list", abstract: "List printers (printers.list).",
      usage: ["labelctl printers [list]"])
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    try context.show(.printersList, as: PrintersResult.self) {
      $0.printers.isEmpty ? "No printers.\n" : PrintersCommand.table($0.printers)
    }
  }
}

struct PrintersShow: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "show", abstract: "Show one printer in full (printers.get).",
      usage: ["labelctl printers show PRINTER"])
  }

  var printer: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    printer = try arguments.positional("PRINTER")
  }

  func run(_ context: Context) throws(CommandError) {
    try context.show(.printersGet, ["printer": .string(printer)], as: PrinterResult.self) {
      PrintersCommand.details($0.printer)
    }
  }
}

struct PrintersRefresh: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "refresh",
      abstract: "Discover printers afresh and list them (printers.refresh).",
      usage: ["labelctl printers refresh"])
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    try context.show(.printersRefresh, as: PrintersResult.self) {
      $0.printers.isEmpty ? "No printers.\n" : PrintersCommand.table($0.printers)
    }
  }
}

/// `labelctl simulate PRINTER FAULT|clear`: inject a fault into a simulated printer.
struct SimulateCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "simulate",
      abstract: "Inject a fault into a simulated (sim:) printer, or clear it "
        + "(printers.simulate).",
      usage: ["labelctl simulate PRINTER FAULT", "labelctl simulate PRINTER clear"],
      discussion: """
        The printer raises a printerError alert for the fault, as a real one would, and
        jobs wait until 'labelctl simulate PRINTER clear'. jobRejected and jobAborted
        abort the job at hand instead. Only sim: printers can be told what to fail with;
        others answer error 1007.

        FAULT is one of:
        """ + "\n" + faultList)
  }

  /// The Reason cases with their phrases, one per line.
  static var faultList: String {
    Reason.allCases.map { reason in
      let name = "  " + reason.rawValue
      return name + String(repeating: " ", count: max(2, 20 - name.count)) + reason.phrase
    }.joined(separator: "\n")
  }

  var printer: String
  /// nil clears the printer's faults.
  var fault: Reason?

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    printer = try arguments.positional("PRINTER")
    let name = try arguments.positional("FAULT")
    if name == "clear" || name == "none" {
      fault = nil
    } else if let reason = Reason(rawValue: name) {
      fault = reason
    } else {
      let known = Reason.allCases.map(\.rawValue).joined(separator: ", ")
      throw UsageError("unknown fault '\(name)' (one of: clear, \(known))")
    }
  }

  func run(_ context: Context) throws(CommandError) {
    let params: [String: JSONValue] = [
      "printer": .string(printer), "fault": fault.map { .string($0.rawValue) } ?? .null,
    ]
    try context.show(.printersSimulate, params, as: PrinterResult.self) {
      let p = $0.printer
      return "\(p.id): \(p.state.rawValue), faults: \(Output.reasons(p.reasons))\n"
    }
  }
}
