import LabelCore

/// DYMO LabelManager tape printers: D1 tape at 180 dpi, pages in head orientation
/// (`DymoLMEncoder`), status from the answer to `ESC A` (`DymoLMStatus`).
public struct DymoLMDriver: LanguageDriver {
  public let model: ModelEntry
  /// The model's head and feeds.
  public let printer: DymoLMModel

  public init(model: ModelEntry) throws(DriverError) {
    guard model.language == .dymoLM, let printer = DymoLMModel.named(model.name) else {
      throw DriverError("\(model.name) is not a DYMO LabelManager model")
    }
    self.model = model
    self.printer = printer
  }

  public var language: PrinterLanguage { .dymoLM }

  /// The tape most LabelManagers come with and every one takes.
  public static let assumedTape = DymoLMTape.mm12

  // MARK: pages

  /// 12 mm tape, or the label's width where it is a tape this model takes: a LabelManager
  /// does not say what is loaded until asked (the PnP, 420P and 450 then do).
  public func assumedMedia(labelWidthMM: Double?) -> Media {
    let tape =
      labelWidthMM.flatMap(DymoLMTape.init(widthMM:)).flatMap {
        printer.tapes.contains($0) ? $0 : nil
      } ?? Self.assumedTape
    return Media(widthMM: Double(tape.widthMM), lengthMM: 0, kind: "tape")
  }

  /// The columns DYMO's filter prints for the tape (the CUPS raster page's width, or the
  /// head's when the page is wider), any length up to DYMO's continuous page (4000 points,
  /// 10000 lines). Media of no known width is the assumed 12 mm tape.
  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
    let tape = try self.tape(media, dpi: dpi)
    let columns = printer.placement(for: tape, dpi: dpi).columns
    let lines = 4000 * dpi / 72
    return PageArea(
      width: columns, length: nil, maxLength: lines,
      description: "\(tape.widthMM) mm tape prints \(columns) dots across and at most \(lines) "
        + "lines at \(dpi) dpi",
      tape: true)
  }

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    DymoLMEncoder.encode(
      pages, options: DymoLMOptions(model: printer, tape: try tape(media, dpi: dpi)))
  }

  /// The D1 tape `media` is; a width that is none, or a tape the model does not take,
  /// throws naming both.
  func tape(_ media: Media, dpi: Int) throws(DriverError) -> DymoLMTape {
    guard dpi == 180 else {
      throw DriverError("\(model.displayName) prints at 180 dpi, not \(dpi)")
    }
    guard media.widthMM > 0 else { return Self.assumedTape }
    let widths = printer.tapes.map { String($0.widthMM) }
    let list = widths.dropLast().joined(separator: ", ") + " or " + (widths.last ?? "")
    guard let tape = DymoLMTape(widthMM: media.widthMM), printer.tapes.contains(tape) else {
      throw DriverError(
        "\(model.displayName) takes \(list) mm D1 tape; \(millimetres(media.widthMM)) mm "
          + "tape is not one of them")
    }
    return tape
  }

  // MARK: status

  public var statusRequest: [UInt8] { DymoLMStatus.request }
  public var statusRequestName: String { DymoLMStatus.requestName }

  /// An answer is `DymoLMStatus.replyLength` bytes; on a model that names its tape, a
  /// second byte past 5 is not a LabelManager status.
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    let n = DymoLMStatus.replyLength
    guard input.count >= n else { return .needMore }
    let reply = Array(input.prefix(n))
    if printer.reportsTape && reply[1] > 5 {
      return .unreadable(
        "\(statusRequestName) answer \(reply.map(hexByte).joined(separator: " ")) names no tape",
        consumed: n)
    }
    return .status(DymoLMStatus(reply, reportsTape: printer.reportsTape).deviceStatus, consumed: n)
  }

  /// DYMO's filter reads up to 16 bytes and uses the first two.
  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    guard (2...16).contains(reply.count) else {
      throw DriverError(
        "\(model.displayName): a status is 2 to 16 bytes, got \(reply.count)")
    }
    return DymoLMStatus(reply, reportsTape: printer.reportsTape).reasons
  }

  /// The labels the job prints (one per cut or chain mark); the stream never says which
  /// tape it is for. Bytes that are not LabelManager data are one label.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts {
    guard let job = try? DymoLMDecoder().decode(bytes, drawing: false) else {
      return JobFacts(pages: 1)
    }
    return JobFacts(pages: max(1, min(job.pages.count, 1_000_000)))
  }
}
