import LabelCore

/// What a text or barcode element shows once its `${field}`s are filled: shared by the
/// ZPL encoder and the rasteriser, so both refuse the same data with the same error.
extension TextElement {
  /// The text with its placeholders filled; a missing value is `data.<name>`.
  public func filledText(_ data: [String: String]) throws(LabelError) -> String {
    try Placeholders.filled(text, from: data)
  }
}

extension BarcodeElement {
  /// The data to encode, placeholders filled and checked against the symbology; data
  /// that does not fit is an error on `<path>.data`.
  public func filledData(_ data: [String: String], path: String) throws(LabelError) -> String {
    let value = try Placeholders.filled(self.data, from: data)
    if let problem = symbology.problem(value) {
      throw LabelError(field: "\(path).data", reason: "\"\(value)\": \(problem)")
    }
    return value
  }
}

extension Placeholders {
  /// `text` filled from `data`, or a LabelError on `data.<name>` for a missing value.
  static func filled(_ text: String, from data: [String: String]) throws(LabelError) -> String {
    switch fill(text, from: data) {
    case .success(let s): return s
    case .failure(let e): throw LabelError(field: "data.\(e.field)", reason: e.reason)
    }
  }
}
