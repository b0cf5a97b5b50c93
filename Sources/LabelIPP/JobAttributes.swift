import LabelCUPS
import LabelCore

/// A labeld job as IPP shows it (RFC 8011 §5.3): its state as IPP's, why, and its times in
/// the printer's clock (epoch seconds, as CUPS keeps printer-up-time).
struct JobAttributes {
  var job: Job
  var printerURI: String
  /// The job waits for its document (Create-Job without Send-Document yet).
  var incoming: Bool
  /// Its printer's faults, while it is held by them.
  var printerReasons: [Reason]
  var now: Int
  /// The job's name and user are not the caller's to see: "job N" and "anonymous" instead.
  var hidesNames = false

  var uri: String { "\(printerURI)/\(job.id)" }

  var all: [IPPAttribute] {
    let created = Int(job.createdAt.timeIntervalSince1970)
    let changed = Int(job.updatedAt.timeIntervalSince1970)
    var out: [IPPAttribute] = [
      IPPAttribute("copies", .integer(Int32(clamping: job.copies))),
      IPPAttribute("date-time-at-creation", .dateTime(created)),
      IPPAttribute(
        "date-time-at-completed", job.state.isTerminal ? .dateTime(changed) : .outOfBand(.noValue)),
      IPPAttribute(
        "date-time-at-processing",
        job.state == .pending ? .outOfBand(.noValue) : .dateTime(changed)),
      IPPAttribute("job-id", .integer(Int32(clamping: job.id))),
      IPPAttribute("job-impressions-completed", .integer(Int32(clamping: job.printed))),
      IPPAttribute("job-name", .name(clipped(name, bytes: 255))),
      IPPAttribute("job-originating-user-name", .name(clipped(user, bytes: 255))),
      IPPAttribute("job-printer-up-time", .integer(Int32(clamping: now))),
      IPPAttribute("job-printer-uri", .uri(printerURI)),
      IPPAttribute("job-state", .enumeration(job.state.ipp)),
      IPPAttribute("job-state-reasons", reasons.map { .keyword($0) }),
      IPPAttribute("job-uri", .uri(uri)),
      IPPAttribute("number-of-documents", .integer(incoming ? 0 : 1)),
      IPPAttribute("time-at-creation", .integer(Int32(clamping: created))),
      IPPAttribute(
        "time-at-completed",
        job.state.isTerminal ? .integer(Int32(clamping: changed)) : .outOfBand(.noValue)),
      IPPAttribute(
        "time-at-processing",
        job.state == .pending ? .outOfBand(.noValue) : .integer(Int32(clamping: changed))),
    ]
    if let message {
      out.append(IPPAttribute("job-state-message", .text(clipped(message, bytes: 1023))))
    }
    return out
  }

  /// What a job-creation answer carries (RFC 8011 §4.2.1.2).
  var created: [IPPAttribute] {
    var out = [
      IPPAttribute("job-id", .integer(Int32(clamping: job.id))),
      IPPAttribute("job-state", .enumeration(job.state.ipp)),
      IPPAttribute("job-state-reasons", reasons.map { .keyword($0) }),
      IPPAttribute("job-uri", .uri(uri)),
    ]
    if let message {
      out.append(IPPAttribute("job-state-message", .text(clipped(message, bytes: 1023))))
    }
    return out
  }

  var name: String {
    if hidesNames { return "job \(job.id)" }
    return job.origin?.name ?? "job \(job.id)"
  }

  var user: String {
    if hidesNames { return "anonymous" }
    if let user = job.origin?.user, !user.isEmpty { return user }
    return "uid \(job.owner.uid)"
  }

  /// job-state-reasons (RFC 8011 §5.3.8, PWG 5100.x).
  var reasons: [String] {
    switch job.state {
    case .pending:
      if incoming { return ["job-incoming"] }
      return printerReasons.isEmpty ? ["none"] : ["printer-stopped"]
    case .held:
      // Held by its printer's faults, or by its document, which labeld's store cannot read
      // back just now (retried: RFC 8011's resources-are-not-ready).
      return printerReasons.isEmpty ? ["resources-are-not-ready"] : ["printer-stopped"]
    case .processing: return ["job-printing"]
    case .completed: return ["job-completed-successfully"]
    case .canceled: return ["job-canceled-by-user"]
    case .aborted:
      switch job.error?.document {
      case .formatError: return ["document-format-error", "aborted-by-system"]
      case .unprintable: return ["document-unprintable-error", "aborted-by-system"]
      case nil: return ["aborted-by-system"]
      }
    }
  }

  var message: String? {
    if let error = job.error { return error.message }
    switch job.state {
    case .held, .pending:
      guard !printerReasons.isEmpty else { return nil }
      return (job.state == .held ? "stopped: " : "waiting: ")
        + printerReasons.map(\.phrase).joined(separator: "; ")
    case .completed: return "\(job.printed) of \(job.copies) printed"
    default: return nil
    }
  }
}
