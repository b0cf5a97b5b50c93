import Foundation
import LabelCore
import LabelLanguages

/// A 24 x 100 mm P-touch label at 180 dpi, in head orientation (the 128 printable dots
/// across the tape x 709 lines along it), encoded for a PT-P700 by us and, from the same
/// dots as a CUPS raster page, by Debian's `rastertoptch` (printer-driver-ptouch), timed
/// in the same run (issue 39's aim: under 1 ms, and under the filter).
@MainActor func ptouchEncoding() -> String {
  guard let model = DriverTable.model(named: "PT-P700", language: .brotherPT),
    let driver = try? BrotherPTDriver(model: model)
  else { return "| P-touch | no driver |\n" }
  var bitmap = Bitmap(width: 128, height: 709)
  for i in 0..<40 { bitmap.fill(x: (i * 29) % 100, y: (i * 53) % 660, width: 28, height: 40) }
  for y in stride(from: 20, to: 690, by: 6) { bitmap.fill(x: 10, y: y, width: 100, height: 3) }
  let tape = Media(widthMM: 24, lengthMM: 0, kind: "tape")
  var line = encodingRow(
    "P-touch, 24 x 100 mm at 180 dpi (128 x 709)", driver: driver, page: bitmap, media: tape,
    dpi: 180
  ) { bytes in
    let page = try? BrotherPTRasterDecoder(model: driver.pt).decode(bytes).pages.first
    return page.flatMap { p in driver.pt.head.tape(widthMM: 24).map { p.bitmap(tape: $0) } }
      == bitmap
  }
  let filter = "/usr/lib/cups/filter/rastertoptch"
  guard FileManager.default.isExecutableFile(atPath: filter) else {
    return line
      + "| P-touch, rastertoptch | not measured: `make deps` installs printer-driver-ptouch |\n"
  }
  // The PT-P700 PPD's options (foomatic-rip's %B); the page is as wide as the head, the
  // 24 mm tape's print area (see PTouchFilterPeerTests).
  let options =
    "PT AutoCut noChainPrinting BytesPerLine=16 PixelXfer=RLE TransferMode=1 LabelPreamble "
    + "Align=Center Margin=0 LabelRecovery"
  let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
    "labeld-bench-ptouch-\(getpid())")
  try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: dir) }
  func run(pages: Int, times: Int) -> Double? {
    let input = dir.appendingPathComponent("job\(pages).ras")
    guard (try? Data(cupsRaster(Array(repeating: bitmap, count: pages))).write(to: input)) != nil
    else { return nil }
    let t0 = now()
    for _ in 0..<times {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: filter)
      p.arguments = [options]
      p.standardInput = try? FileHandle(forReadingFrom: input)
      p.standardOutput = FileHandle.nullDevice
      p.standardError = FileHandle.nullDevice
      guard (try? p.run()) != nil else { return nil }
      p.waitUntilExit()
      guard p.terminationStatus == 0 else { return nil }
    }
    return Double(now() - t0) / 1e6 / Double(times * pages)
  }
  guard let one = run(pages: 1, times: 50), let many = run(pages: 20, times: 5) else {
    return line + "| P-touch, rastertoptch | failed |\n"
  }
  line += String(
    format: "| P-touch, rastertoptch, a one-label job (ms, process included) | %.2f |\n", one)
  line += String(
    format: "| P-touch, rastertoptch, per label of a 20-label job (ms) | %.3f |\n", many)
  return line
}

/// A CUPS raster file (version 3) of 1-bit black 180-dpi pages on the 24 mm tape's page
/// (68 points, the PT-P700 PPD's), each as long as its lines.
private func cupsRaster(_ pages: [Bitmap]) -> [UInt8] {
  var out = Array("3SaR".utf8)
  for page in pages {
    var header = [UInt8](repeating: 0, count: 1796)
    func put(_ offset: Int, _ value: UInt32) {
      for k in 0..<4 { header[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }
    let length = Float(page.height) * 72 / 180
    for (offset, value) in [
      (276, 180), (280, 180), (340, 1), (352, 68), (356, Int(length)), (372, page.width),
      (376, page.height), (384, 1), (388, 1), (392, page.bytesPerRow), (400, 3), (420, 1),
    ] {
      put(offset, UInt32(value))
    }
    for (offset, value) in [(428, Float(68)), (432, length), (444, 68), (448, length)] {
      put(offset, value.bitPattern)
    }
    out += header + page.bytes
  }
  return out
}
