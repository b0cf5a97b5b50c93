import LabelCUPS
import LabelConcurrency
import LabelCore
import LabelLanguages
import LabelPOSIX
import LabelRender
import Synchronization

/// A document's pages as the dots of labels of one printer: each page one label, placed by
/// print-scaling and orientation, greys made dots by the halftone. Raster formats (PNG,
/// JPEG, PWG and Apple raster) are read here, every page's size checked against the
/// budget from its header first; a PDF's pages, whose cost no header bounds, are drawn in
/// a process of its own with a memory, CPU and time limit (`DocumentWorker`), so a PDF
/// bomb ends its job and nothing else. One document at a time, on a lane of its own.
package struct DocumentConverter: Sendable {
  /// labeld's executable, run as `--render-pdf` for PDFs; nil draws PDFs in this process
  /// (tests of the converter alone).
  package let pdfWorker: String?
  package let limits: DocumentLimits
  /// Two lanes, each converting one document at a time: a PDF that takes its whole time
  /// holds one, and the next document takes the other.
  private let lanes = [
    BlockingQueue(label: "labeld.documents.1"), BlockingQueue(label: "labeld.documents.2"),
  ]
  private let busy = Lanes()

  package init(pdfWorker: String?, limits: DocumentLimits = DocumentLimits()) {
    self.pdfWorker = pdfWorker
    self.limits = limits
  }

  /// The labels `document` prints on a printer whose printable area is `area`.
  package func labels(of document: DocumentInput, on area: LabelArea) async throws(DocumentFailure)
    -> [Bitmap]
  {
    let converter = self
    let lane = busy.take(lanes.count)
    defer { busy.give(lane) }
    return try await lanes[lane].run { () throws(DocumentFailure) -> [Bitmap] in
      try converter.convert(document, area)
    }
  }

  /// How many documents each lane has: the next takes the least busy.
  final class Lanes: Sendable {
    private let counts = Mutex<[Int]>([])
    func take(_ n: Int) -> Int {
      counts.withLock { c in
        if c.count != n { c = Array(repeating: 0, count: n) }
        let lane = c.indices.min { c[$0] < c[$1] } ?? 0
        c[lane] += 1
        return lane
      }
    }
    func give(_ lane: Int) { counts.withLock { $0[lane] -= 1 } }
  }

  private func convert(_ document: DocumentInput, _ area: LabelArea) throws(DocumentFailure)
    -> [Bitmap]
  {
    let settings = document.settings
    switch document.format {
    case .pdf:
      if let pdfWorker {
        return try PDFInWorker.labels(document, area: area, worker: pdfWorker, limits: limits)
      }
      return try Self.pdfLabels(document.bytes, settings, area, limits)
    case .png:
      let ink: InkImage
      do {
        let size = try PNGCodec.size(of: document.bytes)
        guard size.width > 0, size.height > 0, size.width <= LabelRasteriser.maxPixels / size.height
        else {
          throw DocumentFailure(
            .unprintable,
            "the PNG is \(size.width) x \(size.height) pixels: more than \(LabelRasteriser.maxPixels)"
          )
        }
        ink = try PNGCodec.decodeInk(document.bytes)
      } catch let failure as DocumentFailure {
        throw failure
      } catch {
        throw DocumentFailure(.formatError, "the PNG cannot be read: \(error)")
      }
      return [
        try Self.place(DocumentPage(ink: ink, xDPI: nil, yDPI: nil), settings, area, .threshold)
      ]
    case .jpeg:
      let page: DocumentPage
      do {
        page = try JPEGCodec.decode(document.bytes, maxPixels: LabelRasteriser.maxPixels)
      } catch {
        throw DocumentFailure(
          error.message.contains("pixels: more than") ? .unprintable : .formatError, error.message)
      }
      return [try Self.place(page, settings, area, .ordered)]
    case .pwgRaster, .urf:
      var labels: [Bitmap] = []
      var dots = 0
      var failure: DocumentFailure?
      // Read in this process (libcups decodes, each page checked first), so bounded here:
      // its pixels together, and the same time a PDF's renderer has.
      let deadline = ContinuousClock.now + .seconds(limits.pdfSeconds)
      do throws(RasterError) {
        try RasterStream.read(
          document.bytes[...], maxPixels: LabelRasteriser.maxPixels, maxPages: limits.maxPages,
          maxTotalPixels: limits.maxRasterPixels,
          choose: { n in
            guard ContinuousClock.now < deadline else {
              return .stop(
                "the document took more than \(Int(limits.pdfSeconds)) s to read; it was stopped")
            }
            return settings.includes(n) ? .read : .skip
          }
        ) { raster in
          let page = DocumentPage(
            width: raster.width, height: raster.height, grey: raster.pixels,
            xDPI: raster.xDPI > 0 ? raster.xDPI : nil, yDPI: raster.yDPI > 0 ? raster.yDPI : nil)
          do throws(DocumentFailure) {
            let label = try Self.place(page, settings, area, .threshold)
            dots += label.width * label.height
            guard dots <= limits.maxDots else {
              throw DocumentFailure(
                .unprintable, "the document's labels come to more than \(limits.maxDots) dots")
            }
            labels.append(label)
            return true
          } catch {
            failure = error
            return false
          }
        }
      } catch {
        let tooLarge = error.message.contains("more than")
        throw DocumentFailure(tooLarge ? .unprintable : .formatError, error.message)
      }
      if let failure { throw failure }
      guard !labels.isEmpty else {
        throw DocumentFailure(.unprintable, "page-ranges selects none of the document's pages")
      }
      return labels
    }
  }

  /// One page placed and made dots.
  static func place(
    _ page: DocumentPage, _ settings: DocumentSettings, _ area: LabelArea, _ halftone: Halftone
  ) throws(DocumentFailure) -> Bitmap {
    let dpi = page.xDPI.map(Double.init)
    let placement = PageLayout.place(
      sourceWidth: Double(page.ink.width), sourceHeight: Double(page.ink.height),
      unitsPerInch: dpi, on: area, scaling: settings.scaling, orientation: settings.orientation)
    do throws(ImageError) {
      return try page.placed(placement).bitmap(settings.halftone ?? halftone)
    } catch {
      throw DocumentFailure(.unprintable, error.message)
    }
  }

  /// A PDF's pages drawn in this process (the worker's side, and tests).
  static func pdfLabels(
    _ bytes: [UInt8], _ settings: DocumentSettings, _ area: LabelArea, _ limits: DocumentLimits
  ) throws(DocumentFailure) -> [Bitmap] {
    let pdf: PDFDocument
    do {
      pdf = try PDFDocument(bytes)
    } catch {
      throw DocumentFailure(.formatError, error.message)
    }
    let count = pdf.pageCount
    guard count > 0 else { throw DocumentFailure(.unprintable, "the PDF has no page") }
    guard count <= limits.maxPages else {
      throw DocumentFailure(
        .unprintable, "the PDF has \(count) pages: more than \(limits.maxPages)")
    }
    var labels: [Bitmap] = []
    var dots = 0
    for index in 0..<count where settings.includes(index + 1) {
      do throws(ImageError) {
        let size = try pdf.pageSize(index)
        let placement = PageLayout.place(
          sourceWidth: size.width, sourceHeight: size.height, unitsPerInch: 72, on: area,
          scaling: settings.scaling, orientation: settings.orientation)
        dots += placement.width * placement.height
        guard dots <= limits.maxDots else {
          throw ImageError("the document's labels come to more than \(limits.maxDots) dots")
        }
        let ink = try pdf.page(index, placed: placement)
        labels.append(ink.bitmap(settings.halftone ?? .threshold))
      } catch {
        throw DocumentFailure(.unprintable, error.message)
      }
    }
    guard !labels.isEmpty else {
      throw DocumentFailure(.unprintable, "page-ranges selects none of the PDF's \(count) pages")
    }
    return labels
  }
}
