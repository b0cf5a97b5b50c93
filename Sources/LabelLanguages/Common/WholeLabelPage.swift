import LabelCore

/// What the drivers of label printers that take each page as one image at the media's
/// size share (TSPL, EPL2): the darkness on the model's scale, and the page area.
enum WholeLabelPage {
  /// `settings.darkness` clamped to the model's range (0–15 when the row has none).
  static func density(_ settings: LabelSettings, model: ModelEntry) -> Int? {
    let range = model.capabilities.darkness ?? 0...15
    return settings.darkness.map { min(max($0, range.lowerBound), range.upperBound) }
  }

  /// The whole label, edge to edge; continuous or unknown media up to 1 m a page. Media
  /// wider than the model's head is refused.
  static func area(media: Media, dpi: Int, model: ModelEntry) throws(DriverError) -> PageArea {
    let widest = model.capabilities.widthMM.upperBound
    guard media.widthMM <= widest else {
      throw DriverError(
        "\(model.displayName) prints at most \(millimetres(widest)) mm across; "
          + "\(millimetres(media.widthMM)) mm media is wider")
    }
    let dots = { (mm: Double) in roundedClamped(mm * Double(dpi) / 25.4, to: 0...100_000) }
    let width = media.widthMM > 0 ? dots(media.widthMM) : nil
    let length = media.lengthMM > 0 ? dots(media.lengthMM) : nil
    let name =
      media.widthMM <= 0
      ? "media is not known"
      : media.lengthMM <= 0
        ? "\(millimetres(media.widthMM)) mm continuous media is \(width ?? 0) dots across"
        : "\(millimetres(media.widthMM)) x \(millimetres(media.lengthMM)) mm label is "
          + "\(width ?? 0) x \(length ?? 0) dots"
    return PageArea(
      width: width, length: length, maxLength: length == nil ? dots(1000) : nil,
      description: "\(name) at \(dpi) dpi")
  }
}
