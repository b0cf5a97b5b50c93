import Foundation
import LabelCore
import LabelLanguages
import LabelRender
import LabelTestKit
import LabelWire

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Microseconds to encode the seed 2x1 in shelf label to ZPL (issue #4's aim: < 1 ms).
@MainActor func zplEncoding() -> String {
  // The seed template itself, so the number is for what `make run` prints.
  guard
    let file = try? Data(contentsOf: URL(fileURLWithPath: "seeds/templates.json")),
    let parsed = try? JSONValue.parse([UInt8](file)),
    let seeds = try? LabelJSON.decode([Template].self, from: parsed),
    let template = seeds.first(where: { $0.name == "shelf-2x1" })
  else { return "| ZPL for the 2x1 in shelf template | seeds/templates.json not found |\n" }
  let data = [
    "name": "Whole milk 1 L", "barcode": "4006380000179", "price": "1.29", "currency": "EUR",
  ]
  let n = 20_000
  let t0 = now()
  var bytes = 0
  for _ in 0..<n {
    bytes +=
      (try? ZPLEncoder.label(template, data: data, options: ZPLOptions(dpi: 203)))?.utf8.count ?? 0
  }
  let us = Double(now() - t0) / 1e3 / Double(n)
  return String(format: "| ZPL for the 2x1 in shelf template, per label (µs) | %.1f |\n", us)
    + (bytes > 0 ? "" : "| ZPL encoding failed | |\n")
}

/// A 62 x 100 mm label at 300 dpi encoded to QL raster by us and by brother_ql
/// (brother-ql-next 0.12 from `make peers`), timed in the same run.
@MainActor func qlEncoding() -> String {
  guard let model = BrotherQLModel.named("QL-820NWB"), let media = BrotherQLMedia.named("62x100"),
    let encoder = try? BrotherQLEncoder(BrotherQLOptions(model: model, media: media))
  else { return "| QL raster | model or media missing |\n" }
  var bitmap = Bitmap(width: media.printableWidth, height: media.printableLength)
  for i in 0..<40 { bitmap.fill(x: (i * 37) % 600, y: (i * 53) % 1100, width: 80, height: 40) }
  let n = 200
  let t0 = now()
  for _ in 0..<n { _ = try? encoder.encode([bitmap]) }
  let oursMS = Double(now() - t0) / 1e6 / Double(n)
  var line = String(
    format: "| QL raster, 62 x 100 mm at 300 dpi (%dx%d), ours per label (ms) | %.3f |\n",
    bitmap.width, bitmap.height, oursMS)
  let python = ".build/peers/ql/bin/python"
  guard FileManager.default.isExecutableFile(atPath: python) else {
    return line + "| QL raster, brother_ql per label | not measured: run `make peers` |\n"
  }
  let script = """
    import sys, time
    from PIL import Image
    from brother_ql.raster import BrotherQLRaster
    from brother_ql.conversion import convert
    w, h = int(sys.argv[1]), int(sys.argv[2])
    img = Image.new("1", (w, h), 1)
    for i in range(40):
        x, y = (i * 37) % 600, (i * 53) % 1100
        img.paste(0, (x, y, min(w, x + 80), min(h, y + 40)))
    n = 20
    t = time.perf_counter()
    for _ in range(n):
        convert(qlr=BrotherQLRaster("QL-820NWB"), images=[img], label="62x100", rotate="0",
                threshold=70.0, dither=False, compress=True, red=False, dpi_600=False, hq=True, cut=True)
    print((time.perf_counter() - t) / n * 1000)
    """
  let p = Process()
  p.executableURL = URL(fileURLWithPath: python)
  p.arguments = ["-c", script, String(bitmap.width), String(bitmap.height)]
  let out = Pipe()
  p.standardOutput = out
  try? p.run()
  let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  p.waitUntilExit()
  guard let theirsMS = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
    return line + "| QL raster, brother_ql per label | failed |\n"
  }
  line += String(format: "| QL raster, brother_ql per label (ms) | %.2f |\n", theirsMS)
  line += String(format: "| QL raster, speed-up over brother_ql | %.0fx |\n", theirsMS / oursMS)
  return line
}

