import FoundationEssentials
import LabelCUPS
import LabelCore

/// What an IPP client is told of one of labeld's printers, built from what labeld knows of
/// it now (not a fixed list): its model, resolution, loaded media, state and faults (from
/// the printer's one state door, `PrinterQueue.snapshot`), labels left, and where it is
/// reached. PWG 5100.14 (IPP Everywhere) and RFC 8011 §5.4 name each attribute.
struct PrinterAttributes {
  /// A way the printer is reached: `ipp://host:port/ipp/print/NAME` or `ipps://…`.
  struct Reach: Sendable {
    var uri: String
    var tls: Bool
  }

  var printer: Printer
  var reach: [Reach]
  /// Printing needs a sign-in (HTTP Basic, the token as password).
  var signIn: Bool
  var uuid: String
  var moreInfo: String
  var icon: String
  var media: PWGMedia
  var queuedJobs: Int
  /// When labeld (or the printer) came, and when its state last changed: epoch seconds.
  var configChanged: Int
  var stateChanged: Int
  var now: Int

  /// The formats labeld reads (document-format-supported).
  static let formats: [String] =
    ["application/octet-stream"] + [
      "application/pdf", "image/jpeg", "image/png", "image/pwg-raster", "image/urf",
    ]

  static let operations: [Int32] = IPPOperation.allCases.map { Int32($0.rawValue) }

  /// Every attribute, by name, in the order written.
  var all: [IPPAttribute] { description + template }

  /// printer-description (RFC 8011 §5.4, PWG 5100.13/.14).
  var description: [IPPAttribute] {
    let dpi = Int32(printer.dpi)
    var out: [IPPAttribute] = [
      IPPAttribute("charset-configured", .charset("utf-8")),
      IPPAttribute("charset-supported", [.charset("us-ascii"), .charset("utf-8")]),
      IPPAttribute("color-supported", .boolean(false)),
      IPPAttribute("compression-supported", .keyword("none")),
      IPPAttribute("document-format-default", .mimeMediaType("application/octet-stream")),
      IPPAttribute("document-format-preferred", .mimeMediaType("image/pwg-raster")),
      IPPAttribute("document-format-supported", Self.formats.map { .mimeMediaType($0) }),
      IPPAttribute("generated-natural-language-supported", .naturalLanguage("en")),
      IPPAttribute("identify-actions-default", .keyword("display")),
      IPPAttribute("identify-actions-supported", .keyword("display")),
      IPPAttribute("ipp-features-supported", .keyword("ipp-everywhere")),
      IPPAttribute("ipp-versions-supported", [.keyword("1.1"), .keyword("2.0")]),
      IPPAttribute(
        "job-creation-attributes-supported", Self.creationAttributes.map { .keyword($0) }),
      IPPAttribute("job-ids-supported", .boolean(true)),
      IPPAttribute("multiple-document-jobs-supported", .boolean(false)),
      IPPAttribute(
        "multiple-operation-time-out", .integer(Int32(IPPSettings.multipleOperationTimeOut))),
      IPPAttribute("multiple-operation-time-out-action", .keyword("abort-job")),
      IPPAttribute("natural-language-configured", .naturalLanguage("en")),
      IPPAttribute("operations-supported", Self.operations.map { .enumeration($0) }),
      // PWG 5100.6 registers "document-numbers"; ipp-everywhere.test (CUPS 2.4.2) asks for
      // "document-number": both are listed (the `overrides` attribute itself is ignored).
      IPPAttribute(
        "overrides-supported",
        [.keyword("document-number"), .keyword("document-numbers"), .keyword("pages")]),
      IPPAttribute("page-ranges-supported", .boolean(true)),
      IPPAttribute("pages-per-minute", .integer(Int32(max(1, min(1000, pagesPerMinute))))),
      IPPAttribute("pdl-override-supported", .keyword("attempted")),
      IPPAttribute("preferred-attributes-supported", .boolean(false)),
      IPPAttribute("printer-config-change-date-time", .dateTime(configChanged)),
      IPPAttribute("printer-config-change-time", .integer(Int32(clamping: configChanged))),
      IPPAttribute("printer-current-time", .dateTime(now)),
      IPPAttribute("printer-device-id", .text(deviceID)),
      IPPAttribute("printer-geo-location", .outOfBand(.unknown)),
      IPPAttribute("printer-get-attributes-supported", .keyword("document-format")),
      IPPAttribute("printer-icons", .uri(icon)),
      IPPAttribute("printer-info", .text(clipped(info, bytes: 127))),
      IPPAttribute("printer-is-accepting-jobs", .boolean(printer.accepting)),
      IPPAttribute("printer-kind", .keyword("label")),
      IPPAttribute("printer-location", .text("")),
      IPPAttribute("printer-make-and-model", .text(clipped(makeAndModel, bytes: 127))),
      IPPAttribute("printer-more-info", .uri(moreInfo)),
      IPPAttribute("printer-name", .name(clipped(printer.id, bytes: 127))),
      IPPAttribute("printer-organization", .text("")),
      IPPAttribute("printer-organizational-unit", .text("")),
      IPPAttribute("printer-state", .enumeration(state)),
      IPPAttribute("printer-state-change-date-time", .dateTime(stateChanged)),
      IPPAttribute("printer-state-change-time", .integer(Int32(clamping: stateChanged))),
      IPPAttribute("printer-state-reasons", stateReasons.map { .keyword($0) }),
      IPPAttribute("printer-up-time", .integer(Int32(clamping: now))),
      IPPAttribute("printer-uri-supported", reach.map { .uri($0.uri) }),
      IPPAttribute("printer-uuid", .uri(uuid)),
      IPPAttribute(
        "pwg-raster-document-resolution-supported", .resolution(x: dpi, y: dpi, perInch: true)),
      IPPAttribute("pwg-raster-document-sheet-back", .keyword("normal")),
      IPPAttribute(
        "pwg-raster-document-type-supported", [.keyword("black_1"), .keyword("sgray_8")]),
      IPPAttribute("queued-job-count", .integer(Int32(clamping: queuedJobs))),
      IPPAttribute(
        "uri-authentication-supported",
        reach.map { _ in .keyword(signIn ? "basic" : "requesting-user-name") }),
      IPPAttribute("uri-security-supported", reach.map { .keyword($0.tls ? "tls" : "none") }),
      IPPAttribute(
        "urf-supported",
        ["V1.4", "CP1", "PQ4", "RS\(printer.dpi)", "W8"].map { .keyword($0) }),
      IPPAttribute(
        "which-jobs-supported", ["completed", "not-completed", "all"].map { .keyword($0) }),
    ]
    if !printer.reasons.isEmpty {
      out.append(
        IPPAttribute(
          "printer-state-message",
          .text(clipped(printer.reasons.map(\.phrase).joined(separator: "; "), bytes: 1023))))
    }
    out += supplies
    return out.sorted { $0.name < $1.name }
  }

