import LabelCore

/// DYMO LabelWriter 300/400/450 series and 4XL: raster lines (`DymoLWEncoder`), status
/// from the one-byte answer to `ESC A` (`DymoLWStatus`).
public struct DymoLWDriver: LabelWriterDriver {
  public let model: ModelEntry
  public var density: DymoLWDensity?

  public init(model: ModelEntry, settings: LabelSettings = LabelSettings()) throws(DriverError) {
    guard model.language == .dymoLW else {
      throw DriverError("\(model.name) is not a DYMO LabelWriter 4xx model")
    }
    self.model = model
    density = Self.density(settings, model: model)
  }

  public var language: PrinterLanguage { .dymoLW }

  // MARK: pages

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    try checkResolution(dpi)
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
