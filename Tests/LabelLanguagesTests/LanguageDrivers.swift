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

/// A replayable pattern of dots for round trips: each dot black with probability
/// `density`/16 from a linear congruential sequence started at `seed`; rows `skipping`
/// names stay white (runs for encoders that compress).
func noise(
  width: Int, height: Int, seed: UInt32, density: UInt32,
  skipping: (Int) -> Bool = { _ in false }
) -> Bitmap {
  var page = Bitmap(width: width, height: height)
  var seed = seed
  for y in 0..<height where !skipping(y) {
    for x in 0..<width {
      seed = seed &* 1_103_515_245 &+ 12345
      if seed >> 28 < density { page[x, y] = true }
    }
  }
  return page
}