  /// Job Template attributes' -default and -supported (RFC 8011 §5.2, PWG 5100.13).
  var template: [IPPAttribute] {
    let dpi = Int32(printer.dpi)
    // Borderless (0), and 0.01 mm for CUPS 2.4's PPDs (see `PWGMedia.database`).
    let margins = ["bottom", "left", "right", "top"].map {
      IPPAttribute("media-\($0)-margin-supported", [.integer(0), .integer(1)])
    }
    return [
      IPPAttribute("copies-default", .integer(1)),
      IPPAttribute("copies-supported", .range(1, 999)),
      IPPAttribute("finishings-default", .enumeration(3)),
      IPPAttribute("finishings-supported", .enumeration(3)),
      IPPAttribute("media-col-default", .collection(media.collection)),
      IPPAttribute("media-col-ready", .collection(media.collection)),
      IPPAttribute(
        "media-col-supported",
        [
          "media-bottom-margin", "media-left-margin", "media-right-margin", "media-size",
          "media-size-name", "media-source", "media-top-margin", "media-type",
        ].map { .keyword($0) }),
      IPPAttribute("media-default", .keyword(media.name)),
      IPPAttribute("media-ready", .keyword(media.name)),
      IPPAttribute("media-size-supported", media.sizes),
      IPPAttribute("media-source-supported", .keyword("main-roll")),
      IPPAttribute("media-supported", media.supported.map { .keyword($0) }),
      IPPAttribute("media-type-supported", .keyword(media.type)),
      IPPAttribute("orientation-requested-default", .outOfBand(.noValue)),
      IPPAttribute("orientation-requested-supported", [3, 4, 5, 6].map { .enumeration($0) }),
      IPPAttribute("output-bin-default", .keyword("face-up")),
      IPPAttribute("output-bin-supported", .keyword("face-up")),
      IPPAttribute("print-color-mode-default", .keyword("auto")),
      IPPAttribute(
        "print-color-mode-supported", ["auto", "bi-level", "monochrome"].map { .keyword($0) }),
      IPPAttribute("print-content-optimize-default", .keyword("auto")),
      IPPAttribute("print-content-optimize-supported", .keyword("auto")),
      IPPAttribute("print-quality-default", .enumeration(4)),
      IPPAttribute("print-quality-supported", .enumeration(4)),
      IPPAttribute("print-rendering-intent-default", .keyword("auto")),
      IPPAttribute("print-rendering-intent-supported", .keyword("auto")),
      IPPAttribute("print-scaling-default", .keyword("auto")),
      IPPAttribute(
        "print-scaling-supported", ["auto", "auto-fit", "fill", "fit", "none"].map { .keyword($0) }),
      IPPAttribute("printer-resolution-default", .resolution(x: dpi, y: dpi, perInch: true)),
      IPPAttribute("printer-resolution-supported", .resolution(x: dpi, y: dpi, perInch: true)),
      IPPAttribute("sides-default", .keyword("one-sided")),
      IPPAttribute("sides-supported", .keyword("one-sided")),
    ] + margins
  }

