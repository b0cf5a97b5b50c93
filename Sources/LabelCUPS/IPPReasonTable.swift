import LabelCore

/// The one table from what CUPS and IPP say (printer-state-reasons, job states and
/// job-state-reasons, and the few backend messages that carry meaning) to the protocol's
/// closed `Reason` set. Nothing else in labeld interprets IPP keywords.
public enum IPPReasonTable {
  /// printer-state-reasons keywords, severity suffix stripped, that are printer faults.
  /// Keywords not listed (`none`, `media-low`, `toner-low`,
  /// `cups-waiting-for-job-completed`, …) are information, not faults.
  public static let printerKeywords: [String: Reason] = [
    "media-empty": .mediaEmpty,
    "media-needed": .mediaEmpty,
    "input-tray-missing": .mediaEmpty,
    "media-jam": .mediaJam,
    "cover-open": .coverOpen,
    "door-open": .coverOpen,
    "interlock-open": .coverOpen,
    "offline": .offline,
    "connecting-to-device": .offline,
    "timed-out": .offline,
    "shutdown": .offline,
    "paused": .paused,
    "moving-to-paused": .paused,
    "marker-supply-empty": .ribbonEmpty,
    "toner-empty": .ribbonEmpty,
    "ribbon-empty": .ribbonEmpty,
    "cutter-failure": .cutterError,
    "cutter-jam": .cutterError,
    "marker-failure": .headError,
    "media-size-mismatch": .mediaMismatch,
    "media-type-mismatch": .mediaMismatch,
    "other": .unknown,
  ]

  /// The other direction, for labeld's own IPP printers: the printer-state-reasons keyword
  /// (severity suffix left to the caller) that says each fault, chosen so that reading it
  /// back through `printerKeywords` gives the same `Reason` wherever IPP has a word for it.
  /// Faults IPP has no keyword for are `other` (RFC 8011 §5.4.12), with the phrase in
  /// printer-state-message.
  public static func keyword(for reason: Reason) -> String {
    switch reason {
    case .offline, .disconnected, .notFound, .communication: "offline"
    case .mediaEmpty: "media-empty"
    case .mediaJam: "media-jam"
    case .mediaMismatch: "media-size-mismatch"
    case .coverOpen: "cover-open"
    case .ribbonEmpty: "marker-supply-empty"
    case .cutterError: "cutter-failure"
    case .headError: "marker-failure"
    case .paused: "paused"
    case .permissionDenied, .busy, .jobRejected, .jobAborted, .unknown: "other"
    }
  }

  /// job-state-reasons of a job CUPS calls completed that show nothing (or not all of it)
  /// was printed: the silent losses this project exists to surface.
  public static let notPrintedJobKeywords: Set<String> = [
    "cups-ipp-missing-job-history",
    "document-format-error",
    "document-unprintable-error",
    "unsupported-document-format",
    "document-access-error",
    "unsupported-compression",
    "compression-error",
    "job-data-insufficient",
    "aborted-by-system",
    "job-canceled-at-device",
  ]

  /// printer-state-reasons the ipp backend sets while ending a job that show the job was
  /// not printed: the printer no longer knows the job CUPS sent it (a printer restarted
  /// mid-job), yet CUPS marks the job completed. Measured with CUPS 2.4.2: the keyword is on
  /// the printer, not in the job's job-state-reasons.
  public static let notPrintedPrinterKeywords: Set<String> = ["cups-ipp-missing-job-history"]

  /// Backend messages (printer-state-message, job-printer-state-message) that say the
  /// device cannot be reached. CUPS's ipp backend reports an unreachable printer only this
  /// way: its printer-state-reasons stay `none` (measured with CUPS 2.4.2).
  public static let unreachableMessages = [
    "not responding",
    "may not exist or is unavailable",
    "unable to connect",
    "connection refused",
    "network is unreachable",
    "host is down",
    "no route to host",
  ]

  /// `media-empty-error` → `media-empty`.
  public static func stripSeverity(_ keyword: String) -> String {
    for suffix in ["-error", "-warning", "-report"] where keyword.hasSuffix(suffix) {
      return String(keyword.dropLast(suffix.count))
    }
    return keyword
  }

  /// The fault a printer-state-reasons keyword names; nil for information.
  public static func reason(printerKeyword keyword: String) -> Reason? {
    printerKeywords[stripSeverity(keyword)]
  }

  /// The faults in a printer-state-reasons list, in order, each once.
  public static func reasons(printerKeywords keywords: [String]) -> [Reason] {
    var out: [Reason] = []
    for keyword in keywords {
      if let r = reason(printerKeyword: keyword), !out.contains(r) { out.append(r) }
    }
    return out
  }

  /// True when a backend message says the device cannot be reached.
  public static func isUnreachable(message: String) -> Bool {
    let text = message.lowercased()
    return unreachableMessages.contains { text.contains($0) }
  }

  /// What a CUPS job's state and reasons mean for the labeld job that sent it.
  public enum JobOutcome: Sendable, Equatable {
    /// Not printing yet (pending, held, or stopped with its printer).
    case waiting
    case printing
    /// Completed, and its reasons do not contradict it.
    case printed
    /// Ended without printing: the fault to report and why.
    case notPrinted(Reason, String)
    /// Canceled in CUPS.
    case canceled
  }

  /// `printerReasons`: the queue's printer-state-reasons read as the job ended; nil when
  /// they could not be read. A completed job counts as printed only with that evidence:
  /// without it, it is not counted (the ipp backend reports a printer that forgot the
  /// job on the printer, not on the job).
  public static func outcome(_ job: CUPSJob, printerReasons: [String]? = []) -> JobOutcome {
    let message = job.printerMessage.isEmpty ? "" : ": \(job.printerMessage)"
    switch job.state {
    case .pending, .held, .stopped: return .waiting
    case .processing: return .printing
    case .canceled:
      if job.reasons.contains("job-canceled-at-device") {
        return .notPrinted(.jobAborted, "the printer canceled CUPS job \(job.id)\(message)")
      }
      return .canceled
    case .aborted:
      if isUnreachable(message: job.printerMessage) {
        return .notPrinted(.offline, "CUPS job \(job.id) aborted, printer unreachable\(message)")
      }
      let why = job.reasons.isEmpty ? "" : " (\(job.reasons.joined(separator: ",")))"
      return .notPrinted(.jobAborted, "CUPS aborted job \(job.id)\(why)\(message)")
    case .completed:
      guard let printerReasons else {
        return .notPrinted(
          .communication,
          "CUPS reports job \(job.id) completed, but the printer's state could not be read to "
            + "confirm it; not counted\(message)")
      }
      let bad =
        job.reasons.filter { notPrintedJobKeywords.contains($0) }
        + printerReasons.filter { notPrintedPrinterKeywords.contains(stripSeverity($0)) }
      if bad.isEmpty { return .printed }
      return .notPrinted(
        .jobAborted,
        "CUPS reports job \(job.id) completed, but \(bad.joined(separator: ",")) shows it was not printed\(message)"
      )
    }
  }
}
