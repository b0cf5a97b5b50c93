import LabelCore

/// `/metrics` in the Prometheus text exposition format (version 0.0.4): what labeld has
/// now, each family with its HELP and TYPE, labels escaped as the format says.
package struct MetricsSnapshot: Sendable {
  package var printers: [Printer] = []
  package var alerts: [AlertEvent] = []
  /// Jobs not ended, by state (held in memory: the cost does not grow with history).
  package var unfinishedJobs: [JobState: Int] = [:]
  package var clients = 0
  package var storeBytes: Int?
  /// Since start-up.
  package var copiesPrinted = 0
  package var jobsEnded: [JobState: Int] = [:]
  /// Submits refused at the waiting queue's bounds since start-up, by bound.
  package var refusedJobs: [QueueBound: Int] = [:]
  /// Per printer, whole seconds since the oldest of its jobs not ended was submitted (no
  /// entry: none waits). Every printer in `printers` is shown, 0 when nothing waits.
  package var oldestJobSeconds: [String: Int] = [:]
  /// Clients sent `overflow` and disconnected since start-up (they fell behind).
  package var clientsOverflowed = 0
  package var latency: (cumulative: [(bound: Double, count: Int)], count: Int, sum: Double) = (
    [], 0, 0
  )
  package init() {}

  package func text() -> [UInt8] {
    var out = ""
    func family(_ name: String, _ type: String, _ help: String) {
      out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }
    family("labeld_printers", "gauge", "Printers known, by state.")
    for state in [PrinterState.idle, .processing, .stopped] {
      out +=
        "labeld_printers{state=\"\(state.rawValue)\"} \(printers.filter { $0.state == state }.count)\n"
    }
    family("labeld_printer_up", "gauge", "1 when the printer can print now (no fault).")
    for p in printers.sorted(by: { $0.id < $1.id }) {
      out += "labeld_printer_up{printer=\"\(Self.escape(p.id))\"} \(p.reasons.isEmpty ? 1 : 0)\n"
    }
    family("labeld_printer_labels_remaining", "gauge", "Labels left on the roll, as reported.")
    for p in printers.sorted(by: { $0.id < $1.id }) {
      if let n = p.labelsRemaining {
        out += "labeld_printer_labels_remaining{printer=\"\(Self.escape(p.id))\"} \(n)\n"
      }
    }
    family("labeld_alerts_active", "gauge", "Active alerts, by kind and reason.")
    var byReason: [String: Int] = [:]
    for event in alerts where event.state == .active {
      let reason: String
      switch event.alert {
      case .printerError(let d): reason = d.reason.rawValue
      case .saveError(let d): reason = d.reason.rawValue
      }
      byReason["kind=\"\(event.alert.kind)\",reason=\"\(Self.escape(reason))\"", default: 0] += 1
    }
    for (labels, n) in byReason.sorted(by: { $0.key < $1.key }) {
      out += "labeld_alerts_active{\(labels)} \(n)\n"
    }
    family("labeld_jobs", "gauge", "Jobs not ended, by state.")
    for state in [JobState.pending, .held, .processing] {
      out += "labeld_jobs{state=\"\(state.rawValue)\"} \(unfinishedJobs[state] ?? 0)\n"
    }
    family(
      "labeld_printer_oldest_job_seconds", "gauge",
      "Seconds since the oldest job not ended (waiting, held or printing) on the printer was "
        + "submitted; 0 when none.")
    for id in Set(printers.map(\.id)).union(oldestJobSeconds.keys).sorted() {
      let seconds = oldestJobSeconds[id] ?? 0
      out += "labeld_printer_oldest_job_seconds{printer=\"\(Self.escape(id))\"} \(seconds)\n"
    }
    family("labeld_jobs_ended_total", "counter", "Jobs ended since labeld started, by end state.")
    for state in [JobState.completed, .canceled, .aborted] {
      out += "labeld_jobs_ended_total{state=\"\(state.rawValue)\"} \(jobsEnded[state] ?? 0)\n"
    }
    family(
      "labeld_jobs_refused_total", "counter",
      "Submits refused since labeld started because the waiting queue was full (error 1008, "
        + "IPP server-error-too-many-jobs), by the bound met.")
    for bound in QueueBound.allCases {
      out += "labeld_jobs_refused_total{bound=\"\(bound.rawValue)\"} \(refusedJobs[bound] ?? 0)\n"
    }
    family(
      "labeld_copies_printed_total", "counter", "Copies printers confirmed since labeld started.")
    out += "labeld_copies_printed_total \(copiesPrinted)\n"
    family("labeld_request_seconds", "histogram", "Time from a request read to its answer.")
    for (bound, count) in latency.cumulative {
      out += "labeld_request_seconds_bucket{le=\"\(bound)\"} \(count)\n"
    }
    out += "labeld_request_seconds_bucket{le=\"+Inf\"} \(latency.count)\n"
    out += "labeld_request_seconds_sum \(latency.sum)\n"
    out += "labeld_request_seconds_count \(latency.count)\n"
    family("labeld_clients", "gauge", "Connected clients (Unix socket and WebSocket).")
    out += "labeld_clients \(clients)\n"
    family(
      "labeld_clients_overflowed_total", "counter",
      "Clients sent an overflow notification and disconnected since labeld started: they fell "
        + "behind by --max-queued-messages, or retention dropped events they had yet to replay.")
    out += "labeld_clients_overflowed_total \(clientsOverflowed)\n"
    if let storeBytes {
      family("labeld_store_bytes", "gauge", "Size of the state database file.")
      out += "labeld_store_bytes \(storeBytes)\n"
    }
    return Array(out.utf8)
  }

  /// A label value: backslash, double quote and newline escaped.
  static func escape(_ value: String) -> String {
    var out = ""
    for c in value {
      switch c {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      default: out.append(c)
      }
    }
    return out
  }
}
