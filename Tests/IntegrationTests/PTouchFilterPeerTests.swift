import Foundation
import LabelCore
import LabelLanguages
import LabelTestKit
import Testing

/// Debian's P-touch CUPS filter, `rastertoptch` (printer-driver-ptouch 1.6), as a second
/// opinion on the `brother-pt` language: the same pages as a CUPS raster page through the
/// filter, with the options the model's PPD gives it (foomatic-rip passes them as the
/// filter's one argument; the filter reads no PPD), and through labeld's driver, both
/// decoded with labeld's decoder, ink the same pins of the head on every line, with the
/// same print information.
///
/// The CUPS page: the PPD's tape width (its `PageSize`, in points) at the head's dpi, our
/// page placed from the column the filter puts on the print area's last pin. The filter
/// centres a page on the head's line and sends column c to pin `pad + width - 1 - c`;
/// labeld sends column x to `leftPins + printableDots - 1 - x`. For the 128-pin heads the
/// PPD's pages put the print area exactly where Brother's tables do (the filter's first
/// printable column is the tape's "width offset": 0, 5, 7, 7, 8 dots for 3.5–18 mm). Two
/// do not fit and get a page as wide as the head instead: 24 mm tape (the PPD's page is
/// 170 dots, wider than the 128-pin head, and the filter then drops the page's last
/// columns: it keeps the first 16 bytes and shifts by the width's 6 spare bits) and 3.5 mm
/// on the 560-pin head. On the 560-pin head the filter centres the page on the line while
/// Brother's print areas sit 8 pins off centre (45 pins before the 36 mm area, 61 after):
/// the PPD's pages land 7–8 dots past the table's width offset.
///
/// Byte-level differences, each expected (and asserted below):
/// - Invalidate: the filter sends 350 NULs; labeld the references' 100 (200 on the PT-P900
///   family).
/// - Order: the filter sends `ESC i M`, `ESC i K`, `ESC i d` and `M 02` once, before the
///   first page, and each page's `ESC i z` just before its lines; labeld sends the
///   references' per-page sequence (`ESC i z`, `ESC i M`, `ESC i A`, `ESC i K`, `ESC i d`,
///   `M`) before every page.
/// - Feed: the filter's `ESC i d` is the PPD's ExtraMargin, 0 dots; labeld sends 14, the
///   references' minimum setting (2 mm at 180 dpi, 1 mm at 360), as Brother's driver does.
/// - `ESC i A`: the PT-P700 and PT-E550W PPDs have no CutLabel option, so the filter sends
///   none; labeld sends `ESC i A 1` (cut each label) on models that take it. The PT-P900W
///   PPD defaults to CutLabel=0, which the PT-P900 reference says means "will not be cut":
///   the test passes CutLabel=1, labeld's choice.
/// - Half cut: the PT-E550W PPD offers none, though its reference has one and labeld's
///   default uses it: the test passes HalfCut, as the PT-P900W PPD's default does.
/// - Lines: both send `G n1 n2` PackBits and `Z`; the runs differ where the filter splits
///   a literal differently. The decoded lines are equal.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/lib/cups/filter/rastertoptch")
      && FileManager.default.isExecutableFile(atPath: "/usr/lib/cups/driver/ptouch"),
    "needs Debian's printer-driver-ptouch (make deps installs it)"))
struct PTouchFilterPeerTests {
  static let filter = "/usr/lib/cups/filter/rastertoptch"
  static let ppdTool = "/usr/lib/cups/driver/ptouch"