/// A 4 x 6 in label at 203 dpi (812 x 1218 dots, the shipping label TSPL printers are
/// bought for) encoded to TSPL, and the same bytes decoded back (issue #15).
@MainActor func tsplEncoding() -> String {
  let driver: TSPLDriver
  do {
    driver = try TSPLDriver(model: DriverTable.genericTSPL)
  } catch {
    return "| TSPL | \(error) |\n"
  }
  var bitmap = Bitmap(width: 812, height: 1218)
  for i in 0..<60 { bitmap.fill(x: (i * 37) % 700, y: (i * 53) % 1150, width: 90, height: 50) }
  let media = Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels")
  let n = 500
  var bytes: [UInt8] = []
  let t0 = now()
  for _ in 0..<n { bytes = (try? driver.encode(pages: [bitmap], media: media, dpi: 203)) ?? [] }
  let encodeUS = Double(now() - t0) / 1e3 / Double(n)
  let t1 = now()
  var decoded = 0
  for _ in 0..<20 { decoded += (try? TSPLDecoder(dpi: 203).decode(bytes).pages.count) ?? 0 }
  let decodeMS = Double(now() - t1) / 1e6 / 20
  return String(
    format: "| TSPL, 4 x 6 in at 203 dpi (%d bytes), encode per label (µs) | %.1f |\n",
    bytes.count, encodeUS)
    + String(format: "| TSPL, the same label decoded to dots (ms) | %.2f |\n", decodeMS)
    + (decoded == 20 ? "" : "| TSPL round trip failed | |\n")
}

/// The same 4 x 6 in label at 203 dpi as EPL2 (issue #15).
@MainActor func epl2Encoding() -> String {
  guard let driver = try? EPL2Driver(model: DriverTable.genericEPL2) else {
    return "| EPL2 | no driver |\n"
  }
  var bitmap = Bitmap(width: 812, height: 1218)
  for i in 0..<60 { bitmap.fill(x: (i * 37) % 700, y: (i * 53) % 1150, width: 90, height: 50) }
  return encodingRow(
    "EPL2, 4 x 6 in at 203 dpi", driver: driver, page: bitmap,
    media: Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels"), dpi: 203
  ) { (try? EPL2Decoder().decode($0).pages.first?.image) == bitmap }
}

/// One label encoded 500 times with `driver`: a row of the encode time per label, and one
/// saying so when its bytes do not decode back to `page`.
@MainActor func encodingRow(
  _ name: String, driver: any LanguageDriver, page: Bitmap, media: Media, dpi: Int,
  decodesBack: ([UInt8]) -> Bool
) -> String {
  let n = 500
  var bytes: [UInt8] = []
  let t0 = now()
  for _ in 0..<n { bytes = (try? driver.encode(pages: [page], media: media, dpi: dpi)) ?? [] }
  let us = Double(now() - t0) / 1e3 / Double(n)
  return String(format: "| %@ (%d bytes), encode per label (µs) | %.1f |\n", name, bytes.count, us)
    + (decodesBack(bytes) ? "" : "| \(name): round trip failed | |\n")
}

/// A product label, 62 x 100 mm at 300 dpi (bold name shrunk to fit, price, EAN-13, Code 128,
/// QR, frame), rasterised; then as a PNG preview and as Brother QL raster (issue #5's aim:
/// < 5 ms per label).
@MainActor func rendering() -> String {
  let template = Template(
    name: "product-62x100", media: TemplateMedia(widthMM: 62, lengthMM: 100),
    elements: [
      .box(BoxElement(x: 1, y: 1, width: 60, height: 98, thickness: 0.4)),
      .text(
        TextElement(
          x: 4, y: 4, width: 54, height: 12, text: "${name}", size: 22, weight: .bold)),
      .text(
        TextElement(x: 4, y: 18, width: 54, height: 10, text: "${price} ${currency}", size: 20)),
      .text(
        TextElement(
          x: 4, y: 30, width: 54, height: 14, text: "${description}", size: 9, overflow: .wrap)),
      .barcode(BarcodeElement(x: 8, y: 46, symbology: .ean13, data: "${barcode}", height: 14)),
      .barcode(
        BarcodeElement(
          x: 6, y: 68, symbology: .code128, data: "${sku}", height: 8, moduleWidth: 0.25)),
      .barcode(BarcodeElement(x: 40, y: 78, symbology: .qr, data: "${url}", height: 18)),
    ])
  let data = [
    "name": "Wholemeal spelt flour, stone ground", "price": "3.49", "currency": "EUR",
    "description": "Organic spelt from the Swabian Jura, milled whole. Store cool and dry.",
    "barcode": "4006381333931", "sku": "SKU-1077", "url": "https://shop.example/p/SKU-1077",
  ]
  let rasteriser = LabelRasteriser()
  let cold = now()
  guard let first = try? rasteriser.render(template, data: data, dpi: 300) else {
    return "| Render 62 x 100 mm at 300 dpi | failed |\n"
  }
  let firstMS = Double(now() - cold) / 1e6
  let before = peakRSSKB()
  let n = 300
  var t0 = now()
  for _ in 0..<n { _ = try? rasteriser.render(template, data: data, dpi: 300) }
  let renderMS = Double(now() - t0) / 1e6 / Double(n)
  let after = peakRSSKB()
  t0 = now()
  var pngBytes = 0
  for _ in 0..<n { pngBytes = (try? PNGCodec.encode(first))?.count ?? 0 }
  let pngMS = Double(now() - t0) / 1e6 / Double(n)
  var line = String(
    format: "| Render a product label, 62 x 100 mm at 300 dpi (%dx%d), per label (ms) | %.2f |\n",
    first.width, first.height, renderMS)
  line += String(
    format: "| Render: the first label in a process (fonts loaded) (ms) | %.1f |\n", firstMS)
  line += String(
    format:
      "| Render: peak RSS of the bench process before / after %d renders (MiB) | %.1f / %.1f |\n",
    n, Double(before) / 1024, Double(after) / 1024)
  line += String(
    format: "| PNG preview of it, encode per label (ms; %d bytes) | %.2f |\n", pngBytes, pngMS)
  return line
}

