import LabelCore

/// Brother P-touch tape printers: pages as raster lines across the tape, status from the
/// 32-byte reply, which the printer also sends unasked as each page prints ("Printing
/// completed", the references' flow charts 5.1–5.5: confirmation per page, as the QL).
///
/// Cutting follows the printer's `finish` setting: none (the default) cuts each label, a
/// half cut on models with a half cutter as the vendor's PPDs default to; `cut` a full
/// cut; `peel` a half cut (crack and peel) where there is a half cutter, else a full cut;
/// `tear` no automatic cut. The last label is always fed and cut (no chain printing).
public struct BrotherPTDriver: LanguageDriver {
  public let model: ModelEntry
  public let pt: BrotherPTModel
  public var autoCut: Bool
  public var halfCut: Bool

  public init(model: ModelEntry, settings: LabelSettings = LabelSettings()) throws(DriverError) {
    guard model.language == .brotherPT, let pt = BrotherPTModel.named(model.name) else {
      throw DriverError("\(model.name) is not a Brother P-touch model")
    }
    self.model = model
    self.pt = pt
    autoCut = settings.finish != "tear"
    halfCut = autoCut && settings.finish != "cut" && pt.hasHalfCutter
  }

  public var language: PrinterLanguage { .brotherPT }

  // MARK: pages

  /// The tape as wide as the label where the model takes one, else 24 mm tape (the
  /// model's widest if it takes no 24 mm tape).
  public func assumedMedia(labelWidthMM: Double?) -> Media {
    let head = pt.head
    let tape =
      labelWidthMM.flatMap { head.tape(widthMM: $0) } ?? head.tape(widthMM: 24)
      ?? head.tapes.last
    return Media(widthMM: tape?.widthMM ?? 24, lengthMM: 0, kind: "tape")
  }

  /// The tape `media` describes: continuous, as wide as one the model's head takes.
  public func tape(for media: Media) throws(DriverError) -> BrotherPTTape {
    guard media.lengthMM == 0 else {
      throw DriverError(
        "\(pt.name) prints on tape, not \(millimetres(media.widthMM)) x "
          + "\(millimetres(media.lengthMM)) mm labels")
    }
    guard let tape = pt.head.tape(widthMM: media.widthMM) else {
      let widths = pt.head.tapes.map { millimetres($0.widthMM) }.joined(separator: ", ")
      throw DriverError(
        "\(pt.name) takes no \(millimetres(media.widthMM)) mm tape (it takes \(widths) mm)")
    }
    return tape
  }

  /// The tape's print area: its printable dots across, at most the head's longest page
  /// along it.
  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
    let tape = try tape(for: media)
    try check(dpi: dpi)
    return PageArea(
      width: tape.printableDots, length: nil, maxLength: pt.head.lineRange.upperBound,
      description: "\(tape) prints \(tape.printableDots) dots across and at most "
        + "\(pt.head.lineRange.upperBound) lines at \(pt.head.dpi) dpi",
      tape: true)
  }

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    let tape = try tape(for: media)
    try check(dpi: dpi)
    do {
      let encoder = try BrotherPTEncoder(
        BrotherPTOptions(model: pt, tape: tape, autoCut: autoCut, halfCut: halfCut))
      return try encoder.encode(pages)
    } catch {
      throw DriverError("\(pt.name): \(error.message)")
    }
  }

  /// Pages come at the head's one resolution (its high-resolution mode is not used).
  private func check(dpi: Int) throws(DriverError) {
    guard dpi == pt.head.dpi else {
      throw DriverError("\(pt.name) prints at \(pt.head.dpi) dpi, not \(dpi)")
    }
  }

  // MARK: status

  public var statusRequest: [UInt8] { BrotherStatusBlock.request }
  /// "Invalidate" NULs and `ESC @` clear a command the printer may be in the middle of.
  public var statusPreamble: [UInt8] {
    [UInt8](repeating: 0, count: pt.invalidateCount) + BrotherPTCommand.initialize
  }
  public var statusRequestName: String { "ESC i S" }
  /// Network P-touch models print what arrives on TCP 9100 and answer nothing there; they
  /// give the same 32 bytes over SNMP, at the QL's object (reported for the PT-E550W,
  /// PT-P750W and PT-P950NW by independent network drivers).
  public var answersStatusOverSocket: Bool { false }
  public var snmpStatusOID: [UInt32]? { [1, 3, 6, 1, 4, 1, 2435, 3, 3, 9, 1, 6, 1, 0] }

  /// One 32-byte status starting `80 20 42`; anything else is skipped a byte at a time.
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    BrotherStatusBlock.scan(input) { (try? BrotherPTStatus($0))?.deviceStatus }
  }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    do {
      return try BrotherPTStatus(reply).reasons
    } catch {
      throw DriverError("\(pt.name): unreadable status reply: \(error.message)")
    }
  }

  /// A P-touch job names its tape (`ESC i z`) and the printer takes no other: a label is
  /// drawn for the cassette the printer reports, never for a guess.
  public var needsKnownMedia: Bool { true }

  /// The job's pages and the tape its first `ESC i z` is for; a job that is not P-touch
  /// raster for this head is one page for any tape.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts {
    guard
      let job = try? BrotherPTRasterDecoder(model: pt).decode(bytes, keepingLines: false)
    else { return JobFacts(pages: 1) }
    let wants = job.pages.first?.printInformation?.tapeWidthMM.map {
      MediaWant(dieCut: false, widthMM: $0, lengthMM: nil, tape: true)
    }
    return JobFacts(pages: max(job.pages.count, 1), wants: wants)
  }
}
