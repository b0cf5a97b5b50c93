import LabelCore

/// DYMO LabelWriter 300/400/450 series and 4XL: raster lines (`DymoLWEncoder`), status
/// from the one-byte answer to `ESC A` (`DymoLWStatus`).
public struct DymoLWDriver: LanguageDriver {
  public let model: ModelEntry
  public var density: DymoLWDensity?

  public init(model: ModelEntry, settings: LabelSettings = LabelSettings()) throws(DriverError) {
    guard model.language == .dymoLW else {
      throw DriverError("\(model.name) is not a DYMO LabelWriter 4xx model")
    }
    self.model = model
    density = WholeLabelPage.density(settings, model: model).flatMap(DymoLWDensity.init)
  }

  public var language: PrinterLanguage { .dymoLW }

  /// Dots across the head: 1248 on the 4XL (4.16 in at 300 dpi), 672 on the others
  /// (2.24 in; LW 450 Series Technical Reference, "Print Head").
  public var headDots: Int { DymoLWHead.dots(model) }

  // MARK: pages

  /// The label's width (or the head's), the image's length: LabelWriters do not say what
  /// is loaded, and a die-cut label's top is found by its sense hole whatever its length.
  public func assumedMedia(labelWidthMM: Double?) -> Media {
    Media(widthMM: labelWidthMM ?? 0, lengthMM: 0)
  }

  /// The label from its left edge (the paper guide, where the head's first dot is), as
  /// wide as the label or the head, whichever is narrower (a 2.3125 in label is wider than
  /// the 2.24 in head); labels wider than the paper path are refused.
  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
    try DymoLWHead.area(media: media, dpi: dpi, model: model, headDots: headDots)
  }

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    guard dpi == 300 else {
      throw DriverError("\(model.displayName) prints at 300 dpi, not \(dpi)")
    }
    return DymoLWEncoder.encode(
      pages,
      options: DymoLWOptions(
        headDots: headDots, dieCut: media.kind != "continuous",
        labelLines: media.lengthMM > 0
          ? roundedClamped(media.lengthMM * Double(dpi) / 25.4, to: 0...0x7FFF) : nil,
        density: density))
  }

  // MARK: status

  public var statusRequest: [UInt8] { DymoLWStatus.request }
  public var statusRequestName: String { DymoLWStatus.requestName }

  /// Every byte is a whole answer: `ESC A` has no framing to check.
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    guard let byte = input.first else { return .needMore }
    return .status(DymoLWStatus(byte).deviceStatus, consumed: 1)
  }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    guard reply.count == 1 else {
      throw DriverError("\(model.displayName): a status is one byte, got \(reply.count)")
    }
    return DymoLWStatus(reply[0]).reasons
  }

  /// The labels the job prints (one per form feed) and whether it is for die-cut labels
  /// or continuous tape (`ESC L`); bytes that are not LabelWriter data are one label for
  /// any media.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts {
    guard let job = try? DymoLWDecoder().decode(bytes, drawing: false),
      let first = job.pages.first
    else { return JobFacts(pages: 1) }
    let labels = max(1, min(job.pages.count, 1_000_000))
    return JobFacts(
      pages: labels, wants: MediaWant(dieCut: !first.continuous, widthMM: nil, lengthMM: nil))
  }
}

/// The print head of each LabelWriter row, 4xx and 550 alike.
enum DymoLWHead {
  static func area(media: Media, dpi: Int, model: ModelEntry, headDots: Int)
    throws(DriverError) -> PageArea
  {
    let widest = model.capabilities.widthMM.upperBound
    guard media.widthMM <= widest else {
      throw DriverError(
        "\(model.displayName) takes labels at most \(millimetres(widest)) mm wide; "
          + "\(millimetres(media.widthMM)) mm is wider")
    }
    let dots = { (mm: Double) in roundedClamped(mm * Double(dpi) / 25.4, to: 0...100_000) }
    let width = media.widthMM > 0 ? min(dots(media.widthMM), headDots) : headDots
    let length = media.lengthMM > 0 ? dots(media.lengthMM) : nil
    let name =
      media.widthMM <= 0
      ? "media is not known: the head prints \(width) dots across"
      : media.lengthMM <= 0
        ? "\(millimetres(media.widthMM)) mm continuous tape prints \(width) dots across"
        : "\(millimetres(media.widthMM)) x \(millimetres(media.lengthMM)) mm label prints "
          + "\(width) x \(length ?? 0) dots"
    return PageArea(
      width: width, length: length, maxLength: length == nil ? dots(1000) : nil,
      description: "\(name) at \(dpi) dpi")
  }

  static func dots(_ model: ModelEntry) -> Int {
    model.modelPrefixes.contains { $0.hasSuffix("4xl") || $0.hasSuffix("5xl") } ? 1248 : 672
  }
}
