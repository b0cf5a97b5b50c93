import LabelCUPS
import LabelCore
import Testing

/// The one IPP → Reason table, row by row.
@Suite struct IPPReasonTableTests {
  @Test(arguments: [
    ("media-empty", Reason.mediaEmpty),
    ("media-empty-error", .mediaEmpty),
    ("media-empty-warning", .mediaEmpty),
    ("media-empty-report", .mediaEmpty),
    ("media-needed-error", .mediaEmpty),
    ("media-jam-error", .mediaJam),
    ("cover-open-warning", .coverOpen),
    ("door-open-error", .coverOpen),
    ("interlock-open", .coverOpen),
    ("offline-report", .offline),
    ("connecting-to-device", .offline),
    ("timed-out", .offline),
    ("paused", .paused),
    ("moving-to-paused", .paused),
    ("marker-supply-empty-error", .ribbonEmpty),
    ("toner-empty-warning", .ribbonEmpty),
    ("cutter-jam-error", .cutterError),
    ("marker-failure", .headError),
    ("media-type-mismatch-error", .mediaMismatch),
    ("other-error", .unknown),
  ])
  func printerKeyword_mapsToReason(keyword: String, reason: Reason) {
    #expect(IPPReasonTable.reason(printerKeyword: keyword) == reason)
  }

  @Test(arguments: [
    "none", "media-low-report", "toner-low-warning", "cups-waiting-for-job-completed",
    "marker-supply-low-warning", "cups-remote-pending", "something-new-error",
  ])
  func informationalKeyword_isNoFault(keyword: String) {
    #expect(IPPReasonTable.reason(printerKeyword: keyword) == nil)
  }

  @Test func reasonList_keepsOrder_dropsDuplicatesAndInformation() {
    let keywords = [
      "cups-waiting-for-job-completed", "media-empty-warning", "media-needed-error",
      "paused", "media-low-report",
    ]
    #expect(IPPReasonTable.reasons(printerKeywords: keywords) == [.mediaEmpty, .paused])
  }

  @Test func stripSeverity_removesOnlyTheSuffix() {
    #expect(IPPReasonTable.stripSeverity("media-empty-error") == "media-empty")
    #expect(IPPReasonTable.stripSeverity("cover-open-report") == "cover-open")
    #expect(IPPReasonTable.stripSeverity("paused") == "paused")
  }

  private static func job(_ state: CUPSJobState, _ reasons: [String] = [], message: String = "")
    -> CUPSJob
  {
    var job = CUPSJob(id: 7, state: state)
    job.reasons = reasons
    job.printerMessage = message
    return job
  }

  @Test func jobStates_mapToOutcomes() {
    #expect(IPPReasonTable.outcome(Self.job(.pending)) == .waiting)
    #expect(IPPReasonTable.outcome(Self.job(.held, ["job-hold-until-specified"])) == .waiting)
    #expect(IPPReasonTable.outcome(Self.job(.stopped)) == .waiting)
    #expect(IPPReasonTable.outcome(Self.job(.processing, ["job-printing"])) == .printing)
    #expect(
      IPPReasonTable.outcome(Self.job(.completed, ["job-completed-successfully"])) == .printed)
    #expect(IPPReasonTable.outcome(Self.job(.canceled, ["job-canceled-by-user"])) == .canceled)
  }

  @Test(arguments: [
    "cups-ipp-missing-job-history", "document-format-error", "document-unprintable-error",
    "unsupported-document-format", "aborted-by-system",
  ])
  func completedJob_whoseReasonsShowNothingPrinted_isNotPrinted(reason: String) {
    guard
      case .notPrinted(let r, let message) = IPPReasonTable.outcome(
        Self.job(.completed, ["job-completed-successfully", reason]))
    else {
      Issue.record("\(reason) should make a completed job not printed")
      return
    }
    #expect(r == .jobAborted)
    #expect(message.contains(reason))
  }

  @Test func completedJob_whilePrinterSaysMissingJobHistory_isNotPrinted() {
    let job = Self.job(.completed, ["job-completed-successfully"])
    let outcome = IPPReasonTable.outcome(
      job, printerReasons: ["cups-ipp-missing-job-history"])
    guard case .notPrinted(.jobAborted, let message) = outcome else {
      Issue.record("expected jobAborted, got \(outcome)")
      return
    }
    #expect(message.contains("cups-ipp-missing-job-history"))
    #expect(IPPReasonTable.outcome(job, printerReasons: ["media-low-report"]) == .printed)
  }

  /// Counted means confirmed: a completed CUPS job whose printer state could not be read
  /// (the evidence that it was not lost) is not counted printed.
  @Test func completedJob_withoutReadableEvidence_isNotCounted() {
    let job = Self.job(.completed, ["job-completed-successfully"])
    guard
      case .notPrinted(.communication, let message) = IPPReasonTable.outcome(
        job, printerReasons: nil)
    else {
      Issue.record("a completion without evidence was counted")
      return
    }
    #expect(message.contains("could not be read"))
    #expect(IPPReasonTable.outcome(job, printerReasons: []) == .printed)
  }

  @Test func abortedJob_unreachablePrinter_isOffline() {
    let job = Self.job(.aborted, ["aborted-by-system"], message: "The printer is not responding.")
    guard case .notPrinted(.offline, let message) = IPPReasonTable.outcome(job) else {
      Issue.record("expected offline")
      return
    }
    #expect(message.contains("not responding"))
  }

  @Test func abortedJob_otherwise_isJobAborted() {
    let outcome = IPPReasonTable.outcome(Self.job(.aborted, ["aborted-by-system"]))
    guard case .notPrinted(.jobAborted, _) = outcome else {
      Issue.record("expected jobAborted, got \(outcome)")
      return
    }
  }

  @Test func jobCanceledAtThePrinter_isJobAborted() {
    let outcome = IPPReasonTable.outcome(
      Self.job(.canceled, ["job-canceled-at-device"], message: "Print job canceled at printer."))
    guard case .notPrinted(.jobAborted, _) = outcome else {
      Issue.record("expected jobAborted, got \(outcome)")
      return
    }
  }

  @Test(arguments: [
    ("The printer is not responding.", true),
    ("The printer may not exist or is unavailable at this time.", true),
    ("Unable to connect to printer; will retry in 30 seconds...", true),
    ("Connection refused", true),
    ("Printing page 1", false),
    ("", false),
  ])
  func unreachableMessages(message: String, unreachable: Bool) {
    #expect(IPPReasonTable.isUnreachable(message: message) == unreachable)
  }
}
