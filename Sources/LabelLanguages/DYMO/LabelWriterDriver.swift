import LabelCore

/// What the DYMO LabelWriter drivers share, the 4xx (`DymoLWDriver`) and the 550 series
/// (`DymoLW5Driver`): the head, the media assumed, the page area, the one resolution and
/// the four densities.
public protocol LabelWriterDriver: LanguageDriver {}

extension LabelWriterDriver {
  /// Dots across the head at 300 dpi: 1248 on the 4XL and 5XL (4.16 in), 672 on the others
  /// (2.24 in; LW 450 Series Technical Reference, "Print Head").
  public var headDots: Int {
    model.modelPrefixes.contains { $0.hasSuffix("4xl") || $0.hasSuffix("5xl") } ? 1248 : 672
  }

  /// The label's width (or the head's), the image's length: a 4xx does not say what is
  /// loaded and finds a die-cut label's top by its sense hole; a 550's roll tells it the
  /// label's length.
  public func assumedMedia(labelWidthMM: Double?) -> Media {
    Media(widthMM: labelWidthMM ?? 0, lengthMM: 0)
  }

  /// The label from its left edge (the paper guide, where the head's first dot is), as
  /// wide as the label or the head, whichever is narrower (a 2.3125 in label is wider than
  /// the 2.24 in head); labels wider than the paper path are refused.
  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
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

  /// LabelWriters print at 300 dpi only.
  func checkResolution(_ dpi: Int) throws(DriverError) {
    guard dpi == 300 else {
      throw DriverError("\(model.displayName) prints at 300 dpi, not \(dpi)")
    }
  }

  /// `settings.darkness` (0–3) as a density command.
  static func density(_ settings: LabelSettings, model: ModelEntry) -> DymoLWDensity? {
    WholeLabelPage.density(settings, model: model).flatMap(DymoLWDensity.init)
  }
}
