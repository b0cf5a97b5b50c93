import LabelCUPS
import LabelCore
import LabelTestKit
import Testing

/// What labeld reads from CUPS' attributes (printer-state-reasons, job-state-reasons,
/// job-printer-state-message, job states as integers), as a CUPS server or a printer
/// behind it could send them: known keywords changed, cut, joined, and random text. Each
/// is read into a reason or an outcome, never a trap, and nothing read grows past what
/// was given. Seeded: the same cases each run.
@Suite struct CUPSAttributeFuzzTests {
  typealias Generator = SeededGenerator

  static let keywords = [
    "media-empty-error", "media-jam-warning", "cover-open-report", "paused", "none",
    "offline-report", "job-canceled-at-device", "connecting-to-device", "toner-low-warning",
    "other", "marker-supply-empty-error",
  ]

  static func keyword(_ g: inout Generator) -> String {
    var bytes = Array(keywords[g.below(keywords.count)].utf8)
    switch g.below(5) {
    case 0: if !bytes.isEmpty { bytes[g.below(bytes.count)] = UInt8(g.below(256)) }
    case 1: bytes = Array(bytes.prefix(g.below(bytes.count + 1)))
    case 2: bytes += Array(keywords[g.below(keywords.count)].utf8)
    case 3: bytes = (0..<g.below(300)).map { _ in UInt8(g.below(256)) }
    default: break
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func reasonsAndOutcomes_areReadWhateverTheAttributesHold() {
    var g = Generator(seed: 11)
    var faults = 0
    for _ in 0..<5000 {
      let printerReasons = (0..<g.below(8)).map { _ in Self.keyword(&g) }
      let reasons = IPPReasonTable.reasons(printerKeywords: printerReasons)
      #expect(reasons.count <= printerReasons.count)
      #expect(Set(reasons).count == reasons.count)
      faults += reasons.count
      for keyword in printerReasons {
        #expect(IPPReasonTable.stripSeverity(keyword).utf8.count <= keyword.utf8.count)
      }
      // A job state CUPS reports as an integer; one labeld does not know is refused.
      guard let state = CUPSJobState(rawValue: g.below(12) - 1) else { continue }
      var job = CUPSJob(id: g.below(Int(Int32.max)), state: state)
      job.reasons = (0..<g.below(4)).map { _ in Self.keyword(&g) }
      job.printerMessage = Self.keyword(&g)
      _ = IPPReasonTable.isUnreachable(message: job.printerMessage)
      let given = job.printerMessage.utf8.count + job.reasons.joined().utf8.count
      switch IPPReasonTable.outcome(job, printerReasons: g.below(4) == 0 ? nil : printerReasons) {
      case .notPrinted(_, let why):
        // The message names the job and quotes what CUPS said, nothing more.
        #expect(why.utf8.count <= given + job.reasons.count + 200)
      case .waiting, .printing, .printed, .canceled: break
      }
    }
    #expect(faults > 0)
  }
}
