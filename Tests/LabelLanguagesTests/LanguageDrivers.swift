import LabelCore
import LabelLanguages
import Testing

/// The driver of model `name` for `language`, built as labeld builds it (`DriverTable`,
/// with `settings`), as its own type.
func languageDriver<D: LanguageDriver>(
  _ name: String, _ language: PrinterLanguage, settings: LabelSettings = .init()
) throws -> D {
  var settings = settings
  settings.model = name
  return try #require(DriverTable.driver(for: language, settings: settings) as? D)
}
