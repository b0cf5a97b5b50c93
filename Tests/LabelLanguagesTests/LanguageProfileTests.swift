import LabelCore
import Testing

@testable import LabelLanguages

/// The per-language defaults, one row each: every language has its row, and the rows say
/// what the languages' printers are.
@Suite struct LanguageProfileTests {
  @Test func everyLanguage_hasItsOwnRow() {
    for language in PrinterLanguage.allCases {
      #expect(language.profile.language == language)
      #expect(LanguageProfile.all.contains(language.profile))
    }
    #expect(LanguageProfile.all.count == PrinterLanguage.allCases.count)
  }

  @Test func theRows_sayWhatThePrintersAre() {
    #expect(PrinterLanguage.zpl.profile.defaultDPI == 203)
    #expect(PrinterLanguage.zpl.profile.onlyDPI == nil)
    #expect(PrinterLanguage.brotherQL.profile.onlyDPI == 300)
    #expect(PrinterLanguage.brotherQL.profile.defaultMedia.lengthMM == 0)  // continuous
    #expect(BrotherQLModel.named(LanguageProfile.defaultBrotherQLModel) != nil)
    #expect(
      PrinterLanguage.brotherQL.profile.simulatedName(nil) == "Simulated Brother QL-820NWB")
    #expect(Set(LanguageProfile.all.map(\.mediaType)).count == LanguageProfile.all.count)
  }
}
