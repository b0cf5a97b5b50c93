import LabelCore

/// DYMO LabelWriter 550, 550 Turbo and 5XL: a job with its labels as `ESC D` blocks
/// (`DymoLW5Encoder`), status from the 32-byte answer to `ESC A` (`DymoLW5Status`), with
/// the labels left on the roll.
public struct DymoLW5Driver: LabelWriterDriver {
  public let model: ModelEntry
  public var density: DymoLWDensity?

  public init(model: ModelEntry, settings: LabelSettings = LabelSettings()) throws(DriverError) {
    guard model.language == .dymoLW5 else {
      throw DriverError("\(model.name) is not a DYMO LabelWriter 550 model")
    }
    self.model = model
    density = Self.density(settings, model: model)
  }

  public var language: PrinterLanguage { .dymoLW5 }

  // MARK: pages

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    try checkResolution(dpi)
    return DymoLW5Encoder.encode(
      pages,
      options: DymoLW5Options(
        headDots: headDots, dieCut: media.kind != "continuous", density: density))
  }

  // MARK: status

  public var statusRequest: [UInt8] { DymoLW5Status.request }
  public var statusRequestName: String { DymoLW5Status.requestName }

  /// Every 32 bytes are one answer: the reply has no framing to check.
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    guard input.count >= DymoLW5Status.length else { return .needMore }
    let reply = Array(input.prefix(DymoLW5Status.length))
    guard let status = try? DymoLW5Status(reply) else {
      return .unreadable("not a status", consumed: DymoLW5Status.length)
    }
    return .status(status.deviceStatus, consumed: DymoLW5Status.length)
  }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    try DymoLW5Status(reply).reasons
  }

  /// The labels the job prints (one per `ESC D` block), die-cut or continuous.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts {
    guard let job = try? DymoLW5Decoder().decode(bytes, drawing: false),
      let first = job.pages.first
    else { return JobFacts(pages: 1) }
    return JobFacts(
      pages: max(1, min(job.pages.count, 1_000_000)),
      wants: MediaWant(dieCut: !first.continuous, widthMM: nil, lengthMM: nil))
  }

  /// The job's own `ESC A` requests (`DymoLW5Encoder` sends one after each label).
  public func statusRepliesCarried(by job: [UInt8]) -> Int {
    (try? DymoLW5Decoder().decode(job, drawing: false).statusRequests).map { min($0, 1000) } ?? 0
  }
}
