import CCairo
import CPoppler
import LabelPOSIX

/// A PDF opened by poppler (one owner: closed in deinit). Used in the process that renders
/// documents, which labeld starts with limits (`DocumentRenderer`), or in tests.
public final class PDFDocument {
  private let handle: OpaquePointer

  public init(_ bytes: [UInt8]) throws(ImageError) {
    try Poppler.require()
    var error = [CChar](repeating: 0, count: 256)
    let opened = bytes.withUnsafeBytes { data in
      error.withUnsafeMutableBufferPointer {
        cpoppler_open(data.baseAddress, data.count, $0.baseAddress, $0.count)
      }
    }
    guard let opened else {
      let message = String(
        decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw ImageError("the PDF cannot be read: \(message)")
    }
    handle = opened
  }

  deinit { cpoppler_close(handle) }

  public var pageCount: Int { Int(max(0, cpoppler_page_count(handle))) }

  /// The page's size in points (1/72 in).
  public func pageSize(_ index: Int) throws(ImageError) -> (width: Double, height: Double) {
    var width = 0.0
    var height = 0.0
    guard cpoppler_page_size(handle, Int32(index), &width, &height) == 0,
      width.isFinite, height.isFinite, width > 0, height > 0, width < 1e6, height < 1e6
    else { throw ImageError("page \(index + 1) of the PDF has no size labeld can print") }
    return (width, height)
  }

  func render(_ index: Int, onto cr: OpaquePointer) throws(ImageError) {
    guard cpoppler_render(handle, Int32(index), UnsafeMutableRawPointer(cr)) == 0 else {
      throw ImageError("page \(index + 1) of the PDF cannot be drawn")
    }
  }
}

/// poppler-glib, opened the first time a PDF is read (with cairo, which it draws on).
enum Poppler {
  static let names = ["libpoppler-glib.so.8", "libpoppler-glib.so"]

  /// poppler's handle bound (0), or not (any other code: a function missing).
  private static let opened: Result<Int32, SharedLibrary.LoadError> = SharedLibrary.open(names)
    .map { cpoppler_bind($0) }

  static func require() throws(ImageError) {
    try DrawingLibraries.requireDrawing()
    switch opened {
    case .failure(let error):
      throw ImageError("labeld cannot load poppler to read PDFs: \(error.message)")
    case .success(let bound) where bound != 0:
      throw ImageError("labeld cannot use poppler: a function it calls is missing")
    case .success: break
    }
  }
}
