import LabelCommandLine
import LabelCore
import LabelKit
import LabelWire

/// `labelctl alerts`: the active alerts, the live channel, dismissing.
struct AlertsCommand: CommandGroup {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "alerts",
      abstract: "Show active alerts, follow the alert channel, or dismiss an alert.",
      usage: [
        "labelctl alerts [list]", "labelctl alerts [list] --follow [--since SEQ]",
        "labelctl alerts dismiss ID",
      ],
      discussion: """
        Every printer failure (printerError) and every failure to keep data
        (saveError) is an alert on one channel, numbered by one increasing seq. An
        alert's ID names its subject (printerError:sim:zebra); a newer event with the
        same ID replaces the older one. Its state goes active, then cleared (the
        condition went away) or dismissed (someone acknowledged it).
        """,
      subcommands: [AlertsList.self, AlertsDismiss.self],
      defaultSubcommand: AlertsList.self)
  }
}

struct AlertsList: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "list",
      abstract: "List active alerts (alerts.active), or follow the channel (subscribe).",
      usage: ["labelctl alerts [list]", "labelctl alerts [list] --follow [--since SEQ]"],
      discussion: """
        With --follow, labelctl first prints the alerts active now, then each alert
        event as one line as it arrives (with --json, one JSON object per line), and runs
        until interrupted. If it falls behind and the daemon drops it, it reconnects and
        resumes where it stopped, losing nothing. It exits 69 when the daemon goes away.
        """,
      options: [
        OptionSpec("--follow", "-f", help: "Print alert events as they happen."),
        OptionSpec(
          "--since", value: "SEQ",
          help: "With --follow, first replay the retained events after SEQ (0 for all)."),
      ])
  }

  var follow: Bool
  var since: Int?

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    follow = arguments.flag("--follow")
    since = try arguments.int("--since", in: 0...Int.max)
  }

  func validate() throws(UsageError) {
    if since != nil && !follow { throw UsageError("--since goes with --follow") }
  }

  func run(_ context: Context) throws(CommandError) {
    if follow { try followChannel(context) }
    try context.show(.alertsActive, as: AlertsResult.self) { result in
      if result.alerts.isEmpty { return "No active alerts.\n" }
      var table = Table("SEQ", "KIND", "ID", "REASON", "JOB/KEY", "MESSAGE")
      for event in result.alerts {
        let (reason, subject) = Self.reasonAndSubject(event.alert)
        table.add(
          String(event.seq), event.alert.kind, event.id, reason, subject, event.alert.message)
      }
      return table.text
    }
  }

  /// The REASON and JOB/KEY columns of an alert.
  static func reasonAndSubject(_ alert: Alert) -> (String, String) {
    switch alert {
    case .printerError(let d): return (d.reason.rawValue, d.job.map { "job \($0)" } ?? "-")
    case .saveError(let d): return (d.reason.rawValue, "\(d.entity.rawValue) \(d.key)")
    }
  }

  /// One event as a line: "12 2025-01-01T10:00:00Z active printerError:sim:zebra
  /// (mediaEmpty, job 3): out of labels".
  static func line(_ event: AlertEvent) -> String {
    let (reason, subject) = reasonAndSubject(event.alert)
    let detail = subject == "-" ? reason : "\(reason), \(subject)"
    return "\(event.seq) \(Output.time(event.time)) \(event.state.rawValue) \(event.id) "
      + "(\(detail)): \(event.alert.message)"
  }

  /// Prints the channel's events until the daemon goes away, through LabelKit's stream:
  /// without --since the alerts active now come first (merged with live ones by seq),
  /// after an overflow or a restart it resumes from the last seq printed, so nothing is
  /// lost or printed twice; a gap is said on standard error.
  private func followChannel(_ context: Context) throws(CommandError) -> Never {
    let stream = BlockingAlertStream(
      socketPaths: context.socketPaths, since: since.map { UInt64($0) })
    while true {
      let update: AlertUpdate
      do {
        update = try stream.next()
      } catch {
        throw CommandError(error)
      }
      switch update {
      case .event(let event):
        if context.json {
          print(Output.compactJSON((try? LabelJSON.value(event)) ?? .null))
        } else {
          print(Self.line(event))
        }
      case .gap(let gap):
        let after = gap.after.map { "after seq \($0) " } ?? ""
        var text = "labelctl: labeld no longer holds every event \(after)(it is at \(gap.seq)); "
        text += "some are lost"
        if !gap.ended.isEmpty {
          text += "; ended meanwhile: " + gap.ended.map(\.id).joined(separator: ", ")
        }
        Output.error(text)
      }
    }
  }
}

struct AlertsDismiss: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "dismiss",
      abstract: "Acknowledge an active alert (alerts.dismiss).",
      usage: ["labelctl alerts dismiss ID"],
      discussion: """
        ID is the alert's id as 'labelctl alerts' shows it (printerError:sim:zebra). The
        alert's state becomes dismissed; the condition itself is not changed. Exits 1
        when no active alert has that id.
        """)
  }

  var id: String

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {
    id = try arguments.positional("ID")
  }

  func run(_ context: Context) throws(CommandError) {
    let result = try context.call(.alertsDismiss, ["id": .string(id)])
    let dismissed = try context.decode(DismissResult.self, from: result).dismissed
    if context.json {
      print(Output.json(result))
    } else if dismissed {
      print("dismissed \(id)")
    }
    if !dismissed { throw .failed("no active alert with id \(id)") }
  }
}