/// A 2.25 x 1.25 in label at 300 dpi (the head's 672 dots x 375 lines: DYMO 30334).
func dymoLabel() -> Bitmap {
  var bitmap = Bitmap(width: 672, height: 375)
  for i in 0..<30 { bitmap.fill(x: (i * 37) % 600, y: (i * 53) % 330, width: 70, height: 40) }
  for x in stride(from: 20, to: 640, by: 6) { bitmap.fill(x: x, y: 300, width: 3, height: 60) }
  return bitmap
}

/// That label as DYMO LabelWriter 4xx lines, and decoded back (issue #15).
@MainActor func dymoLWEncoding() -> String {
  guard let model = DriverTable.model(named: "DYMO LabelWriter 450", language: .dymoLW),
    let driver = try? DymoLWDriver(model: model)
  else { return "| DYMO LabelWriter | no driver |\n" }
  let bitmap = dymoLabel()
  return encodingRow(
    "DYMO LabelWriter, 2.25 x 1.25 in at 300 dpi", driver: driver, page: bitmap,
    media: Media(widthMM: 57.15, lengthMM: 31.75, kind: "labels"), dpi: 300
  ) { (try? DymoLWDecoder().decode($0).pages.first?.image) == bitmap }
}

/// The same label as a LabelWriter 550 job (issue #15).
@MainActor func dymoLW5Encoding() -> String {
  guard let model = DriverTable.model(named: "DYMO LabelWriter 550", language: .dymoLW5),
    let driver = try? DymoLW5Driver(model: model)
  else { return "| DYMO LabelWriter 550 | no driver |\n" }
  let bitmap = dymoLabel()
  return encodingRow(
    "DYMO LabelWriter 550, the same label", driver: driver, page: bitmap,
    media: Media(widthMM: 57.15, lengthMM: 31.75, kind: "labels"), dpi: 300
  ) { (try? DymoLW5Decoder().decode($0).pages.first?.image) == bitmap }
}

