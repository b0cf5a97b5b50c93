import Foundation
import LabelCore
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// Every symbology, at the two common head resolutions, read back by a real decoder from
/// the PNG preview: bars on whole dots scan on the first try.
@Suite(.enabled(if: ZBar.available, "needs zbarimg (Debian zbar-tools; `make deps` installs it)"))
struct BarcodeScanTests {
  static let cases: [(Symbology, String, expected: [String])] = [
    (.ean13, "4006381333931", ["4006381333931"]),
    // A GTIN-12 in an EAN-13 element is 0 + its 12 digits (GS1), never 12 digits of an
    // EAN-13 with a 13th computed. zbar reports UPC-A as EAN-13 with a leading zero.
    (.ean13, "036000291452", ["0036000291452"]),
    (.upca, "036000291452", ["036000291452", "0036000291452"]),
    (.upca, "0036000291452", ["036000291452", "0036000291452"]),
    (.code128, "SKU-4711/Ab>c", ["SKU-4711/Ab>c"]),
    (
      .qr, "https://example.com/p?sku=4006381333931&n=Größe",
      ["https://example.com/p?sku=4006381333931&n=Größe"]
    ),
  ]

  @Test(arguments: [203, 300])
  func previewScans(dpi: Int) throws {
    for (symbology, data, expected) in Self.cases {
      let element = BarcodeElement(
        x: 10, y: 8, symbology: symbology, data: data, height: symbology == .qr ? 25 : 15)
      let bitmap = try LabelRasteriser().render(
        label(80, 50, [.barcode(element)]), data: [:], dpi: dpi)
      let decoded = try ZBar.decode(try PNGCodec.encode(bitmap))
      #expect(decoded.count == 1, "\(symbology) at \(dpi) dpi: \(decoded)")
      #expect(expected.contains(decoded.first ?? ""), "\(symbology) at \(dpi) dpi read \(decoded)")
    }
  }

  @Test(arguments: [90, 180, 270])
  func rotatedSymbolsScan(rotation: Int) throws {
    for (symbology, data, expected) in Self.cases {
      let element = BarcodeElement(
        x: 10, y: 10, symbology: symbology, data: data, height: 15, rotation: rotation)
      let bitmap = try LabelRasteriser().render(
        label(90, 90, [.barcode(element)]), data: [:], dpi: 203)
      let decoded = try ZBar.decode(try PNGCodec.encode(bitmap))
      #expect(expected.contains(decoded.first ?? ""), "\(symbology) turned \(rotation): \(decoded)")
    }
  }

  /// Bars are whole modules of whole dots: along a row through an EAN-13, every run of
  /// black or white is a multiple of the module (3 dots for 0.33 mm at 203 dpi).
  @Test func barsSnapToWholeDots() throws {
    let element = BarcodeElement(
      x: 5, y: 5, symbology: .ean13, data: "4006381333931", height: 10, humanReadable: false)
    let bitmap = try LabelRasteriser().render(
      label(50, 20, [.barcode(element)]), data: [:], dpi: 203)
    let y = dotsAt(10, 203)
    let x0 = dotsAt(5, 203)
    var runs: [Int] = []
    var current = bitmap[x0, y]
    var length = 0
    for x in x0..<(x0 + 95 * 3) {
      if bitmap[x, y] == current {
        length += 1
      } else {
        runs.append(length)
        current = bitmap[x, y]
        length = 1
      }
    }
    runs.append(length)
    #expect(runs.reduce(0, +) == 285)
    #expect(runs.allSatisfy { $0 % 3 == 0 }, "runs \(runs)")
    #expect(bitmap[x0 - 1, y] == false && bitmap[x0, y] == true && bitmap[x0 + 285, y] == false)
  }

  @Test func symbolPastTheEdgeNamesTheElement() throws {
    let element = BarcodeElement(x: 20, y: 2, symbology: .ean13, data: "4006381333931", height: 10)
    #expect(throws: DrawingError.self) {
      try LabelRasteriser().render(
        label(40, 20, [.box(BoxElement(x: 1, y: 1, width: 2, height: 2)), .barcode(element)]),
        data: [:], dpi: 300)
    }
    do {
      _ = try LabelRasteriser().render(label(40, 20, [.barcode(element)]), data: [:], dpi: 300)
    } catch {
      #expect(error.field == "elements[0].x")
      #expect(error.reason.contains("right edge"))
    }
  }

  /// A check digit is verified, never replaced: a GTIN whose last digit is wrong is
  /// refused on the element's data, in either symbology and either length.
  @Test func wrongCheckDigits_areRefused_neverReplaced() {
    let cases: [(Symbology, String)] = [
      (.ean13, "4006381333932"), (.ean13, "036000291450"), (.upca, "036000291450"),
      (.upca, "0036000291450"), (.upca, "4006381333931"), (.ean13, "96385074"),
      (.upca, "03600029145"),
    ]
    for (symbology, data) in cases {
      let element = BarcodeElement(x: 5, y: 5, symbology: symbology, data: "${gtin}", height: 10)
      do {
        _ = try LabelRasteriser().render(
          label(60, 30, [.barcode(element)]), data: ["gtin": data], dpi: 300)
        Issue.record("\(symbology) \(data) was drawn")
      } catch {
        #expect(error.field == "elements[0].data", "\(symbology) \(data): \(error)")
        #expect(error.reason.hasPrefix("\"\(data)\""), "\(error.reason)")
      }
    }
  }

  @Test func dataFromProductFields() throws {
    let element = BarcodeElement(x: 10, y: 5, symbology: .ean13, data: "${gtin}", height: 12)
    let bitmap = try LabelRasteriser().render(
      label(60, 30, [.barcode(element)]), data: ["gtin": "4006381333931"], dpi: 300)
    #expect(try ZBar.decode(try PNGCodec.encode(bitmap)) == ["4006381333931"])
    #expect(throws: DrawingError(field: "data.gtin", reason: "no value for ${gtin}")) {
      try LabelRasteriser().render(label(60, 30, [.barcode(element)]), data: [:], dpi: 300)
    }
  }
}
