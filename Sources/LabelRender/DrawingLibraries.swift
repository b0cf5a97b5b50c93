import CCairo
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

  /// Opens libzint if it is not open yet.
  static func requireZint() throws(DrawingError) {
    if case .failure(let error) = zint {
      throw DrawingError(field: "data", reason: "labeld cannot load libzint: \(error.message)")
    }
  }
}
