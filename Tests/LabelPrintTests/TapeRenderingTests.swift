import Foundation
import LabelCore
import LabelLanguages
import LabelRender
import Testing

@testable import LabelPrint

/// Labels on tape through the one renderer every front uses: the preview reads along the
/// tape, as high as the tape's printable dots, and the printer's bytes carry exactly that
/// label turned onto the head; a PNG document reads the same way, and one taller than the
/// tape is refused naming it.
@Suite struct TapeRenderingTests {
  static let printer = Printer(
    id: "sim:tape", name: "tape", transport: .sim, model: "Simulated Brother PT-P700",
    language: .brotherPT, dpi: 180, media: Media(widthMM: 12, lengthMM: 0, kind: "tape"))
  static let tape = BrotherPTModel.named("PT-P700")!.head.tape(widthMM: 12)!

  static let template = Template(
    name: "bin", media: TemplateMedia(widthMM: 30, lengthMM: 12, grow: true, minWidthMM: 10),
    elements: [
      .text(TextElement(x: 1, y: 1, width: 20, height: 10, text: "${name}", size: 20)),
      .box(BoxElement(x: 0, y: 0, width: 30, height: 12, thickness: 0.5)),
    ])

  /// The one page of a P-touch job, as the encoder took it.
  static func page(_ bytes: [UInt8]) throws -> Bitmap {
    let job = try BrotherPTRasterDecoder(model: BrotherPTModel.named("PT-P700")!).decode(bytes)
    #expect(job.pages.count == 1)
    return try #require(job.pages.first).bitmap(tape: tape)
  }

  @Test func aTemplatesPreview_isTheLabelThePrinterGets_turnedOntoTheHead() throws {
    let renderer = LabelRenderer()
    let target = LabelRenderer.Target(
      language: .brotherPT, dpi: 180, media: Self.printer.media)
    let preview = try renderer.render(
      Self.template, data: ["name": "Hex nuts M6"], for: target, format: .png)
    #expect(preview.height == Self.tape.printableDots)
    let png = [UInt8](try #require(Data(base64Encoded: preview.data)))
    let label = try PNGCodec.decodeBitmap(png)
    #expect(label.width == preview.width && label.width > label.height)
    guard
      case .native(let bytes) = try renderer.document(
        Self.template, data: ["name": "Hex nuts M6"], for: Self.printer)
    else {
      Issue.record("not native bytes")
      return
    }
    #expect(try Self.page(bytes) == label.turnedCounterClockwise())
    // The native render says the label's size as drawn for the tape.
    let native = try renderer.render(
      Self.template, data: ["name": "Hex nuts M6"], for: target, format: .native)
    #expect(native.width == preview.width && native.height == preview.height)
    // A longer name, a longer label; the same height.
    let longer = try renderer.render(
      Self.template, data: ["name": "Hexagon nuts M6, stainless"], for: target, format: .png)
    #expect((longer.width ?? 0) > (preview.width ?? 0) && longer.height == preview.height)
  }

  @Test func aPNGDocument_readsAlongTheTape_fromItsTopEdge() throws {
    let renderer = LabelRenderer()
    var card = Bitmap(width: 120, height: 40)
    card.fill(x: 0, y: 0, width: 120, height: 2)
    card.fill(x: 0, y: 0, width: 3, height: 40)
    card[119, 39] = true
    let bytes = try renderer.convertPNG(
      try PNGCodec.encode(card), for: Self.printer, language: .brotherPT,
      settings: LabelSettings())
    // The image at the tape's top edge; the tape's other 30 dots white.
    var label = Bitmap(width: 120, height: Self.tape.printableDots)
    for y in 0..<40 { for x in 0..<120 where card[x, y] { label[x, y] = true } }
    #expect(try Self.page(bytes) == label.turnedCounterClockwise())
  }

  @Test func aPNGTallerThanTheTape_isRefused_namingIt() throws {
    let tall = Bitmap(width: 50, height: Self.tape.printableDots + 1)
    do {
      _ = try LabelRenderer().convertPNG(
        try PNGCodec.encode(tall), for: Self.printer, language: .brotherPT,
        settings: LabelSettings())
      Issue.record("a PNG taller than the tape was taken")
    } catch let error as RPCError {
      #expect(error.code == 1007)
      #expect(error.message.contains("12 mm tape"), "\(error.message)")
      #expect(error.message.contains("at most \(Self.tape.printableDots) pixels"))
    }
  }

  /// While a tape printer names no tape (no cassette, the cover open), a job is refused
  /// rather than drawn for a guessed tape that would never be loaded.
  @Test func withNoTapeKnown_aJobIsRefused_notDrawnForAGuess() throws {
    var printer = Self.printer
    printer.media = nil
    let renderer = LabelRenderer()
    let png = try PNGCodec.encode(Bitmap(width: 10, height: 10))
    do {
      _ = try renderer.document(Self.template, data: ["name": "M6"], for: printer)
      Issue.record("a template was drawn for a guessed tape")
    } catch {
      #expect(error.code == 1007 && error.message.contains("does not say which tape"))
    }
    do {
      _ = try renderer.convertPNG(
        png, for: printer, language: .brotherPT, settings: LabelSettings())
      Issue.record("a PNG was placed on a guessed tape")
    } catch {
      #expect(error.code == 1007 && error.message.contains("does not say which tape"))
    }
    // A preview for the language alone is drawn for the tape it assumes.
    let preview = try renderer.render(
      Self.template, data: ["name": "M6"], for: .init(language: .brotherPT, dpi: 180),
      format: .png)
    #expect((preview.height ?? 0) > 0)
  }
}
