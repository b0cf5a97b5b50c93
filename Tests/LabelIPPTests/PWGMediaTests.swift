import Foundation
import LabelCUPS
import LabelCore
import Testing

@testable import LabelIPP

/// Media names as PWG 5101.1 has them, checked against the pattern CUPS's ipp-2.0.test
/// applies to every media-supported value (no dots in the name part, no trailing zeros).
@Suite struct PWGMediaTests {
  /// ipp-2.0.test's MEDIA_REGEX (CUPS 2.4.2), the `choice_` form left out.
  static var pattern: Regex<AnyRegexOutput> {
    get throws {
      try Regex(
        #"^((custom|na|asme|roc|oe|roll)_[a-z0-9][-a-z0-9]*_([1-9][0-9]*(\.[0-9]*[1-9])?|0\.[0-9]*[1-9])x([1-9][0-9]*(\.[0-9]*[1-9])?|0\.[0-9]*[1-9])in|(custom|iso|jis|jpn|prc|om|roll)_[a-z0-9][-a-z0-9]*_([1-9][0-9]*(\.[0-9]*[1-9])?|0\.[0-9]*[1-9])x([1-9][0-9]*(\.[0-9]*[1-9])?|0\.[0-9]*[1-9])mm)$"#
      )
    }
  }

  @Test(arguments: [
    (62.0, 0.0, "roll_continuous_62x100mm"),
    (101.6, 152.4, "na_index-4x6_4x6in"),
    (50.8, 25.4, "oe_2x1-label_2x1in"),
    (36.0, 89.0, "oe_lg-address-label_1.4x3.5in"),
    (28.6, 88.9, "oe_address-label_1.125x3.5in"),
    (62.0, 29.0, "om_62x29mm-label_62x29mm"),
    (29.0, 90.0, "om_29x90mm-label_29x90mm"),
    (57.15, 31.75, "oe_2p25x1p25-label_2.25x1.25in"),
    (102.0, 50.5, "om_102x50p5mm-label_102x50.5mm"),
  ])
  func theLoadedMedia_hasAPWGName(width: Double, length: Double, name: String) throws {
    let media = PWGMedia(Media(widthMM: width, lengthMM: length), maxLength: 100_000)
    #expect(media.name == name)
    for each in media.supported {
      #expect(try Self.pattern.wholeMatch(in: each) != nil, "\(each)")
    }
  }

  @Test func everySizeAWayOff_stillMatchesThePattern() throws {
    var g = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
      let w = Double(Int.random(in: 50...20_000, using: &g)) / 100
      let l = Double(Int.random(in: 0...40_000, using: &g)) / 100
      for each in PWGMedia(
        Media(widthMM: w, lengthMM: l), maxLength: Int.random(in: 1...200_000, using: &g)
      ).supported {
        #expect(try Self.pattern.wholeMatch(in: each) != nil, "\(w) x \(l): \(each)")
      }
    }
  }

  @Test func aRoll_listsItsRangeOfLengths() {
    let roll = PWGMedia(Media(widthMM: 62, lengthMM: 0), maxLength: 99_999)
    #expect(roll.type == "continuous")
    #expect(roll.sizes.count == 2)
    guard case .collection(let size) = roll.sizes[1] else {
      Issue.record("a collection")
      return
    }
    #expect(size.first { $0.name == "y-dimension" }?.values == [.range(1000, 99_999)])
  }
}

/// Printers' resources and UUIDs, and the tables IPP's words come from.
@Suite struct IPPNamesTests {
  @Test(arguments: ["sim:zebra", "usb:04f9:209d:A1B2", "cups:Zebra_ZD421", "net:shelf 2", "ü:é"])
  func aPrintersPath_namesItBack(id: String) {
    let path = IPPNames.path(printer: id)
    #expect(!path.contains(" ") && path.split(separator: "/").count == 3)
    #expect(IPPNames.printer(fromURI: "ipp://box:631" + path) == id)
    #expect(IPPNames.printer(fromURI: path) == id)
  }

  @Test func nonsensePaths_nameNoPrinter() {
    for uri in [
      "ipp://box/ipp/print/", "ipp://box/ipp/print/%zz", "ipp://box/ipp/print/a%2Fb", "ipp://box",
      "/jobs/1",
    ] {
      #expect(IPPNames.printer(fromURI: uri) == nil, "\(uri)")
    }
  }

  @Test func uuids_areStable_perPrinterAndPerLabeld() throws {
    let seed = [UInt8](repeating: 7, count: 16)
    let a = IPPNames.uuid(seed: seed, printer: "sim:zebra")
    #expect(a == IPPNames.uuid(seed: seed, printer: "sim:zebra"))
    #expect(a != IPPNames.uuid(seed: seed, printer: "sim:ql"))
    #expect(a != IPPNames.uuid(seed: [UInt8](repeating: 8, count: 16), printer: "sim:zebra"))
    let form = try Regex(
      "^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
    #expect(try form.wholeMatch(in: a) != nil, "\(a)")
  }

  /// One table, both directions: the keyword labeld says for a fault reads back as that
  /// fault wherever IPP has a word for it.
  @Test func reasonKeywords_readBackAsTheirReason() {
    for reason in Reason.allCases {
      let keyword = IPPReasonTable.keyword(for: reason)
      let back = IPPReasonTable.reason(printerKeyword: keyword + "-error")
      switch reason {
      case .disconnected, .notFound, .communication: #expect(back == .offline)
      case .permissionDenied, .busy, .jobRejected, .jobAborted: #expect(back == .unknown)
      default: #expect(back == reason, "\(reason) -> \(keyword) -> \(String(describing: back))")
      }
    }
  }

  @Test func everyProtocolError_hasAnIPPStatus() {
    for code in RPCErrorCode.allCases {
      let status = IPPStatus.of(RPCError(code, "m"))
      #expect(status.rawValue >= 0x0400, "\(code)")
    }
    #expect(
      IPPStatus.of(.tooManyJobs(printer: nil, bound: .total, limit: 1, waiting: 1)) == .tooManyJobs)
    #expect(IPPStatus.of(.printerNotAccepting("a", reason: "b")) == .notAcceptingJobs)
  }

  @Test func jobStates_areIPPs() {
    let now = Date()
    func job(_ state: JobState, _ document: DocumentFault? = nil) -> JobAttributes {
      var j = Job(
        id: 3, printer: "sim:z", state: state, copies: 1, createdAt: now, updatedAt: now,
        owner: JobOwner(uid: 0))
      if state == .aborted {
        j.error = JobError(reason: .jobRejected, message: "m", document: document)
      }
      return JobAttributes(
        job: j, printerURI: "ipp://h/ipp/print/sim:z", incoming: false, printerReasons: [], now: 1)
    }
    #expect(job(.pending).job.state.ipp == 3 && job(.held).job.state.ipp == 6)
    #expect(job(.processing).reasons == ["job-printing"])
    #expect(job(.completed).reasons == ["job-completed-successfully"])
    #expect(job(.canceled).job.state.ipp == 7)
    #expect(job(.aborted, .formatError).reasons.first == "document-format-error")
    #expect(job(.aborted, .unprintable).reasons.first == "document-unprintable-error")
    #expect(job(.aborted).reasons == ["aborted-by-system"])
    #expect(job(.pending).uri == "ipp://h/ipp/print/sim:z/3")
  }
}
