import Foundation
import LabelCore
import LabelWire
import Testing

struct TemplateTests {
  static let media = TemplateMedia(widthMM: 50, lengthMM: 25)

  static func template(_ elements: [Element]) -> Template {
    Template(name: "t", media: media, elements: elements)
  }

  @Test func validTemplate_passes_andListsItsFields() throws {
    let t = Self.template([
      .text(TextElement(x: 1, y: 1, width: 48, height: 6, text: "${name} ${price}")),
      .barcode(BarcodeElement(x: 2, y: 8, symbology: .ean13, data: "${barcode}", height: 10)),
      .box(BoxElement(x: 0, y: 0, width: 50, height: 25)),
      .line(LineElement(x1: 0, y1: 20, x2: 50, y2: 20)),
    ])
    try t.validate()
    #expect(t.referencedFields == ["name", "price", "barcode"])
  }

  @Test func elementsOutsideTheMedia_nameElementAndField() {
    let cases: [(Element, String)] = [
      (.text(TextElement(x: 51, y: 1, width: 1, height: 1, text: "x")), "elements[0].x"),
      (.text(TextElement(x: 40, y: 1, width: 20, height: 1, text: "x")), "elements[0].width"),
      (.text(TextElement(x: 1, y: 1, width: 0, height: 1, text: "x")), "elements[0].width"),
      (
        .text(TextElement(x: 1, y: 1, width: 1, height: 1, text: "x", rotation: 45)),
        "elements[0].rotation"
      ),
      (
        .barcode(BarcodeElement(x: 1, y: 20, symbology: .code128, data: "A", height: 10)),
        "elements[0].height"
      ),
      (
        .barcode(BarcodeElement(x: 1, y: 1, symbology: .upca, data: "03600029145X", height: 5)),
        "elements[0].data"
      ),
      (
        .barcode(BarcodeElement(x: 1, y: 1, symbology: .code128, data: "Grüße", height: 5)),
        "elements[0].data"
      ),
      // Literal GTINs are checked at save: a 12-digit EAN-13 value is a GTIN-12 whose
      // check digit must be right (it is not completed to 13 digits).
      (
        .barcode(BarcodeElement(x: 1, y: 1, symbology: .ean13, data: "036000291453", height: 5)),
        "elements[0].data"
      ),
      (
        .barcode(BarcodeElement(x: 1, y: 1, symbology: .upca, data: "03600029145", height: 5)),
        "elements[0].data"
      ),
      (.box(BoxElement(x: 1, y: -1, width: 1, height: 1)), "elements[0].y"),
      (.line(LineElement(x1: 0, y1: 0, x2: 60, y2: 0)), "elements[0].x2"),
    ]
    for (element, field) in cases {
      do {
        try Self.template([element]).validate()
        Issue.record("\(element) should not validate")
      } catch {
        #expect(error.field == field)
      }
    }
  }

  @Test func json_roundTripsWithTypeTags() throws {
    let json =
      #"{"name":"t","media":{"widthMM":50,"lengthMM":25},"elements":[{"type":"text","x":1,"y":1,"width":10,"height":5,"text":"hi","weight":"bold"},{"type":"barcode","x":1,"y":8,"symbology":"qr","data":"x","height":10}]}"#
    let t = try LabelJSON.decoder().decode(Template.self, from: Data(json.utf8))
    #expect(t.elements.count == 2)
    let again = try LabelJSON.decoder().decode(Template.self, from: LabelJSON.encoder().encode(t))
    #expect(again == t)
  }

