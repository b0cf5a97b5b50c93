import LabelCommandLine
import LabelCore

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
        With --follow, labelctl prints each alert event as one line as it arrives (with
        --json, one JSON object per line) and runs until interrupted. If it falls behind
        and the daemon drops it, it reconnects and resumes where it stopped, losing
        nothing. It exits 69 when the daemon goes away.
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

  /// Subscribes and prints events until the daemon goes away. On overflow it resubscribes
  /// from the seq the daemon names, which replays exactly what was not delivered.
  /// (`subscribe` with `since` replays without gap or duplicate, so nothing is lost.)
  private func followChannel(_ context: Context) throws(CommandError) -> Never {
    var since = self.since.map { UInt64($0) }
    while true {
      var params: [String: JSONValue] = ["topics": ["alerts"]]
      if let since { params["since"] = .int(Int(since)) }
      let client = try context.reconnect()
      let subscribed = try context.decode(
        SubscribeResult.self, from: try context.call(.subscribe, params))
      if subscribed.gap == true, let since {
        Output.error(
          "labelctl: not all events after seq \(since) are still retained; some are lost")
      }
      // Alerts may be hours apart: wait for the next one without a timeout.
      client.timeout = nil
      var delivered = false
      resubscribe: while true {
        let notification: (method: String, params: JSONValue)
        do {
          notification = try context.nextNotification()
        } catch {
          // Closed under us: the daemon restarted, or dropped us before we read its
          // overflow line. Resume once from the last seq printed; a daemon that is gone
          // fails the reconnect (exit 69), and one that sends nothing ends it here.
          guard case .disconnected = error, delivered else { throw error }
          break resubscribe
        }
        delivered = true
        switch notification.method {
        case NotificationMethod.alert.rawValue:
          if context.json {
            print(Output.compactJSON(notification.params))
          } else {
            print(Self.line(try context.decode(AlertEvent.self, from: notification.params)))
          }
          since = notification.params["seq"]?.intValue.map { UInt64($0) } ?? since
        case NotificationMethod.overflow.rawValue:
          let overflow = try context.decode(OverflowParams.self, from: notification.params)
          since = overflow.seq
          break resubscribe
        default: continue
        }
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
