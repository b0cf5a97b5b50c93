import LabelCore
import LabelRender

/// The documents an IPP client may send (document-format-supported), by media type.
package enum DocumentFormat: String, Sendable, CaseIterable {
  case pdf = "application/pdf"
  case png = "image/png"
  case jpeg = "image/jpeg"
  case pwgRaster = "image/pwg-raster"
  case urf = "image/urf"

  /// The format `bytes` begin as (document-format auto-detection, for a client that sends
  /// application/octet-stream), or nil.
  package static func sniff(_ bytes: [UInt8]) -> DocumentFormat? {
    func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
    if starts(Array("%PDF".utf8)) { return .pdf }
    if starts([0x89, 0x50, 0x4E, 0x47]) { return .png }
    if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
    if starts(Array("RaS2".utf8)) { return .pwgRaster }
    if starts(Array("UNIRAST".utf8)) { return .urf }
    return nil
  }
}

/// How a document's pages go on a label (IPP job template attributes).
package struct DocumentSettings: Sendable, Equatable {
  package var scaling: PrintScaling = .auto
  /// nil: turned as the page's shape suggests.
  package var orientation: PageOrientation?
  /// 1-based, inclusive, ascending; nil: every page.
  package var pageRanges: [ClosedRange<Int>]?
  /// nil: threshold, except for photographs (JPEG), which are dithered.
  package var halftone: Halftone?

  package init(
    scaling: PrintScaling = .auto, orientation: PageOrientation? = nil,
    pageRanges: [ClosedRange<Int>]? = nil, halftone: Halftone? = nil
  ) {
    self.scaling = scaling
    self.orientation = orientation
    self.pageRanges = pageRanges
    self.halftone = halftone
  }

  /// Whether page `number` (1-based) is printed.
  package func includes(_ number: Int) -> Bool {
    pageRanges.map { $0.contains { $0.contains(number) } } ?? true
  }
}

/// A document to print: its bytes, what they are, how its pages go on the label.
package struct DocumentInput: Sendable {
  package var bytes: [UInt8]
  package var format: DocumentFormat
  package var settings: DocumentSettings

  package init(bytes: [UInt8], format: DocumentFormat, settings: DocumentSettings = .init()) {
    self.bytes = bytes
    self.format = format
    self.settings = settings
  }
}

/// Why a document cannot print, for the job's end: IPP's document-format-error (not
/// readable as its format) or document-unprintable-error (read, but not printable here).
package struct DocumentFailure: Error, Sendable, Equatable {
  package var fault: DocumentFault
  package var message: String

  package init(_ fault: DocumentFault, _ message: String) {
    self.fault = fault
    self.message = message
  }
}

/// What one document may cost: pages, and dots over all its pages (each page is also held
/// to the rendering pixel budget).
package struct DocumentLimits: Sendable, Equatable {
  package var maxPages = 500
  package var maxDots = 1 << 28
  /// The pixels a raster document's pages may come to, skipped pages too: what reading it
  /// costs (500 pages of 4 x 6 in at 203 dpi are 0.5 G).
  package var maxRasterPixels = 1 << 29
  /// The process that draws a PDF: its address space, its CPU seconds and its wall time.
  package var pdfMemoryBytes = 1 << 30
  package var pdfCPUSeconds = 30
  package var pdfSeconds = 60.0

  package init() {}
}
