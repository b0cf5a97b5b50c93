import Foundation
import LabelCore
import LabelLanguages
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// DYMO's own CUPS filter, `raster2dymolw` (Debian's printer-driver-dymo), as a second
/// opinion on the LabelWriter 4xx language: the test card as a CUPS raster page through the
/// filter, and as a PNG through labeld, both decoded with labeld's decoder, put the same
/// dots on the label.
///
/// Byte-level differences, each expected:
/// - The filter's language monitor asks for status (`ESC A`) and waits for the answer on
///   the back channel (file descriptor 3, here a file of ready bytes, 03); labeld reads
///   status after the job, through its transport.
/// - The filter sends `ESC Q 0 0` (line tab), and per line an `ESC B` dot tab past the
///   white bytes on the left and an `ESC D` when the line's width changes; labeld sends
///   one `ESC D` and `ESC B 0` a page and whole lines.
/// - The filter ends the page with `ESC G` and the job with `ESC E` (a short feed, then a
///   full one); labeld ends its last page with `ESC E` alone.
/// - The filter sends `ESC e` (normal density); labeld none unless configured.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/lib/cups/filter/raster2dymolw")
      && FileManager.default.isExecutableFile(atPath: "/usr/lib/cups/driver/dymo"),
    "needs Debian's printer-driver-dymo (make deps installs it)"))
struct DymoFilterPeerTests {
  static let filter = "/usr/lib/cups/filter/raster2dymolw"
  static let ppdTool = "/usr/lib/cups/driver/dymo"

  /// A CUPS raster file (version 3: uncompressed, little-endian, "3SaR") holding `page` as
  /// one 1-bit black (`CUPS_CSPACE_K`) page at `dpi` on a `points` page size: the
  /// `cups_page_header2_t` fields DYMO's filters read, at their offsets in the 1796-byte
  /// header (`cupsMediaType`: the LabelManager filter's tape).
  static func cupsRaster(
    _ page: Bitmap, points: (Double, Double), dpi: UInt32 = 300, mediaType: UInt32 = 0
  ) -> [UInt8] {
    Array("3SaR".utf8) + cupsPage(page, points: points, dpi: dpi, mediaType: mediaType)
  }

  /// One page of a CUPS raster file: its header and its lines.
  static func cupsPage(
    _ page: Bitmap, points: (Double, Double), dpi: UInt32 = 300, mediaType: UInt32 = 0
  ) -> [UInt8] {
    var header = [UInt8](repeating: 0, count: 1796)
    func put(_ offset: Int, _ value: UInt32) {
      for k in 0..<4 { header[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }
    put(276, dpi)  // HWResolution
    put(280, dpi)
    put(340, 1)  // NumCopies
    put(352, UInt32(points.0))  // PageSize, points
    put(356, UInt32(points.1))
    put(372, UInt32(page.width))  // cupsWidth
    put(376, UInt32(page.height))  // cupsHeight
    put(380, mediaType)  // cupsMediaType
    put(384, 1)  // cupsBitsPerColor
    put(388, 1)  // cupsBitsPerPixel
    put(392, UInt32(page.bytesPerRow))  // cupsBytesPerLine
    put(400, 3)  // cupsColorSpace: CUPS_CSPACE_K, 1 = black
    put(420, 1)  // cupsNumColors
    put(428, Float(points.0).bitPattern)  // cupsPageSize, points
    put(432, Float(points.1).bitPattern)
    return header + page.bytes
  }

  @Test func dymoLW_sameCard_sameDotsAsDYMOsFilter() throws {
    let dir = DaemonProcess.makeTempDirectory().path
    var card = RasterPrintingTests.testCard(width: 240, height: 400)
    card.fill(x: 40, y: 100, width: 160, height: 60)  // lines the filter compresses
    // The filter's page: the address label's width in whole bytes (1.125 in: 81 points).
    var page = Bitmap(width: 336, height: 1050)
    for y in 0..<400 { for x in 0..<240 where card[x, y] { page[x + 16, y + 8] = true } }
    try Data(Self.cupsRaster(page, points: (81, 252))).write(
      to: URL(fileURLWithPath: "\(dir)/card.ras"))
    try Data(repeating: 0x03, count: 100_000).write(to: URL(fileURLWithPath: "\(dir)/ready"))
    try Shell.check(
      "\(Self.ppdTool) cat dymo:0/cups/model/lw450.ppd > \(dir)/lw450.ppd && "
        + "PPD=\(dir)/lw450.ppd timeout 60 \(Self.filter) 1 labeld test 1 '' \(dir)/card.ras "
        + "> \(dir)/card.lw 2>\(dir)/filter.log 3<\(dir)/ready")
    let theirs = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/card.lw")))
    let theirJob = try DymoLWDecoder().decode(theirs)
    let theirPage = try #require(theirJob.pages.first?.image)
    #expect(theirJob.pages[0].compressedLines > 0 && theirJob.density == .normal)
    #expect(LPrintPeerTests.inked(theirPage) == card)

    let png = "\(dir)/card.png"
    try LPrintPeerTests.greyPNG(card, dpi: 300, to: png)
    let ours = try LPrintPeerTests.ours(png, simulate: "lw=dymo-lw", ext: "lw")
    let ourPage = try #require(try DymoLWDecoder().decode(ours).pages.first?.image)
    #expect(LPrintPeerTests.inked(ourPage) == card)
  }
}
