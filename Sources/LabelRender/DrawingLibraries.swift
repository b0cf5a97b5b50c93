import CCairo
import CPNG
import CZint
import CZlib
import LabelLanguages
import LabelPOSIX

/// The drawing stack (pangocairo, which brings pango, cairo and gobject) and libzint,
/// opened the first time labeld draws: a labeld that only sends native ZPL never maps them.
enum DrawingLibraries {
  /// Debian's sonames, then the development links.
  static let drawingNames = ["libpangocairo-1.0.so.0", "libpangocairo-1.0.so"]
  static let zintNames = ["libzint.so.2.11", "libzint.so"]
  static let zlibNames = ["libz.so.1", "libz.so"]
  static let pngNames = ["libpng16.so.16", "libpng16.so"]

  private static let drawing: Result<Void, SharedLibrary.LoadError> = SharedLibrary.open(
    drawingNames
  ).map { ccairo_bind($0) }

  private static let zint: Result<Void, SharedLibrary.LoadError> = SharedLibrary.open(zintNames)
    .map { czint_bind($0) }

  /// Opens cairo and pango if they are not open yet.
  static func requireDrawing() throws(ImageError) {
    if case .failure(let error) = drawing {
      throw ImageError("labeld cannot load its drawing libraries: \(error.message)")
    }
  }

  private static let zlib: Result<Void, SharedLibrary.LoadError> = SharedLibrary.open(zlibNames)
    .map { czlib_bind($0) }

  /// Opens zlib if it is not open yet (the drawing stack maps it anyway: cairo needs it).
  static func requireZlib() throws(ImageError) {
    if case .failure(let error) = zlib {
      throw ImageError("labeld cannot load zlib: \(error.message)")
    }
  }

  private static let png: Result<Void, SharedLibrary.LoadError> = SharedLibrary.open(pngNames)
    .map { cpng_bind($0) }

  /// Opens libpng if it is not open yet (the drawing stack maps it anyway: cairo reads PNGs
  /// with it). False when it cannot be: the caller reads the PNG through cairo instead.
  static func havePNG() -> Bool {
    if case .success = png { return true }
    return false
  }

  /// Opens libzint if it is not open yet.
  static func requireZint() throws(DrawingError) {
    if case .failure(let error) = zint {
      throw DrawingError(field: "data", reason: "labeld cannot load libzint: \(error.message)")
    }
  }
}
