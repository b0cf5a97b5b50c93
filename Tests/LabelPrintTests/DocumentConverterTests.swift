import LabelCUPS
import LabelCore
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

@testable import LabelPrint

/// Raster documents are read in labeld's own process, so what reading one costs is bounded
/// there: by what its pages come to in pixels (a white page of 32 million pixels is a few
/// KB of PWG raster; a review found 500 of them kept a lane busy for over ten minutes), by
/// the document's time, and pages outside page-ranges are read past, not drawn.
@Suite struct DocumentConverterTests {
  static let area = LabelArea(width: 406, length: 203, maxLength: 203, dpi: 203)

  static func raster(_ pages: Int, width: Int = 1000, height: Int = 500) throws -> [UInt8] {
    try IPPSamples.raster(
      Array(repeating: IPPSamples.pattern(width, height), count: pages), dpi: 203, format: .pwg)
  }

  @Test func pagesPastThePixelBudget_areRefused_beforeTheyAreRead() async throws {
    var limits = DocumentLimits()
    limits.maxRasterPixels = 1_200_000
    let converter = DocumentConverter(pdfWorker: nil, limits: limits)
    // Two pages of 500,000 pixels fit; a third passes the budget at its header.
    let two = try await converter.labels(
      of: DocumentInput(bytes: try Self.raster(2), format: .pwgRaster), on: Self.area)
    #expect(two.count == 2)
    let three = DocumentInput(bytes: try Self.raster(3), format: .pwgRaster)
    do {
      _ = try await converter.labels(of: three, on: Self.area)
      Issue.record("three pages were read")
    } catch {
      #expect(error.fault == .unprintable)
      #expect(error.message.contains("more than 1200000 pixels"), "\(error.message)")
    }
  }

  @Test func aDocumentPastItsTime_isStopped() async throws {
    var limits = DocumentLimits()
    limits.pdfSeconds = 0
    let converter = DocumentConverter(pdfWorker: nil, limits: limits)
    let one = DocumentInput(
      bytes: try IPPSamples.raster([IPPSamples.pattern(406, 203)], dpi: 203, format: .urf),
      format: .urf)
    do {
      _ = try await converter.labels(of: one, on: Self.area)
      Issue.record("it was read")
    } catch {
      #expect(error.fault == .unprintable && error.message.contains("s to read"))
    }
  }

  @Test func pagesOutsideTheRanges_areReadPast() async throws {
    let converter = DocumentConverter(pdfWorker: nil)
    var settings = DocumentSettings()
    settings.pageRanges = [2...2]
    // Page 2 black, pages 1 and 3 white: the one label is black.
    let white = Bitmap(width: 406, height: 203)
    var black = Bitmap(width: 406, height: 203)
    for y in 0..<203 { for x in 0..<406 { black[x, y] = true } }
    let bytes = try IPPSamples.raster([white, black, white], dpi: 203, format: .pwg)
    let labels = try await converter.labels(
      of: DocumentInput(bytes: bytes, format: .pwgRaster, settings: settings), on: Self.area)
    #expect(labels == [black])
  }
}