  /// The options foomatic-rip gives the filter for `ppd` (its `%B`): every `CmdLine B`
  /// option at the PPD's default, with `overrides` (option name: setting) in its place.
  static func filterOptions(ppd: String, overrides: [String: String] = [:]) -> String {
    let text = ppd.replacing("&&\n", with: "")
    let lines = text.split(separator: "\n").map(String.init)
    func value(_ prefix: String) -> String? {
      lines.first { $0.hasPrefix(prefix) }.flatMap { line in
        line.split(separator: "\"", omittingEmptySubsequences: false).dropFirst().first
      }.map(String.init)
    }
    var out: [String] = []
    for line in lines where line.hasPrefix("*FoomaticRIPOption ") && line.contains("CmdLine B") {
      let name = String(line.dropFirst(19).prefix { $0 != ":" })
      let isBool = line.contains(": bool ")
      let chosen =
        overrides[name]
        ?? lines.first { $0.hasPrefix("*Default\(name): ") }.map {
          String($0.dropFirst("*Default\(name): ".count))
        }
      if isBool {
        if chosen == "True", let v = value("*FoomaticRIPOptionSetting \(name): ") { out.append(v) }
      } else if let chosen {
        if let v = value("*FoomaticRIPOptionSetting \(name)=\(chosen): ") { out.append(v) }
      } else if let v = value("*FoomaticRIPOptionSetting \(name)=") {
        out.append(v)  // an option with one setting and no choice (Align=Center…)
      }
    }
    return out.joined(separator: " ").split(separator: " ").joined(separator: " ")
  }