  /// A tape template's growth (issue 39): added members, read and written back, checked,
  /// and a misspelt one named.
  @Test func tapeGrowth_roundTrips_isChecked_andAMisspeltMemberIsNamed() throws {
    let json =
      #"{"name":"t","media":{"widthMM":30,"lengthMM":12,"grow":true,"minWidthMM":15,"marginMM":3},"elements":[]}"#
    let t = try LabelJSON.decoder().decode(Template.self, from: Data(json.utf8))
    #expect(
      t.media == TemplateMedia(widthMM: 30, lengthMM: 12, grow: true, minWidthMM: 15, marginMM: 3))
    #expect(t.media.grows && t.media.margin == 3 && t.media.minimumWidth == 15)
    let again = try LabelJSON.decoder().decode(Template.self, from: LabelJSON.encoder().encode(t))
    #expect(again == t)
    // Defaults: no growth, a 2 mm margin, the template's own width as the minimum.
    let plain = TemplateMedia(widthMM: 30, lengthMM: 12)
    #expect(!plain.grows && plain.margin == 2 && plain.minimumWidth == 30)
    for (media, field) in [
      (TemplateMedia(widthMM: 30, lengthMM: 12, minWidthMM: 0), "media.minWidthMM"),
      (TemplateMedia(widthMM: 30, lengthMM: 12, minWidthMM: .nan), "media.minWidthMM"),
      (TemplateMedia(widthMM: 30, lengthMM: 12, marginMM: -1), "media.marginMM"),
      (TemplateMedia(widthMM: 30, lengthMM: 12, marginMM: 101), "media.marginMM"),
    ] {
      #expect(throws: FieldError.self) {
        try Template(name: "t", media: media, elements: []).validate()
      }
      do {
        try Template(name: "t", media: media, elements: []).validate()
      } catch {
        #expect(error.field == field)
      }
    }
    let misspelt = try JSONValue.parse(
      Array(#"{"name":"t","media":{"widthMM":30,"lengthMM":12,"grows":true},"elements":[]}"#.utf8))
    #expect(TemplateKeys.unknownMember(in: misspelt)?.field == "media.grows")
  }

  @Test func unknownElementType_isADecodingErrorAtItsPath() {
    let json =
      #"{"template":{"name":"t","media":{"widthMM":50,"lengthMM":25},"elements":[{"type":"circle"}]}}"#
    struct Wrapper: Decodable { var template: Template }
    do {
      _ = try LabelJSON.decoder().decode(Wrapper.self, from: Data(json.utf8))
      Issue.record("should fail")
    } catch let e as DecodingError {
      #expect(FieldError(e).field == "template.elements[0].type")
    } catch {
      Issue.record("unexpected \(error)")
    }
  }
}

/// Sizes a template may ask for are bounded where rendering would otherwise overflow a
/// conversion or allocate without bound (issue: no peer can crash labeld).
struct TemplateBoundsTests {
  static func validate(_ element: Element) -> String? {
    do {
      try TemplateTests.template([element]).validate()
      return nil
    } catch {
      return error.field
    }
  }

  @Test func hugeFontSizeModuleOrThickness_isRefused_namingTheField() {
    #expect(
      Self.validate(.text(TextElement(x: 1, y: 1, width: 10, height: 5, text: "x", size: 3e6)))
        == "elements[0].size")
    #expect(
      Self.validate(
        .barcode(
          BarcodeElement(
            x: 1, y: 1, symbology: .qr, data: "x", height: 10, moduleWidth: 1e300)))
        == "elements[0].moduleWidth")
    #expect(
      Self.validate(.box(BoxElement(x: 1, y: 1, width: 5, height: 5, thickness: 1e300)))
        == "elements[0].thickness")
    #expect(
      Self.validate(.line(LineElement(x1: 1, y1: 1, x2: 5, y2: 5, thickness: 1e300)))
        == "elements[0].thickness")
    // The largest sizes allowed still validate.
    #expect(
      Self.validate(
        .text(TextElement(x: 1, y: 1, width: 10, height: 5, text: "x", size: TextElement.maxPoints))
      )
        == nil)
    #expect(
      Self.validate(
        .barcode(
          BarcodeElement(
            x: 1, y: 1, symbology: .code128, data: "x", height: 10,
            moduleWidth: BarcodeElement.maxModuleMM))) == nil)
  }

  @Test func filledText_isBounded_namingTheFieldThatOverflows() {
    let long = String(repeating: "a", count: 1000)
    let text = String(repeating: "${a}", count: 1000)
    guard case .failure(let e) = Placeholders.fill(text, from: ["a": long]) else {
      Issue.record("a 1 MB expansion was accepted")
      return
    }
    #expect(e.field == "a")
    #expect(e.reason.contains("\(Placeholders.maxFilledBytes)"))
    // Right up to the bound is fine.
    let fits = String(repeating: "b", count: Placeholders.maxFilledBytes - 1)
    #expect((try? Placeholders.fill("${b}!", from: ["b": fits]).get())?.utf8.count == 65_536)
  }
}
