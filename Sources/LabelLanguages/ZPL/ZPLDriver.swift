import LabelCore

/// ZPL II printers: templates drawn by the printer (`ZPLEncoder`), pages as `^GFA`
/// graphics, status from `~HQES` (Zebra Programming Guide, "~HQ Host Query").
public struct ZPLDriver: TemplateEncoding {
  public let model: ModelEntry
  public var options: ZPLOptions?

  public init(model: ModelEntry = DriverTable.genericZPL, options: ZPLOptions? = nil) {
    self.model = model
    self.options = options
  }

  /// With a printer's settings: `~SD` darkness and the `^MM` finishing mode.
  public init(model: ModelEntry, settings: LabelSettings) {
    let modes: [String: ZPLPrintMode] = ["tear": .tear, "cut": .cut, "peel": .peel]
    self.init(
      model: model,
      options: ZPLOptions(
        dpi: model.language.profile.defaultDPI, darkness: settings.darkness,
        mode: settings.finish.flatMap { modes[$0] }))
  }

  public var language: PrinterLanguage { .zpl }

  // MARK: pages

  /// Unknown media is width 0: no `^PW` is sent and the printer's own width stands.
  public func assumedMedia(labelWidthMM: Double?) -> Media { Media(widthMM: 0, lengthMM: 0) }

  /// The whole media, edge to edge (`^PW` is the media's width); any size when unknown.
  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
    guard let zpl = ZPLMedia(media, dpi: dpi) else {
      return PageArea(width: nil, length: nil, maxLength: nil, description: "media is not known")
    }
    let name =
      media.lengthMM == 0
      ? "\(millimetres(media.widthMM)) mm continuous"
      : "\(millimetres(media.widthMM)) x \(millimetres(media.lengthMM)) mm"
    return PageArea(
      width: zpl.widthDots, length: zpl.lengthDots, maxLength: nil,
      description:
        "\(name) label is \(zpl.widthDots) x \(zpl.lengthDots.map(String.init) ?? "any") "
        + "dots at \(dpi) dpi")
  }

  /// Each page as a `^GFA` label at the top-left; `^PW`/`^LL` from `media` (a width of 0
  /// means it is not known, and then no `^PW` is sent).
  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    let opts = options(media: media, dpi: dpi)
    return Array(pages.map { ZPLEncoder.label($0, options: opts) }.joined().utf8)
  }

  public func encode(
    template: Template, data: [String: String], images: [Int: Bitmap], media: Media, dpi: Int
  ) throws(DrawingError) -> [UInt8] {
    Array(
      try ZPLEncoder.label(
        template, data: data, options: options(media: media, dpi: dpi), images: images
      ).utf8)
  }

  private func options(media: Media, dpi: Int) -> ZPLOptions {
    var opts = options ?? ZPLOptions(dpi: dpi)
    opts.dpi = dpi
    opts.media = ZPLMedia(media, dpi: dpi)
    return opts
  }

  // MARK: status

  public var statusRequest: [UInt8] { Array(ZebraExtendedStatus.request.utf8) }
  public var statusRequestName: String { ZebraExtendedStatus.request }

  /// One `~HQES` answer: an STX…ETX block (bytes before the STX go with it).
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    guard let stx = input.firstIndex(of: 0x02), let etx = input[stx...].firstIndex(of: 0x03)
    else { return .needMore }
    let consumed = etx + 1 - input.startIndex
    do {
      let status = try ZebraExtendedStatus(input[stx...etx])
      return .status(
        DeviceStatus(kind: .reply, faults: status.reasons, detail: statusRequestName),
        consumed: consumed)
    } catch {
      return .unreadable("\(error)", consumed: consumed)
    }
  }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    do {
      return try ZebraExtendedStatus(reply).reasons
    } catch {
      throw DriverError("\(model.name): unreadable ~HQES reply: \(error)")
    }
  }
}
