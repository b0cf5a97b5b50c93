import LabelCore
import Testing

@testable import LabelLanguages

struct ZPLEncoderTests {
  static let shelf = Template(
    name: "shelf", media: TemplateMedia(widthMM: 50.8, lengthMM: 25.4),
    elements: [
      .box(BoxElement(x: 0.5, y: 0.5, width: 49.8, height: 24.4, thickness: 0.3)),
      .text(
        TextElement(x: 2, y: 2, width: 46.8, height: 6, text: "${name}", size: 10, weight: .bold)),
      .barcode(
        BarcodeElement(
          x: 3, y: 9, symbology: .ean13, data: "${barcode}", height: 10, moduleWidth: 0.25)),
      .text(
        TextElement(
          x: 30, y: 19.5, width: 19, height: 4.5, text: "${price} ${currency}", size: 9,
          align: .right)),
    ])
  static let milk = [
    "name": "Whole milk 1 L", "barcode": "4006381333931", "price": "1.29", "currency": "EUR",
  ]

  /// 2 x 1 in labels loaded, at 203 dpi.
  static let shelfMedia = ZPLMedia(widthDots: 406, lengthDots: 203)

  @Test func shelfLabel_at203dpi_golden() throws {
    let zpl = try ZPLEncoder.label(
      Self.shelf, data: Self.milk, options: ZPLOptions(dpi: 203, media: Self.shelfMedia))
    #expect(
      zpl == "^XA^CI28^PW406^LL203^LH0,0"
        + "^FO4,4^GB398,195,2,B,0^FS"
        + "^FO16,16^A0N,28,28^FB374,1,0,L,0^FH_^FDWhole milk 1 L^FS"
        + "^FO24,72^BY2^BEN,80,Y,N^FD400638133393^FS"
        + "^FO240,156^A0N,25,25^FB152,1,0,R,0^FH_^FD1.29 EUR^FS"
        + "^PQ1^XZ")
  }

  @Test(arguments: [(203, 406, 203), (300, 600, 300), (600, 1200, 600)])
  func widthAndLength_followTheDPI(dpi: Int, width: Int, length: Int) throws {
    let media = ZPLMedia(Media(widthMM: 50.8, lengthMM: 25.4), dpi: dpi)
    let zpl = try ZPLEncoder.label(
      Self.shelf, data: Self.milk, options: ZPLOptions(dpi: dpi, media: media))
    #expect(zpl.contains("^PW\(width)^LL\(length)^LH0,0"))
  }

  /// ^PW and ^LL outlive the job on the printer (Zebra's ZPL II Programming Guide), so
  /// they state the loaded media: its width even for a narrower template, its label
  /// length on labels; on continuous media the template's length; with the media not
  /// known, no ^PW at all (the printer's configured width stands).
  @Test func widthAndLength_stateTheMedia_notTheTemplate() throws {
    func head(_ media: ZPLMedia?) throws -> String {
      let zpl = try ZPLEncoder.label(
        Self.shelf, data: Self.milk, options: ZPLOptions(dpi: 203, media: media))
      return String(zpl.prefix { $0 != "F" })
    }
    #expect(try head(ZPLMedia(widthDots: 812, lengthDots: 1218)) == "^XA^CI28^PW812^LL1218^LH0,0^")
    #expect(try head(ZPLMedia(widthDots: 812, lengthDots: nil)) == "^XA^CI28^PW812^LL203^LH0,0^")
    #expect(try head(nil) == "^XA^CI28^LL203^LH0,0^")
    var b = Bitmap(width: 100, height: 30)
    b.fill(x: 0, y: 0, width: 100, height: 30)
    #expect(
      ZPLEncoder.label(b, options: ZPLOptions(dpi: 203, media: Self.shelfMedia)).hasPrefix(
        "^XA^PW406^LL203^LH0,0^FO0,0^GFA,390,390,13,"))
    #expect(
      ZPLEncoder.label(b, options: ZPLOptions(dpi: 203)).hasPrefix("^XA^LL30^LH0,0^FO0,0^GFA"))
  }

  @Test func fieldData_escapesCommandCharacters() {
    #expect(ZPLEncoder.escape("A^B~C_D\\E\u{1}Grüße") == "A_5EB_7EC_5FD_5CE_01Grüße")
    #expect(ZPLEncoder.escape("^XZ^XA") == "_5EXZ_5EXA")
  }

  @Test func productNameWithCaretsAndNewlines_cannotBreakOutOfItsField() throws {
    let t = Template(
      name: "t", media: TemplateMedia(widthMM: 50, lengthMM: 25),
      elements: [
        .text(TextElement(x: 1, y: 1, width: 48, height: 20, text: "${name}", overflow: .wrap))
      ])
    let zpl = try ZPLEncoder.label(
      t, data: ["name": "Evil ^XZ~JA\nsecond line"], options: ZPLOptions(dpi: 203))
    #expect(zpl.contains("^FH_^FDEvil _5EXZ_7EJA\\&second line^FS"))
    #expect(zpl.components(separatedBy: "^XZ").count == 2)  // only the label's own end
  }

  @Test func everySymbology_usesThePrintersOwnCommand() throws {
    func one(_ s: Symbology, _ data: String) throws -> String {
      let t = Template(
        name: "t", media: TemplateMedia(widthMM: 100, lengthMM: 50),
        elements: [
          .barcode(
            BarcodeElement(x: 1, y: 1, symbology: s, data: data, height: 10, humanReadable: false))
        ])
      return try ZPLEncoder.label(t, data: [:], options: ZPLOptions(dpi: 300))
    }
    #expect(try one(.ean13, "4006381333931").contains("^BY4^BEN,118,N,N^FD400638133393^FS"))
    #expect(try one(.upca, "036000291452").contains("^BY4^BUN,118,N,N,Y^FD03600029145^FS"))
    #expect(try one(.code128, "AB>12_x").contains("^BCN,118,N,N,N^FH_^FDAB><12_5Fx^FS"))
    #expect(
      try one(.qr, "https://example.com/p?a=1").contains(
        "^BQN,2,4^FH_^FDMA,https://example.com/p?a=1^FS"))
  }

  /// ^BE takes exactly 12 digits and ^BU 11; the printer appends the mod-10 check digit
  /// (Zebra's ZPL II Programming Guide). So a GTIN-12 in an EAN-13 element goes as 0 + its
  /// first 11 digits, and the printer's 13th digit is the GTIN's own check digit: the
  /// symbol carries exactly the GTIN. (Before, its 12 digits went as an EAN-13's first 12
  /// and the printer made another number.)
  @Test func gtinsReachThePrinter_asTheDigitsItCompletes() throws {
    func field(_ s: Symbology, _ gtin: String) throws(DrawingError) -> String {
      let t = Template(
        name: "t", media: TemplateMedia(widthMM: 100, lengthMM: 50),
        elements: [
          .barcode(BarcodeElement(x: 1, y: 1, symbology: s, data: "${barcode}", height: 10))
        ])
      let zpl = try ZPLEncoder.label(t, data: ["barcode": gtin], options: ZPLOptions(dpi: 203))
      guard let fd = zpl.range(of: "^FD")?.upperBound else { return "" }
      return String(zpl[fd...].prefix { $0 != "^" })
    }
    #expect(try field(.ean13, "4006381333931") == "400638133393")
    #expect(try field(.ean13, "036000291452") == "003600029145")
    #expect(try field(.upca, "036000291452") == "03600029145")
    #expect(try field(.upca, "0036000291452") == "03600029145")
    // A wrong check digit is refused, never replaced by the printer's.
    let refused: [(Symbology, String, String)] = [
      (.ean13, "036000291453", "check digit is 3, expected 2"),
      (.ean13, "4006381333932", "check digit is 2, expected 1"),
      (.upca, "036000291453", "check digit is 3, expected 2"),
    ]
    for (s, bad, why) in refused {
      do {
        let sent = try field(s, bad)
        Issue.record("\(s) \(bad) was sent as \(sent)")
      } catch {
        #expect(error.field == "elements[0].data")
        #expect(error.reason.contains(why), "\(error.reason)")
      }
    }
  }

  @Test func badDataAfterSubstitution_namesTheElement() {
    let t = Template(
      name: "t", media: TemplateMedia(widthMM: 50, lengthMM: 25),
      elements: [
        .text(TextElement(x: 1, y: 1, width: 10, height: 5, text: "x")),
        .barcode(BarcodeElement(x: 1, y: 8, symbology: .ean13, data: "${barcode}", height: 10)),
      ])
    #expect(
      throws: DrawingError(
        field: "elements[1].data",
        reason:
          "\"123\": EAN-13 takes a GTIN-13 (13 digits) or a GTIN-12 (12 digits, encoded as "
          + "0 + them), got 3 characters")
    ) {
      try ZPLEncoder.label(t, data: ["barcode": "123"], options: ZPLOptions(dpi: 203))
    }
    #expect(throws: DrawingError(field: "data.barcode", reason: "no value for ${barcode}")) {
      try ZPLEncoder.label(t, data: [:], options: ZPLOptions(dpi: 203))
    }
  }

  @Test func shrinkToFit_makesLongNamesSmaller_wrapUsesLines() throws {
    func zpl(_ overflow: TextOverflow, _ name: String) throws -> String {
      let t = Template(
        name: "t", media: TemplateMedia(widthMM: 50, lengthMM: 25),
        elements: [
          .text(
            TextElement(x: 1, y: 1, width: 40, height: 12, text: name, size: 14, overflow: overflow)
          )
        ])
      return try ZPLEncoder.label(t, data: [:], options: ZPLOptions(dpi: 203))
    }
    #expect(try zpl(.shrink, "Milk").contains("^A0N,39,39^FB320,1,"))
    #expect(
      try zpl(.shrink, "Organic whole milk from pasture-raised cows 1 L").contains(
        "^A0N,12,12^FB320,1,"))
    #expect(try zpl(.wrap, "Organic whole milk").contains("^A0N,39,39^FB320,2,"))
  }

  @Test func boxesLinesAndOptions() throws {
    let t = Template(
      name: "t", media: TemplateMedia(widthMM: 50, lengthMM: 25),
      elements: [
        .box(BoxElement(x: 0, y: 0, width: 10, height: 5, fill: true)),
        .line(LineElement(x1: 0, y1: 20, x2: 50, y2: 20, thickness: 0.5)),
        .line(LineElement(x1: 0, y1: 25, x2: 10, y2: 15)),
      ])
    let zpl = try ZPLEncoder.label(
      t, data: [:], options: ZPLOptions(dpi: 203, darkness: 25, mode: .cut, quantity: 3))
    #expect(zpl.hasPrefix("~SD25^XA"))
    #expect(zpl.contains("^MMC"))
    #expect(zpl.contains("^FO0,0^GB80,40,40,B,0^FS"))
    #expect(zpl.contains("^FO0,160^GB400,4,4,B,0^FS"))
    #expect(zpl.contains("^FO0,120^GD80,80,2,B,R^FS"))
    #expect(zpl.hasSuffix("^PQ3^XZ"))
  }

  @Test func graphic_decodesBackToTheBitmap() throws {
    var b = Bitmap(width: 100, height: 30)
    b.fill(x: 10, y: 5, width: 50, height: 10)
    b.fill(x: 0, y: 20, width: 100, height: 2)
    let zpl = ZPLEncoder.label(b, options: ZPLOptions(dpi: 203))
    let gf = try #require(zpl.range(of: "^GFA,")).upperBound
    let fields = zpl[gf...].prefix { $0 != "^" }.split(separator: ",", maxSplits: 3)
    #expect(fields[0] == "390" && fields[1] == "390" && fields[2] == "13")
    #expect(ZebraHex.decode(String(fields[3]), bytesPerRow: 13, rows: 30) == b.bytes)
  }

  @Test func eanPastTheRightEdge_namesTheElementsX() {
    let t = Template(
      name: "t", media: TemplateMedia(widthMM: 50.8, lengthMM: 25.4),
      elements: [
        .barcode(BarcodeElement(x: 20, y: 1, symbology: .ean13, data: "4006381333931", height: 10))
      ])
    // 0.33 mm modules are 3 dots at 203 dpi: 285 dots from x = 160 ends past 406.
    #expect(throws: DrawingError.self) {
      try ZPLEncoder.label(t, data: [:], options: ZPLOptions(dpi: 203))
    }
    do {
      _ = try ZPLEncoder.label(t, data: [:], options: ZPLOptions(dpi: 203))
    } catch {
      #expect(error.field == "elements[0].x")
    }
    // Rotated, the symbol runs down the label instead: no width check applies.
    var rotated = t
    rotated.elements = [
      .barcode(
        BarcodeElement(
          x: 20, y: 1, symbology: .ean13, data: "4006381333931", height: 10, rotation: 90))
    ]
    #expect(throws: Never.self) {
      try ZPLEncoder.label(rotated, data: [:], options: ZPLOptions(dpi: 203))
    }
  }
}
