import LabelCore

/// What a printer language implies where nothing else says (no model row matched, no
/// media reported): one data row per language, so that nothing outside the driver layer
/// switches on the language for a default. A new language is a new row.
public struct LanguageProfile: Sendable, Equatable {
  public var language: PrinterLanguage
  /// The resolution a printer of this language is taken to have.
  public var defaultDPI: Int
  /// The only resolution the language's printers have, where there is one (Brother QL:
  /// 300 dpi), else nil.
  public var onlyDPI: Int?
  /// The media a simulated printer of this language has unless told otherwise.
  public var defaultMedia: Media
  /// The media type of a native document (`labels.render` format `native`).
  public var mediaType: String
  /// What a simulated printer of this language calls itself; `model` is the driver model
  /// it takes the raster of, where the language has models that differ (Brother QL).
  public var simulatedName: @Sendable (_ model: String?) -> String

  public static func == (a: LanguageProfile, b: LanguageProfile) -> Bool {
    a.language == b.language && a.defaultDPI == b.defaultDPI && a.onlyDPI == b.onlyDPI
      && a.defaultMedia == b.defaultMedia && a.mediaType == b.mediaType
  }

  /// The Brother QL model a printer is taken to be when nothing says otherwise.
  public static let defaultBrotherQLModel = "QL-820NWB"

  /// ZPL II: 203 dpi desktop printers, a 2 x 1 in label (Zebra Programming Guide: the
  /// GK/GX/ZD desktop family's standard head).
  public static let zpl = LanguageProfile(
    language: .zpl, defaultDPI: 203, onlyDPI: nil,
    defaultMedia: Media(widthMM: 50.8, lengthMM: 25.4, kind: "labels"),
    mediaType: "application/vnd.zebra-zpl", simulatedName: { _ in "Simulated ZPL printer" })

  /// Brother QL: 300 dpi heads only (Brother's QL raster command reference), a 62 mm
  /// continuous roll (DK-22205), the most common.
  public static let brotherQL = LanguageProfile(
    language: .brotherQL, defaultDPI: 300, onlyDPI: 300,
    defaultMedia: Media(widthMM: 62, lengthMM: 0, kind: "continuous"),
    mediaType: "application/vnd.brother-ql-raster",
    simulatedName: { model in "Simulated Brother \(model ?? defaultBrotherQLModel)" })

  public static let all: [LanguageProfile] = [zpl, brotherQL]
}

extension PrinterLanguage {
  /// This language's row of `LanguageProfile`.
  public var profile: LanguageProfile {
    switch self {
    case .zpl: .zpl
    case .brotherQL: .brotherQL
    }
  }
}
