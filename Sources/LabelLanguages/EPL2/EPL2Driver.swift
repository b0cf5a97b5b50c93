import LabelCore

/// EPL2 printers (Zebra's LP/TLP 2824 and 2844 family and compatibles): each page as `GW`
/// graphics with its media set up before it (`EPL2Encoder`), status from the `^ee` error
/// report (`EPL2Status`).
public struct EPL2Driver: LanguageDriver {
  public let model: ModelEntry
  /// `D` 0–15; nil: the printer's own setting.
  public var density: Int?

  public init(model: ModelEntry, settings: LabelSettings = LabelSettings()) throws(DriverError) {
    guard model.language == .epl2 else { throw DriverError("\(model.name) is not an EPL2 model") }
    self.model = model
    density = WholeLabelPage.density(settings, model: model)
  }

  public var language: PrinterLanguage { .epl2 }

  // MARK: pages

  /// As TSPL: the label's width (or the image's), its length the image's, and no `Q`, so
  /// the printer keeps the label length its calibration found.
  public func assumedMedia(labelWidthMM: Double?) -> Media {
    Media(widthMM: labelWidthMM ?? 0, lengthMM: 0)
  }

  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
    try WholeLabelPage.area(media: media, dpi: dpi, model: model)
  }

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    let gap: Double? =
      switch media.kind {
      case "continuous"?: 0
      case "labels"?: 3
      default: nil
      }
    return EPL2Encoder.encode(
      pages,
      options: EPL2Options(
        dpi: dpi, widthMM: max(media.widthMM, 0), lengthMM: max(media.lengthMM, 0), gapMM: gap,
        density: density))
  }

  // MARK: status

  public var statusRequest: [UInt8] { EPL2Status.request }
  public var statusRequestName: String { EPL2Status.requestName }

  /// One reply line, ending in LF (CR LF); line ends before it are skipped.
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    guard let first = input.first else { return .needMore }
    if first == 0x0D || first == 0x0A { return .skip(1) }
    guard let lf = input.firstIndex(of: 0x0A) else {
      return input.count > 256
        ? .unreadable("no line end in 256 bytes", consumed: input.count) : .needMore
    }
    let consumed = lf - input.startIndex + 1
    let line = String(decoding: input[input.startIndex..<lf], as: UTF8.self)
    do {
      return .status(try EPL2Status(line: line).deviceStatus, consumed: consumed)
    } catch {
      return .unreadable(error.message, consumed: consumed)
    }
  }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    let line = String(decoding: reply, as: UTF8.self)
    return try EPL2Status(line: line).reasons
  }

  /// The labels the job prints (`P p1,p2`: p1 x p2 each) and, where it sends `Q`, the media
  /// its `q` and `Q` ask for; bytes that are not EPL2 are one label for any media.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts {
    guard let job = try? EPL2Decoder().decode(bytes, drawing: false), let first = job.pages.first
    else { return JobFacts(pages: 1) }
    let labels = max(1, min(job.pages.reduce(0) { $0 + min($1.copies, 1_000_000) }, 1_000_000))
    guard let length = first.lengthDots, let gap = first.gapDots else {
      return JobFacts(pages: labels)
    }
    let dpi = Double(model.capabilities.dpi.first ?? 203)
    let mm = { (dots: Int) in (Double(dots) * 25.4 / dpi * 10).rounded() / 10 }
    return JobFacts(
      pages: labels,
      wants: MediaWant(
        dieCut: gap > 0, widthMM: mm(first.widthDots), lengthMM: gap > 0 ? mm(length) : nil))
  }
}
