import LabelCore
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Labels on tape: the tape is the label's height (the template scaled to it), and a
/// growing template is as long as its content, with its margin and minimum.
struct TapeLabelTests {
  /// 12 mm of a 70-dot tape (a P-touch's 12 mm tape at 180 dpi).
  static let tape = 70

  func name(_ text: String, grow: Bool, min: Double? = nil, margin: Double? = nil) -> Template {
    Template(
      name: "tape",
      media: TemplateMedia(
        widthMM: 20, lengthMM: 12, grow: grow, minWidthMM: min, marginMM: margin),
      elements: [.text(TextElement(x: 1, y: 1, width: 18, height: 10, text: text, size: 20))])
  }

  @Test func aFixedTemplate_isScaledToTheTapesHeight_andKeepsItsProportions() throws {
    let bitmap = try LabelRasteriser().renderTape(
      name("A", grow: false), data: [:], height: Self.tape, maxLength: 10_000)
    // Drawn at the resolution that makes 12 mm 70 dots: floor(70 * 25.4 / 12) = 148 dpi.
    #expect(bitmap.height == Self.tape)
    #expect(bitmap.width == dotsAt(20, 148))
    #expect(bitmap.blackCount > 0)
    // Twice the tape: twice the label, text and all.
    let wide = try LabelRasteriser().renderTape(
      name("A", grow: false), data: [:], height: 2 * Self.tape, maxLength: 10_000)
    #expect(wide.height == 2 * Self.tape)
    #expect(abs(wide.width - 2 * bitmap.width) <= 2)
    let (small, large) = (try #require(InkBox(bitmap)), try #require(InkBox(wide)))
    #expect(abs((large.maxY - large.minY) - 2 * (small.maxY - small.minY)) <= 3)
  }

  @Test func aGrowingTemplate_isAsLongAsItsText_plusItsMargin() throws {
    let r = LabelRasteriser()
    let short = try r.renderTape(
      name("Nut", grow: true, min: 5), data: [:], height: Self.tape, maxLength: 10_000)
    let long = try r.renderTape(
      name(String(repeating: "Nut ", count: 10), grow: true, min: 5), data: [:],
      height: Self.tape, maxLength: 10_000)
    #expect(long.width > 4 * short.width, "\(long.width) vs \(short.width)")
    // The text is not shrunk: the long name's letters are as tall as the short one's.
    let (a, b) = (try #require(InkBox(short)), try #require(InkBox(long)))
    #expect(abs((a.maxY - a.minY) - (b.maxY - b.minY)) <= 4)
    // 2 mm (the default margin) after the last dot, at the drawing's 148 dpi.
    #expect(long.width - 1 - b.maxX == dotsAt(2, 148))
    // At least its minimum: 20 mm by default (the template's width).
    let floor = try r.renderTape(
      name("Nut", grow: true), data: [:], height: Self.tape, maxLength: 10_000)
    #expect(floor.width == dotsAt(20, 148))
    let margined = try r.renderTape(
      name("Nut", grow: true, min: 5, margin: 10), data: [:], height: Self.tape,
      maxLength: 10_000)
    #expect(margined.width - 1 - (try #require(InkBox(margined))).maxX == dotsAt(10, 148))
  }

  @Test func whatLiesPastAGrowingText_movesAlongWithIt() throws {
    var template = name("${name}", grow: true, min: 5)
    template.media.widthMM = 40
    // A bar right after the text's box.
    template.elements.append(.box(BoxElement(x: 20, y: 1, width: 2, height: 10, fill: true)))
    let r = LabelRasteriser()
    let short = try r.renderTape(
      template, data: ["name": "M6"], height: Self.tape, maxLength: 10_000)
    let long = try r.renderTape(
      template, data: ["name": "Stainless steel washers"], height: Self.tape, maxLength: 10_000)
    func barStart(_ b: Bitmap) -> Int? {
      // The filled bar is the only column black from top to bottom of its 10 mm.
      (0..<b.width).last { x in (12..<58).allSatisfy { b[x, $0] } }
    }
    let (s, l) = (try #require(barStart(short)), try #require(barStart(long)))
    #expect(s == dotsAt(20, 148) + dotsAt(2, 148) - 1, "a short name leaves the bar where it was")
    #expect(l > s + dotsAt(20, 148), "the bar moved along with the name: \(l) vs \(s)")
    // Nothing of the name lies under the bar.
    let text = try #require(InkBox(long))
    #expect(text.maxX == l)
  }

  @Test func contentLongerThanATapeLabelMayBe_isRefusedSayingSo() throws {
    let text = String(repeating: "Long product name ", count: 40)
    #expect {
      try LabelRasteriser().renderTape(
        name(text, grow: true), data: [:], height: Self.tape, maxLength: 1000)
    } throws: { error in
      (error as? DrawingError).map {
        $0.field == "media" && $0.reason.contains("runs past the 171.6 mm")
      } ?? false
    }
    #expect {
      try LabelRasteriser().renderTape(
        name("A", grow: false), data: [:], height: Self.tape, maxLength: 50)
    } throws: { error in
      (error as? DrawingError)?.field == "media.widthMM"
    }
  }

  @Test func turningALabelIntoATapePage_andBack() {
    var label = Bitmap(width: 5, height: 3)
    label[0, 0] = true  // top-left: the label's start, at its top edge
    label[4, 2] = true  // bottom-right: its end, at the bottom edge
    let page = label.turnedCounterClockwise()
    #expect(page.width == 3 && page.height == 5)
    // The top edge along column 0, the right-hand end printed first (row 0).
    #expect(page[0, 4] && page[2, 0] && page.blackCount == 2)
    #expect(page.turnedClockwise() == label)
  }

  /// A barcode pushed along by a growing name is drawn whole, and scans: the canvas a
  /// growing label is drawn on reaches as far as its elements do, the symbol included.
  @Test(.enabled(if: ZBar.available, "needs zbarimg (Debian zbar-tools; `make deps` installs it)"))
  func aBarcodePushedAlong_isDrawnWhole_andScans() throws {
    let template = Template(
      // Room for the symbol's quiet zones: 5 mm before it and after it.
      name: "tag",
      media: TemplateMedia(widthMM: 40, lengthMM: 12, grow: true, minWidthMM: 10, marginMM: 5),
      elements: [
        .text(TextElement(x: 1, y: 1, width: 10, height: 10, text: "${name}", size: 20)),
        .barcode(
          BarcodeElement(
            x: 16, y: 1, symbology: .code128, data: "${sku}", height: 8, moduleWidth: 0.25,
            humanReadable: false)),
      ])
    let label = try LabelRasteriser().renderTape(
      template, data: ["name": "Stainless steel washers", "sku": "SKU-1003"], height: 128,
      maxLength: 20_000)
    let read = try ZBar.decode(try PNGCodec.encode(label))
    #expect(read == ["SKU-1003"], "\(read)")
    // It ends its 5 mm margin after the symbol's last bar.
    let ink = try #require(InkBox(label))
    #expect(label.width - 1 - ink.maxX == dotsAt(5, TapeLabelTestsDPI.of(template, 128)))
  }
}

enum TapeLabelTestsDPI {
  /// The resolution a template is drawn at on tape `height` dots high.
  static func of(_ template: Template, _ height: Int) -> Int {
    Int((Double(height) * 25.4 / template.media.lengthMM).rounded(.down))
  }
}