  /// The PPD's width of the `mm` tape page, in points (`*PageSize tz-12/12mm …
  /// PageSize[34 284]`).
  static func tapePoints(ppd: String, mm: Double) throws -> Double {
    let label = mm == 3.5 ? "tz-4/3.5mm" : "tz-\(Int(mm))/\(Int(mm))mm"
    let line = try #require(
      ppd.split(separator: "\n").first { $0.hasPrefix("*PageSize \(label)") })
    let size = try #require(line.split(separator: "[").dropFirst().first)
    return try #require(Double(size.prefix { $0 != " " }))
  }

  /// A CUPS raster file (version 3, "3SaR") of 1-bit black pages at `dpi`, each
  /// `points.0` wide and exactly as long as its lines, imageable edge to edge: the
  /// `cups_page_header2_t` fields the filter reads.
  static func cupsRaster(_ pages: [Bitmap], dpi: Int, widthPoints: Double) -> [UInt8] {
    var out = Array("3SaR".utf8)
    for page in pages {
      var header = [UInt8](repeating: 0, count: 1796)
      func put(_ offset: Int, _ value: UInt32) {
        for k in 0..<4 { header[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
      }
      let length = Float(page.height) * 72 / Float(dpi)
      put(276, UInt32(dpi))  // HWResolution
      put(280, UInt32(dpi))
      put(340, 1)  // NumCopies
      put(352, UInt32(widthPoints))  // PageSize, points
      put(356, UInt32(length))
      put(372, UInt32(page.width))  // cupsWidth
      put(376, UInt32(page.height))  // cupsHeight
      put(384, 1)  // cupsBitsPerColor
      put(388, 1)  // cupsBitsPerPixel
      put(392, UInt32(page.bytesPerRow))  // cupsBytesPerLine
      put(400, 3)  // cupsColorSpace: CUPS_CSPACE_K, 1 = black
      put(420, 1)  // cupsNumColors
      put(428, Float(widthPoints).bitPattern)  // cupsPageSize
      put(432, length.bitPattern)
      put(444, Float(widthPoints).bitPattern)  // cupsImagingBBox: the whole page
      put(448, length.bitPattern)
      out += header + page.bytes
    }
    return out
  }

  /// Where the filter's page for `tape` puts our page: its width and the column of our
  /// column 0 — the PPD's page where the print area falls inside it, else a page as wide
  /// as the head.
  static func cupsPlacement(tape: BrotherPTTape, head: BrotherPTHead, points: Double)
    -> (width: Int, firstColumn: Int, ppdPage: Bool)
  {
    let width = Int((points * Double(head.dpi) / 72).rounded())
    let pad = (head.pins - width) / 2
    let first = pad + width - tape.leftPins - tape.printableDots
    if width <= head.pins, first >= 0, first + tape.printableDots <= width {
      return (width, first, true)
    }
    return (head.pins, head.pins - tape.leftPins - tape.printableDots, false)
  }

  static func pages(width: Int) -> [Bitmap] {
    var card = RasterPrintingTests.testCard(width: width, height: 200)
    card.fill(x: 2, y: 60, width: width / 2, height: 30)  // runs to compress
    var other = Bitmap(width: width, height: 90)
    for y in 0..<90 { for x in 0..<width where (x * 7 + y * 3) % 11 < 4 { other[x, y] = true } }
    return [card, other]
  }

  @Test(arguments: [
    ("PT-P700", [3.5, 6, 9, 12, 18, 24]), ("PT-E550W", [6, 12, 24]),
    ("PT-P900W", [3.5, 6, 12, 24, 36]),
  ])
  func sameBitmap_sameDotsAsDebiansFilter(model name: String, tapes: [Double]) throws {
    let dir = DaemonProcess.makeTempDirectory().path
    let ppdName = "ptouch:0/ppd/ptouch-driver/Brother-\(name)-ptouch-pt.ppd"
    let ppd = try Shell.output("\(Self.ppdTool) cat \(ppdName)")
    let overrides = ppd.contains("*FoomaticRIPOption CutLabel:") ? ["CutLabel": "1"] : [:]
    var options = Self.filterOptions(ppd: ppd, overrides: overrides)
    #expect(options.contains("PT") && options.contains("PixelXfer=RLE"))
    #expect(options.contains("Align=Center") && options.contains("LabelPreamble"))

    let driver = try #require(
      try DriverTable.driver(for: .brotherPT, settings: LabelSettings(model: name))
        as? BrotherPTDriver)
    if driver.halfCut && !ppd.contains("*FoomaticRIPOption HalfCut:") { options += " HalfCut" }
    let head = driver.pt.head
    let decoder = BrotherPTRasterDecoder(model: driver.pt)
    for mm in tapes {
      let tape = try #require(head.tape(widthMM: mm))
      let pages = Self.pages(width: tape.printableDots)
      let ours = try decoder.decode(
        driver.encode(
          pages: pages, media: Media(widthMM: mm, lengthMM: 0, kind: "tape"), dpi: head.dpi))

      let points = try Self.tapePoints(ppd: ppd, mm: mm)
      let place = Self.cupsPlacement(tape: tape, head: head, points: points)
      if head == .pins128 {
        #expect(place.ppdPage == (mm != 24), "\(name) \(mm) mm")
        if place.ppdPage { #expect(place.firstColumn == tape.widthOffset, "\(name) \(mm) mm") }
      } else {
        #expect(place.ppdPage == (mm != 3.5), "\(name) \(mm) mm")
        if place.ppdPage { #expect(abs(place.firstColumn - tape.widthOffset - 8) <= 1) }
      }
      let cups = pages.map { page in
        var c = Bitmap(width: place.width, height: page.height)
        for y in 0..<page.height {
          for x in 0..<page.width where page[x, y] { c[place.firstColumn + x, y] = true }
        }
        return c
      }
      let file = "\(dir)/\(name)-\(mm)"
      try Data(Self.cupsRaster(cups, dpi: head.dpi, widthPoints: points)).write(
        to: URL(fileURLWithPath: "\(file).ras"))
      try Shell.check(
        "timeout 60 \(Self.filter) '\(options)' < \(file).ras "
          + "> \(file).pt 2> \(file).log")
      let theirs = try decoder.decode(
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(file).pt"))))

      // The same pins on every line of every page, and the same print information.
      #expect(theirs.pages.count == 2 && ours.pages.count == 2)
      for (t, o) in zip(theirs.pages, ours.pages) {
        #expect(t.lines == o.lines, "\(name) \(mm) mm: the lines differ")
        #expect(t.printInformation == o.printInformation, "\(name) \(mm) mm")
        #expect(t.dotsOutside(tape: tape) == 0)
        #expect(t.autoCut && o.autoCut && t.halfCut == o.halfCut)
        #expect(t.chainPrinting == o.chainPrinting && !o.chainPrinting)
        #expect(t.compressed && o.compressed)
        // The expected differences.
        #expect(t.feedDots == 0 && o.feedDots == 14)
        #expect(o.cutEvery == 1 && t.cutEvery == (overrides.isEmpty ? nil : 1))
      }
      #expect(theirs.pages[0].bitmap(tape: tape) == pages[0])
      #expect(theirs.invalidateCount == 350 && ours.invalidateCount == driver.pt.invalidateCount)
      #expect(theirs.commandMode == 1 && ours.commandMode == 1)
    }
  }
}
