import LabelCUPS
import LabelCore
import Testing

@testable import LabelTransportCUPS

/// How a CUPS queue's attributes become a protocol printer: language, dpi, media.
struct CUPSPrinterModelTests {
  static func queue(makeAndModel: String = "Local Raw Printer", info: String = "", id: String = "")
    -> CUPSQueue
  {
    var q = CUPSQueue(name: "q")
    q.makeAndModel = makeAndModel
    q.info = info
    q.deviceID = id
    return q
  }

  @Test(arguments: [
    (queue(makeAndModel: "Zebra ZD420-203dpi ZPL"), PrinterLanguage?.some(.zpl), 203),
    (queue(info: "Zebra ZPL Label"), .zpl, 203),
    (queue(info: "Zebra GX430t"), .zpl, 300),
    (queue(makeAndModel: "Brother QL-820NWB"), .brotherQL, 300),
    (queue(id: "MFG:Brother;CMD:PT-CBP;MDL:QL-700;CLS:PRINTER;"), .brotherQL, 300),
    (queue(id: "MFG:Acme;CMD:ZPL,EPL;MDL:LabelMaker 9000;"), .zpl, 203),
    (queue(info: "Front desk"), nil, 0),
    (queue(), nil, 0),
  ])
  func language_isInferredFromMakeModelDescriptionOrDeviceID(
    q: CUPSQueue, language: PrinterLanguage?, dpi: Int
  ) {
    let p = CUPSPrinterModel.printer(q, pin: nil)
    #expect(p.language == language)
    #expect(p.dpi == dpi)
    #expect(p.id == "cups:q")
    #expect(p.transport == .cups)
  }

  @Test func pin_overridesInference() {
    let p = CUPSPrinterModel.printer(Self.queue(info: "Zebra ZPL Label"), pin: .brotherQL)
    #expect(p.language == .brotherQL)
    #expect(p.dpi == 300)
    #expect(CUPSPrinterModel.printer(Self.queue(), pin: .zpl).language == .zpl)
  }

  @Test(arguments: [
    ("oe_2x1-label_2x1in", Media?.some(Media(widthMM: 50.8, lengthMM: 25.4, kind: "labels"))),
    ("custom_62x100mm_62x100mm", Media(widthMM: 62, lengthMM: 100, kind: "labels")),
    ("roll_max_62x0mm", Media(widthMM: 62, lengthMM: 0, kind: "continuous")),
    ("na_letter_8.5x11in", Media(widthMM: 215.9, lengthMM: 279.4, kind: "labels")),
    ("iso-a4", nil),
    ("", nil),
    // What a hostile or broken server could say: never a printer's media.
    ("custom_50xnanmm_50xnanmm", nil),
    ("oe_x_1e999x25mm", nil),
    ("infx25mm", nil),
    ("oe_x_1e300x25mm", nil),
    ("oe_x_-5x25mm", nil),
    ("oe_x_62x-1mm", nil),
  ])
  func media_isReadFromPWGNames(name: String, media: Media?) {
    #expect(CUPSPrinterModel.media(name) == media)
  }
}
