import CZint
import LabelCore
import LabelLanguages

/// A barcode as libzint encodes it: a matrix of modules (one row for linear codes) and the
/// human-readable text. The zint symbol is created, read and deleted here.
struct BarcodeSymbol: Sendable {
  let rows: Int
  let columns: Int
  /// `rows * columns` modules, row by row: true is dark.
  let modules: [Bool]
  /// The human-readable text (EAN/UPC with the check digit).
  let text: String

  subscript(row: Int, column: Int) -> Bool { modules[row * columns + column] }

  /// Encodes `data`; a message saying why when libzint refuses it.
  init(_ symbology: Symbology, data: String) throws(DrawingError) {
    try DrawingLibraries.requireZint()
    guard let symbol = ZBarcode_Create() else {
      throw DrawingError(field: "data", reason: "libzint could not allocate a symbol")
    }
    defer { ZBarcode_Delete(symbol) }
    switch symbology {
    case .ean13: symbol.pointee.symbology = BARCODE_EANX
    case .upca: symbol.pointee.symbology = BARCODE_UPCA
    case .code128: symbol.pointee.symbology = BARCODE_CODE128
    case .qr:
      symbol.pointee.symbology = BARCODE_QRCODE
      symbol.pointee.input_mode = UNICODE_MODE
      symbol.pointee.option_1 = 2  // error correction level M, as ZPL's ^BQ "M"
      // QR's default character set is ISO 8859-1; text beyond ASCII goes as UTF-8 under
      // ECI 26, which is what scanners (and zbar) read as the intended text.
      if !data.utf8.allSatisfy({ $0 < 0x80 }) { symbol.pointee.eci = 26 }
    }
    let bytes = Array(data.utf8)
    // Symbologies hold a few thousand bytes at most (QR: 2953); zint takes an Int32.
    guard bytes.count <= 8192 else {
      throw DrawingError(
        field: "data", reason: "\(bytes.count) bytes is more than any barcode holds")
    }
    let status = bytes.withUnsafeBufferPointer {
      ZBarcode_Encode(symbol, $0.baseAddress, Int32($0.count))
    }
    guard status < ZINT_ERROR else {
      let message = withUnsafeBytes(of: symbol.pointee.errtxt) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      throw DrawingError(field: "data", reason: "\"\(data)\": \(message)")
    }
    rows = Int(symbol.pointee.rows)
    columns = Int(symbol.pointee.width)
    var modules = [Bool](repeating: false, count: rows * columns)
    for r in 0..<rows {
      for c in 0..<columns {
        modules[r * columns + c] = czint_module(symbol, Int32(r), Int32(c)) != 0
      }
    }
    self.modules = modules
    text = withUnsafeBytes(of: symbol.pointee.text) { raw in
      String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
  }
}

/// Sizes of symbols, for printers that draw barcodes themselves (ZPL's `^BQ`).
public enum SymbolSize {
  /// Modules across a QR symbol for `data` (error correction M), as labeld draws it.
  public static func qrModules(_ data: String) throws(DrawingError) -> Int {
    try BarcodeSymbol(.qr, data: data).columns
  }
}
