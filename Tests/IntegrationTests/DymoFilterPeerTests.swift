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

  @Test func dymoLW_sameCard_sameDotsAsDYMOsFilter() throws {
    let dir = DaemonProcess.makeTempDirectory().path
    var card = RasterPrintingTests.testCard(width: 240, height: 400)
    card.fill(x: 40, y: 100, width: 160, height: 60)  // lines the filter compresses
    // The filter's page: the address label's width in whole bytes (1.125 in: 81 points).
    var page = Bitmap(width: 336, height: 1050)
    for y in 0..<400 { for x in 0..<240 where card[x, y] { page[x + 16, y + 8] = true } }
    try Data(CUPSRasterFile.bytes([.init(page, points: (81, 252))])).write(
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
