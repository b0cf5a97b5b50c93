import LabelCore

/// What a text or barcode element shows once its `${field}`s are filled: shared by the
/// ZPL encoder and the rasteriser, so both refuse the same data with the same error.
extension TextElement {
  /// The text with its placeholders filled; a missing value is `data.<name>`.
  public func filledText(_ data: [String: String]) throws(DrawingError) -> String {
    try Placeholders.filled(text, from: data)
  }
}

extension BarcodeElement {
  /// What the symbol encodes: placeholders filled, then taken by the symbology's rules
  /// (`Symbology.symbolData`): EAN-13 as 13 digits and UPC-A as 12, their GS1 check digit
  /// verified, never computed. Data that does not fit is an error on `<path>.data`.
  public func filledData(_ data: [String: String], path: String) throws(DrawingError) -> String {
    let value = try Placeholders.filled(self.data, from: data)
    do {
      return try symbology.symbolData(value)
    } catch {
      throw DrawingError(field: "\(path).data", reason: "\"\(value)\": \(error.reason)")
    }
  }
}

extension Placeholders {
  /// `text` filled from `data`, or a DrawingError on `data.<name>` for a missing value.
  static func filled(_ text: String, from data: [String: String]) throws(DrawingError) -> String {
    switch fill(text, from: data) {
    case .success(let s): return s
    case .failure(let e): throw DrawingError(field: "data.\(e.field)", reason: e.reason)
    }
  }
}