  /// media-col-database: only when asked for by name (RFC 8011: not part of `all`).
  var mediaColDatabase: IPPAttribute { IPPAttribute("media-col-database", media.database) }

  static let creationAttributes = [
    "copies", "ipp-attribute-fidelity", "job-name", "media", "media-col", "orientation-requested",
    "page-ranges", "print-color-mode", "print-content-optimize", "print-quality",
    "print-rendering-intent", "print-scaling", "printer-resolution",
  ]

  /// Attributes of the Job Template group: asked for as `job-template`.
  static let templateNames: Set<String> = [
    "copies-default", "copies-supported", "finishings-default", "finishings-supported",
    "media-col-default", "media-col-ready", "media-col-supported", "media-default",
    "media-ready", "media-size-supported", "media-source-supported", "media-supported",
    "media-type-supported", "media-bottom-margin-supported", "media-left-margin-supported",
    "media-right-margin-supported", "media-top-margin-supported",
    "orientation-requested-default", "orientation-requested-supported", "output-bin-default",
    "output-bin-supported", "print-color-mode-default", "print-color-mode-supported",
    "print-content-optimize-default", "print-content-optimize-supported",
    "print-quality-default", "print-quality-supported", "print-rendering-intent-default",
    "print-rendering-intent-supported", "print-scaling-default", "print-scaling-supported",
    "printer-resolution-default", "printer-resolution-supported", "sides-default",
    "sides-supported", "media-col-database",
  ]

  var state: Int32 {
    switch printer.state {
    case .idle: 3
    case .processing: 4
    case .stopped: 5
    }
  }

  /// printer-state-reasons: each fault with the error severity (RFC 8011 §5.4.12: it
  /// stops the printer), `none` when there is none.
  var stateReasons: [String] {
    var out: [String] = []
    for reason in printer.reasons {
      let keyword = IPPReasonTable.keyword(for: reason) + "-error"
      if !out.contains(keyword) { out.append(keyword) }
    }
    if !printer.accepting && !out.contains("paused") { out.append("paused") }
    return out.isEmpty ? ["none"] : out
  }

  /// The supply of a label printer: its labels. The count is known where the printer says
  /// (DYMO LabelWriter 550), unknown elsewhere; none left once it reports media empty.
  var supplies: [IPPAttribute] {
    let empty = printer.reasons.contains(.mediaEmpty)
    let left = empty ? 0 : printer.labelsRemaining
    let level = left.map(String.init) ?? "-2"
    let kind = media.type == "continuous" ? "continuous roll" : "labels"
    let description = "\(PWGMedia.number(media.width)) mm \(kind)"
    let supply =
      "index=1;class=supplyThatIsConsumed;type=other;unit=other;maxcapacity=-2;level=\(level);"
      + "colorantname=unknown;"
    // marker-levels are percent: unknown (-2), some left of an unknown whole (-3), or 0.
    let percent: Int32 = left == 0 ? 0 : (left == nil ? -2 : -3)
    return [
      IPPAttribute("marker-colors", .name("none")),
      IPPAttribute("marker-high-levels", .integer(100)),
      IPPAttribute("marker-levels", .integer(percent)),
      IPPAttribute("marker-low-levels", .integer(0)),
      IPPAttribute("marker-names", .name(description)),
      IPPAttribute("marker-types", .keyword("other")),
      IPPAttribute("printer-supply", .octetString(Array(supply.utf8))),
      IPPAttribute("printer-supply-description", .text(description)),
      IPPAttribute("printer-supply-info-uri", .uri(moreInfo)),
    ]
  }

  var makeAndModel: String { printer.model.isEmpty ? "Label printer" : printer.model }

  var info: String { "\(makeAndModel) (labeld \(printer.id))" }

  var pagesPerMinute: Int { 30 }

  /// IEEE 1284 device id (PWG 5107.2): the formats it reads as CMD.
  var deviceID: String {
    let parts = makeAndModel.split(separator: " ", maxSplits: 1).map(String.init)
    let clean = { (s: String) in s.replacing(";", with: ",").replacing(":", with: " ") }
    let maker = parts.count > 1 ? clean(parts[0]) : "labeld"
    let model = clean(parts.count > 1 ? parts[1] : makeAndModel)
    return "MFG:\(maker);MDL:\(model);CMD:PDF,PWGRaster,URF,JPEG,PNG;CLS:PRINTER;"
  }
}
