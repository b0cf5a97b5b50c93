import Testing

@testable import LabelLanguages

struct BrotherQLModelsTests {
  @Test func models_haveUniqueNamesAndUSBIDs() {
    let names = BrotherQLModel.all.map(\.name)
    let ids = BrotherQLModel.all.compactMap(\.usbProductID)
    #expect(Set(names).count == names.count)
    #expect(Set(ids).count == ids.count)
    #expect(BrotherQLModel.usb(productID: 0x209D)?.name == "QL-820NWB")
    #expect(BrotherQLModel.named("ql-1060n")?.isWide == true)
    #expect(BrotherQLModel.named("QL-9999") == nil)
    #expect(BrotherQLModel.statusModelCode(0x41)?.name == "QL-820NWB")
    #expect(BrotherQLModel.all.allSatisfy { $0.usbProductID != nil })
  }

  /// brother_ql_next: 400 NULs on the QL-8xx, 200 elsewhere; 162-byte lines with a 44-dot
  /// offset on the QL-10xx/11xx.
  @Test(arguments: BrotherQLModel.all)
  func modelRows_followBrotherQL(m: BrotherQLModel) {
    #expect(m.invalidateCount == (m.name.hasPrefix("QL-8") ? 400 : 200))
    #expect(m.bytesPerLine == (m.name.hasPrefix("QL-1") ? 162 : 90))
    #expect(m.extraMargin == (m.isWide ? 44 : 0))
    #expect(m.twoColor == m.name.hasPrefix("QL-8"))
    #expect(m.hasCutter == (m.name != "QL-500"))
  }

  /// Every roll fits every head it claims to, only wide heads take wide rolls, and only
  /// two-colour models the red/black roll.
  @Test(arguments: BrotherQLMedia.all)
  func media_fitsTheHeadsItShould(m: BrotherQLMedia) {
    for model in BrotherQLModel.all {
      #expect(
        m.fits(model) == ((model.isWide || !m.needsWideHead) && (!m.redBlack || model.twoColor)),
        "\(m) on \(model)")
    }
    #expect(m.printableWidth > 0 && (m.kind == .continuous) == (m.lengthMM == 0))
    #expect((m.kind == .continuous) == (m.printableLength == 0))
    #expect(m.widthMM * 300 * 10 / 254 >= m.printableWidth)  // printable fits the tape
  }

  @Test func mediaLookups() {
    #expect(BrotherQLMedia.named("39x90")?.id == "38x90")
    #expect(BrotherQLMedia.named("102x152")?.lengthMM == 153)
    #expect(BrotherQLMedia.continuous(widthMM: 62)?.printableWidth == 696)
    #expect(BrotherQLMedia.matching(widthMM: 62, lengthMM: 29, kind: .dieCut)?.id == "62x29")
    #expect(BrotherQLMedia.matching(widthMM: 62, lengthMM: 99, kind: .dieCut) == nil)
    #expect(Set(BrotherQLMedia.all.map(\.id)).count == BrotherQLMedia.all.count)
  }
}
