import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// "A label carries its product's own barcode": every seed product, on every seed template
/// that prints `${barcode}` as EAN-13 or UPC-A, on every demo printer the template fits,
/// scans as exactly the product's GTIN — from the PNG preview (zbarimg), from the `^BE`/
/// `^BU` field data the ZPL printer received (completed as Zebra's guide says the printer
/// completes it), and from that ZPL drawn by an independent renderer (zplkit) and scanned.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"),
    "needs zbarimg (`make deps` installs it)"))
struct SeedBarcodeTests {
  static let root = Repository.root

  /// The Makefile's `DEMO_PRINTERS` (`make run`'s printers), without their simulated print
  /// speed, which only makes the jobs slower.
  static func demoPrinters() throws -> [String] {
    let makefile = try String(
      contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
    var lines = makefile.split(separator: "\n", omittingEmptySubsequences: false)[...]
    lines = lines.drop { !$0.hasPrefix("DEMO_PRINTERS") }
    var text = ""
    for line in lines {
      text += line.hasSuffix("\\") ? line.dropLast() + " " : line
      if !line.hasSuffix("\\") { break }
    }
    let words = text.split(separator: "=", maxSplits: 1).last?.split(separator: " ") ?? []
    let specs = words.map { word in
      word.split(separator: ",").filter { !$0.hasPrefix("speed=") }.joined(separator: ",")
    }
    #expect(specs.filter { $0 == "--simulate" }.count == 3, "DEMO_PRINTERS: \(specs)")
    return specs
  }

  /// What a scanner reports for a GTIN: zbar reads UPC-A as EAN-13 with a leading 0, the
  /// GTIN-12 in its 13-digit form (GS1 General Specifications §3.3.2).
  static func scanned(_ gtin: String) -> String { gtin.count == 12 ? "0" + gtin : gtin }

  /// The number a Zebra printer draws for `^BE` or `^BU` field data. Zebra's ZPL II
  /// Programming Guide: `^BE` field data is exactly 12 characters and `^BU` 11, and the
  /// printer appends the mod-10 check digit (worked out here independently of labeld).
  /// Nil when the field data is not exactly that many digits.
  static func zebraDrawn(_ command: String, _ fieldData: String) -> String? {
    let count = command == "^BE" ? 12 : 11
    guard fieldData.count == count, fieldData.allSatisfy({ $0.isASCII && $0.isNumber }) else {
      return nil
    }
    var sum = 0
    for (i, c) in fieldData.reversed().enumerated() {
      sum += (c.wholeNumberValue ?? 0) * (i % 2 == 0 ? 3 : 1)
    }
    return fieldData + String((10 - sum % 10) % 10)
  }

  /// The `^BE`/`^BU` fields of a ZPL document: the command and its field data.
  static func retailFields(_ zpl: String) -> [(command: String, data: String)] {
    zpl.components(separatedBy: "^FS").compactMap { field in
      guard let command = ["^BE", "^BU"].first(where: { field.contains($0) }),
        let fd = field.range(of: "^FD")
      else { return nil }
      return (command, String(field[fd.upperBound...]))
    }
  }

  /// The numbers zbarimg reads in a picture that are EAN/UPC data (digits only).
  static func retailCodes(_ png: [UInt8]) throws -> [String] {
    try ZBar.decode(png).filter { $0.allSatisfy { $0.isASCII && $0.isNumber } }
  }

  /// Not a seed: the same label as UPC-A, so `^BU` and UPC-A previews are proven too.
  static let upcTemplate: JSONValue = [
    "name": "upc-test", "media": ["widthMM": 50.8, "lengthMM": 25.4],
    "elements": [
      ["type": "text", "x": 2, "y": 1, "width": 46.8, "height": 5, "text": "${name}"],
      [
        "type": "barcode", "x": 6, "y": 7, "height": 12, "symbology": "upca",
        "data": "${barcode}", "moduleWidth": 0.25,
      ],
    ],
  ]

  @Test func everySeedProduct_scansAsItsGTIN_onEveryTemplateAndPrinterItFits() throws {
    let seeds = Self.root.appendingPathComponent("seeds").path
    try withDaemon(["--seed", seeds] + Self.demoPrinters()) { d in
      let c = try d.client()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      try c.call("templates.save", ["template": Self.upcTemplate])
      let products = try c.call("products.list", [:], as: ProductsResult.self).products
        .filter { $0.barcode != nil }
      let templates = try c.call("templates.list", [:], as: TemplatesResult.self).templates
        .filter { t in
          t.elements.contains {
            guard case .barcode(let b) = $0 else { return false }
            return [.ean13, .upca].contains(b.symbology) && b.data.contains("${barcode}")
          }
        }
      let printers = try c.call("printers.list", [:], as: PrintersResult.self).printers
      #expect(products.count == 24)
      let gtin12s = products.filter { $0.barcode?.count == 12 }.count
      #expect(gtin12s == 6)
      #expect(templates.map(\.name) == ["price-tag-62", "shelf-2x1", "upc-test"])
      // The 12 mm tape takes none of them: a label with a retail code is for labels.
      #expect(Set(printers.map(\.id)) == ["sim:zebra", "sim:ql", "sim:tape"])

      var previews = 0
      var zplJobs: [(job: Int, printer: Printer, gtin: String)] = []
      for printer in printers {
        let media = try #require(printer.media)
        for template in templates where template.media.widthMM <= media.widthMM + 0.5 {
          let isUPC = template.name == "upc-test"
          for product in products {
            let gtin = try #require(product.barcode)
            let params: JSONValue = [
              "template": .string(template.name), "sku": .string(product.sku),
              "printer": .string(printer.id), "format": "png",
            ]
            if isUPC && gtin.count == 13 {
              // A GTIN-13 that does not start with 0 is not a GTIN-12: refused, not drawn.
              let e = try #require(c.error("labels.render", params))
              #expect(e.code == -32602 && e.data?["field"] == "elements[1].data")
              continue
            }
            let preview = try c.call("labels.render", params, as: RenderResult.self)
            let png = [UInt8](try #require(Data(base64Encoded: preview.data)))
            let read = try Self.retailCodes(png)
            #expect(
              read == [Self.scanned(gtin)],
              "\(template.name) for \(product.sku) (\(gtin)) on \(printer.id) reads \(read)")
            previews += 1
            if printer.language == .zpl {
              let job = try c.call(
                "jobs.submit",
                [
                  "printer": .string(printer.id), "template": .string(template.name),
                  "sku": .string(product.sku),
                ],
                as: JobResult.self
              ).job
              zplJobs.append((job.id, printer, gtin))
            }
          }
        }
      }
      // price-tag-62 fits only the QL; shelf-2x1 and upc-test (GTIN-12s) fit both.
      #expect(previews == 24 + 24 * 2 + gtin12s * 2)
      #expect(zplJobs.count == 24 + gtin12s)

      var pending = Set(zplJobs.map(\.job))
      while !pending.isEmpty {
        let n = try w.waitFor("job") { $0["state"] == "completed" }
        if case .int(let id)? = n["id"] { pending.remove(id) }
      }
      var documents: [String] = []
      for (job, printer, gtin) in zplJobs {
        let bytes = try #require(d.simOutput(printer.name, job: job, ext: "zpl"))
        let zpl = String(decoding: bytes, as: UTF8.self)
        documents.append(zpl)
        let fields = Self.retailFields(zpl)
        #expect(fields.count == 1, "job \(job): \(zpl)")
        for (command, data) in fields {
          let expected = command == "^BE" ? Self.scanned(gtin) : gtin
          #expect(Self.zebraDrawn(command, data) == expected, "job \(job): \(command) \(data)")
        }
      }
      // The same bytes drawn as a printer draws them, then scanned.
      guard ZPLRenderPeer.python != nil else {
        print("zplkit not installed (`make peers`): the printer's drawing is not scanned")
        return
      }
      let dpi = try #require(zplJobs.first?.printer.dpi)
      for profile in ZPLRenderPeer.profiles {
        let pictures = try ZPLRenderPeer.render(documents, dpi: dpi, profile: profile)
        for ((job, _, gtin), png) in zip(zplJobs, pictures) {
          let read = try Self.retailCodes(png)
          #expect(read == [Self.scanned(gtin)], "job \(job) (\(gtin)) drawn by \(profile): \(read)")
        }
      }
    }
  }
}
