import Foundation
import LabelCUPS
import LabelLanguages
import LabelRender

/// The documents CUPS's ipptool test files name (`color.jpg`, `document-a4.pdf`, …), made
/// here: Debian ships none. JPEGs by Debian's `cjpeg`, PDFs by cairo's PDF surface, PWG
/// and Apple raster by libcups's writer; beside copies of the test files, so ipptool finds
/// them all in one directory.
package enum IPPSamples {
  /// A directory with the test files `tests` (copied from /usr/share/cups/ipptool) and the
  /// sample documents; removed by the caller.
  package static func directory(copying tests: [String]) throws -> URL {
    let dir = DaemonProcess.makeTempDirectory()
    for test in tests {
      try FileManager.default.copyItem(
        atPath: "/usr/share/cups/ipptool/\(test)", toPath: dir.appendingPathComponent(test).path)
    }
    try jpeg(dir, "color.jpg", width: 600, height: 400, colour: true)
    try jpeg(dir, "gray.jpg", width: 600, height: 400, colour: false)
    try Data(try PDFWriter.document(pages: [pattern(595, 842)], dpi: 72))
      .write(to: dir.appendingPathComponent("document-a4.pdf"))
    try Data(try PDFWriter.document(pages: [pattern(612, 792)], dpi: 72))
      .write(to: dir.appendingPathComponent("document-letter.pdf"))
    // Named by the PostScript tests, which are skipped (labeld prints no PostScript), but
    // ipptool reads every file a test file names before it runs it.
    for name in ["document-a4.ps", "document-letter.ps"] {
      try Data(
        "%!PS-Adobe-3.0\n/Helvetica findfont 24 scalefont setfont\n72 720 moveto (labeld) show\nshowpage\n"
          .utf8
      )
      .write(to: dir.appendingPathComponent(name))
    }
    return dir
  }

  /// The required-attributes part of ipp-everywhere.test (its first test, after it
  /// includes ipp-2.0.test), copied into `dir` as `ipp-everywhere-required.test`.
  package static func everywhereRequired(into dir: URL) throws -> String {
    let text = try String(
      contentsOfFile: "/usr/share/cups/ipptool/ipp-everywhere.test", encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    guard let include = lines.firstIndex(where: { $0.hasPrefix("INCLUDE") }),
      let open = lines[include...].firstIndex(of: "{"),
      let close = lines[open...].firstIndex(of: "}")
    else { throw HarnessError.failed("ipp-everywhere.test has not the shape expected") }
    let name = "ipp-everywhere-required.test"
    try (lines[open...close].joined(separator: "\n") + "\n")
      .write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
    return name
  }

  /// A page of dots: a frame, a cross and a block, at one dot per pixel.
  package static func pattern(_ width: Int, _ height: Int) -> Bitmap {
    var b = Bitmap(width: width, height: height)
    for x in 0..<width {
      b[x, 0] = true
      b[x, height - 1] = true
      b[x, x * height / width] = true
    }
    for y in 0..<height {
      b[0, y] = true
      b[width - 1, y] = true
    }
    for y in height / 4..<height / 2 { for x in width / 4..<width / 2 { b[x, y] = true } }
    return b
  }

  /// A JPEG by Debian's cjpeg from a PNM made here: a grey ramp with a black block.
  package static func jpeg(_ dir: URL, _ name: String, width: Int, height: Int, colour: Bool)
    throws
  {
    var pnm = Array("\(colour ? "P6" : "P5")\n\(width) \(height)\n255\n".utf8)
    for y in 0..<height {
      for x in 0..<width {
        let grey = UInt8(x * 255 / max(1, width - 1))
        let value: UInt8 = (y > height / 3 && y < height / 2 && x < width / 2) ? 0 : grey
        pnm += colour ? [value, value, 255 - value / 2] : [value]
      }
    }
    let source = dir.appendingPathComponent(name + ".pnm")
    try Data(pnm).write(to: source)
    try Shell.check(
      "cjpeg -quality 90 '\(source.path)' > '\(dir.appendingPathComponent(name).path)'")
    try FileManager.default.removeItem(at: source)
  }

  /// A raster stream of `pages` (8-bit grey) at `dpi`.
  package static func raster(_ pages: [Bitmap], dpi: Int, format: RasterStream.Format) throws
    -> [UInt8]
  {
    try RasterStream.write(
      pages.map { page in
        var grey = [UInt8](repeating: 255, count: page.width * page.height)
        for y in 0..<page.height {
          for x in 0..<page.width where page[x, y] { grey[y * page.width + x] = 0 }
        }
        return RasterPage(
          width: page.width, height: page.height, xDPI: dpi, yDPI: dpi, pixels: grey)
      }, format: format)
  }

  /// Runs ipptool in `dir` on `test` (a file there, or one of /usr/share/cups/ipptool);
  /// its report and what it said on stderr.
  package static func ipptool(_ dir: URL, _ arguments: String) throws -> (
    report: String, errors: String
  ) {
    let errors = dir.appendingPathComponent("ipptool.stderr")
    let report = try Shell.output(
      "cd '\(dir.path)' && timeout 600 ipptool \(arguments) 2>'\(errors.path)'")
    return (report, (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
  }
}
