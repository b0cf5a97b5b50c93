import LabelCore

/// TSPL printers (TSC and the many 4x6 in shipping-label printers that speak its dialect:
/// Rollo, MUNBYN, iDPRT, HPRT): each page as one `BITMAP` with its media set up before it
/// (`TSPLEncoder`), status from the one-byte answer to `<ESC>!?` (`TSPLStatus`).
public struct TSPLDriver: LanguageDriver {
  public let model: ModelEntry
  /// `DENSITY` 0–15 (the model's darkness range); nil: the printer's own setting.
  public var density: Int?
  public var finish: Finishing?

  public init(model: ModelEntry, settings: LabelSettings = LabelSettings()) throws(DriverError) {
    guard model.language == .tspl else { throw DriverError("\(model.name) is not a TSPL model") }
    self.model = model
    density = WholeLabelPage.density(settings, model: model)
    finish = settings.finish.flatMap(Finishing.init(rawValue:))
  }

  public var language: PrinterLanguage { .tspl }

  // MARK: pages

  /// Media of unknown length and kind, as wide as the label (or the image): the page is
  /// as long as its image, and no `GAP` is sent, so the printer keeps the gap or mark
  /// sensing it was set up with (TSPL keeps `GAP`/`BLINE` across jobs).
  public func assumedMedia(labelWidthMM: Double?) -> Media {
    Media(widthMM: labelWidthMM ?? 0, lengthMM: 0)
  }

  /// The whole label, edge to edge; continuous or unknown media up to 1 m a page (TSPL's
  /// `SIZE` range on 4 in desktop models). Media wider than the model's head is refused.
  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
    try WholeLabelPage.area(media: media, dpi: dpi, model: model)
  }

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    var options = TSPLOptions(
      dpi: dpi, widthMM: max(media.widthMM, 0), lengthMM: max(media.lengthMM, 0),
      density: density, finish: finish)
    options.gap =
      switch media.kind {
      case "continuous"?: .continuous
      case "labels"?: .gap(mm: 3)
      default: nil
      }
    return TSPLEncoder.encode(pages, options: options)
  }

  // MARK: status

  public var statusRequest: [UInt8] { TSPLStatus.request }
  public var statusRequestName: String { TSPLStatus.requestName }

  /// Every byte is a whole answer: `<ESC>!?` has no framing to check.
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    guard let byte = input.first else { return .needMore }
    return .status(TSPLStatus(byte).deviceStatus, consumed: 1)
  }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    guard reply.count == 1 else {
      throw DriverError("\(model.displayName): a status is one byte, got \(reply.count)")
    }
    return TSPLStatus(reply[0]).reasons
  }

  /// The labels the job prints (`PRINT m,n`: m x n each) and, where its first page says
  /// how labels are told apart (`GAP`/`BLINE`), the media its `SIZE` asks for; bytes that
  /// are not TSPL are one label for any media.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts {
    let decoder = TSPLDecoder(dpi: model.capabilities.dpi.first ?? 203)
    guard let job = try? decoder.decode(bytes, drawing: false), let first = job.pages.first
    else { return JobFacts(pages: 1) }
    let labels = job.pages.reduce(0) { $0 + min($1.copies, 1_000_000) }
    guard first.sensingSet else { return JobFacts(pages: max(1, min(labels, 1_000_000))) }
    let tenth = { (mm: Double) in (mm * 10).rounded() / 10 }
    return JobFacts(
      pages: max(1, min(labels, 1_000_000)),
      wants: MediaWant(
        dieCut: !first.continuous, widthMM: tenth(first.widthMM),
        lengthMM: first.continuous ? nil : tenth(first.lengthMM)))
  }
}