/// A 12 x 100 mm DYMO LabelManager PnP label in head orientation (64 dots across the tape,
/// 709 lines along it at 180 dpi) encoded by us, and the same bitmap through DYMO's own
/// filter `raster2dymolm` (printer-driver-dymo) as CUPS runs it, a process per label, timed
/// in the same run (issue 39's aim: under 1 ms and under the filter). The two streams are
/// compared byte for byte: without a `usb://` device the filter asks no status.
@MainActor func dymoLMEncoding() -> String {
  guard let model = DriverTable.model(named: "DYMO LabelManager PnP", language: .dymoLM),
    let driver = try? DymoLMDriver(model: model)
  else { return "| DYMO LabelManager | no driver |\n" }
  var bitmap = Bitmap(width: 64, height: 709)
  for i in 0..<24 { bitmap.fill(x: (i * 13) % 50, y: 20 + i * 27, width: 14, height: 18) }
  for y in stride(from: 10, to: 700, by: 4) { bitmap.fill(x: 2, y: y, width: 60, height: 1) }
  let media = Media(widthMM: 12, lengthMM: 0, kind: "tape")
  let leader = driver.printer.normalLeader - driver.printer.cutterLines
  var line = encodingRow(
    "DYMO LabelManager PnP, 12 x 100 mm tape at 180 dpi (64x709)", driver: driver, page: bitmap,
    media: media, dpi: 180
  ) { bytes in
    guard let image = try? DymoLMDecoder(headDots: 64).decode(bytes).pages.first?.image else {
      return false
    }
    var page = Bitmap(width: 64, height: 709)
    for y in 0..<709 { for x in 0..<64 where image[x, y + leader] { page[x, y] = true } }
    return page == bitmap
  }
  let filter = "/usr/lib/cups/filter/raster2dymolm"
  let ppdTool = "/usr/lib/cups/driver/dymo"
  guard FileManager.default.isExecutableFile(atPath: filter) else {
    return line + "| raster2dymolm, the same label | not measured: printer-driver-dymo missing |\n"
  }
  let dir = FileManager.default.temporaryDirectory
    .appendingPathComponent("labeld-bench-lm-\(getpid())")
  try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: dir) }
  // The CUPS page DYMO's PPD gives 12 mm tape: 88 dots (35 points) across, ours first.
  var cups = Bitmap(width: 88, height: 709)
  for y in 0..<709 { for x in 0..<64 where bitmap[x, y] { cups[x, y] = true } }
  let raster = dir.appendingPathComponent("label.ras").path
  let ppd = dir.appendingPathComponent("lmpnp.ppd").path
  let output = dir.appendingPathComponent("label.lm").path
  try? Data(
    CUPSRasterFile.bytes([.init(cups, points: (35, 283.6), dpi: 180, mediaType: 2)])
  ).write(to: URL(fileURLWithPath: raster))
  let ppdText = Pipe()
  let cat = Process()
  cat.executableURL = URL(fileURLWithPath: ppdTool)
  cat.arguments = ["cat", "dymo:0/cups/model/lmpnp.ppd"]
  cat.standardOutput = ppdText
  try? cat.run()
  let ppdData = ppdText.fileHandleForReading.readDataToEndOfFile()
  cat.waitUntilExit()
  try? ppdData.write(to: URL(fileURLWithPath: ppd))
  let n = 20
  var total: UInt64 = 0
  for _ in 0..<n {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: filter)
    p.arguments = ["1", "bench", "label", "1", "", raster]
    p.environment = ["PPD": ppd, "DEVICE_URI": "file:///dev/null"]
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    let out = FileHandle(forWritingAtPath: output)
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    let t0 = now()
    try? p.run()
    p.waitUntilExit()
    total += now() - t0
    try? out?.close()
  }
  let theirs = (try? Data(contentsOf: URL(fileURLWithPath: output))).map { [UInt8]($0) } ?? []
  let ours = (try? driver.encode(pages: [bitmap], media: media, dpi: 180)) ?? []
  line += String(
    format: "| The same label through DYMO's raster2dymolm, a process per label (ms) | %.2f |\n",
    Double(total) / 1e6 / Double(n))
  line += "| raster2dymolm's bytes the same as ours | \(theirs == ours ? "yes" : "no") |\n"
  return line
}

/// Microseconds per product of what a `products.list` page does with each stored row:
/// parse its JSON, decode it into a `Product`, and write it into the answer (issue #26:
/// a page of 100 within 0.5 ms is 5 µs a product, SQLite included).
@MainActor func jsonCosts() -> String {
  let product = Product(
    sku: "SKU-1001", name: "Whole milk 1 L", price: Decimal(string: "1.29"), currency: "EUR",
    barcode: "4006380000179", fields: ["category": "dairy", "shelf": "A1"], version: 3,
    updatedAt: Date(timeIntervalSince1970: 1_764_669_600))
  guard let row = try? JSONWriter.write(product) else { return "| product | cannot encode |\n" }
  let n = 100_000
  func time(_ body: () throws -> Void) -> Double {
    let t = now()
    for _ in 0..<n { try? body() }
    return Double(now() - t) / Double(n) / 1000
  }
  let parse = time { _ = try JSONValue.parse(row) }
  let value = (try? JSONValue.parse(row)) ?? .null
  let decode = time { _ = try LabelJSON.decode(Product.self, from: value) }
  let read = time { _ = try Product(json: value) }
  let write = time { _ = try JSONWriter.write(product) }
  let whole = time {
    let p = try Product(json: try JSONValue.parse(row))
    _ = try JSONWriter.write(p)
  }
  // A jobs.submit of a 100 KB label: nearly all of it one base64 string.
  let submit = Array(
    (#"{"jsonrpc":"2.0","id":7,"method":"jobs.submit","params":{"printer":"net:z","#
      + #""document":{"format":"native","data":""#
      + Data(repeating: 0xF0, count: 102_400).base64EncodedString() + #""}}}"#).utf8)
  let submitN = 500
  let t0 = now()
  for _ in 0..<submitN { _ = try? JSONValue.parse(submit) }
  let submitParse = Double(now() - t0) / Double(submitN) / 1000
  return """
    | a jobs.submit request of \(submit.count) bytes (a 100 KB label in base64): parse (µs) | \(String(format: "%.1f", submitParse)) |
    | a product row (\(row.count) bytes): parse (µs) | \(String(format: "%.2f", parse)) |
    | decode the parsed value into a Product through Decodable (µs) | \(String(format: "%.2f", decode)) |
    | read it with Product(json:), as stored rows are read (µs) | \(String(format: "%.2f", read)) |
    | write a Product (µs) | \(String(format: "%.2f", write)) |
    | parse, read and write, as a page does (µs) | \(String(format: "%.2f", whole)) |

    """
}
