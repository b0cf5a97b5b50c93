#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Checks of a template that JSON typing cannot express: sizes, elements inside the media,
/// barcode data that can be encoded. Field names are relative to the template object.
extension Template {
  public func validate() throws(FieldError) {
    let trimmed = name.trimmingSpaces
    if trimmed.isEmpty { throw FieldError(field: "name", reason: "must not be empty") }
    if name.contains(where: { $0.isNewline }) {
      throw FieldError(field: "name", reason: "must not contain line breaks")
    }
    guard media.widthMM > 0, media.widthMM <= 300 else {
      throw FieldError(field: "media.widthMM", reason: "must be between 0 and 300 mm")
    }
    guard media.lengthMM > 0, media.lengthMM <= 2000 else {
      throw FieldError(field: "media.lengthMM", reason: "must be between 0 and 2000 mm")
    }
    if let min = media.minWidthMM, !(min > 0 && min <= 2000) {
      throw FieldError(field: "media.minWidthMM", reason: "must be between 0 and 2000 mm")
    }
    if let margin = media.marginMM, !(margin >= 0 && margin <= 100) {
      throw FieldError(field: "media.marginMM", reason: "must be between 0 and 100 mm")
    }
    for (i, element) in elements.enumerated() {
      do throws(FieldError) {
        try element.validate(in: media)
      } catch {
        throw error.nested(under: "elements[\(i)]")
      }
    }
  }

  /// The `${field}` names the template's text and barcode data refer to.
  public var referencedFields: Set<String> {
    var names = Set<String>()
    for element in elements {
      switch element {
      case .text(let t): names.formUnion(Placeholders.names(in: t.text))
      case .barcode(let b): names.formUnion(Placeholders.names(in: b.data))
      case .box, .line, .image: break
      }
    }
    return names
  }
}

extension Element {
  /// Validates one element against the media it is placed on.
  func validate(in media: TemplateMedia) throws(FieldError) {
    func inside(_ value: Double, _ field: String, limit: Double) throws(FieldError) {
      guard value.isFinite, value >= 0, value <= limit + 1e-9 else {
        throw FieldError(field: field, reason: "\(value) mm lies outside the \(limit) mm media")
      }
    }
    func positive(_ value: Double, _ field: String) throws(FieldError) {
      guard value.isFinite, value > 0 else {
        throw FieldError(field: field, reason: "must be greater than 0")
      }
    }
    func upTo(_ value: Double, _ limit: Double, _ field: String, _ unit: String) throws(FieldError)
    {
      guard value.isFinite, value > 0, value <= limit else {
        throw FieldError(
          field: field, reason: "must be greater than 0 and at most \(limit) \(unit)")
      }
    }
    func rotation(_ r: Int?) throws(FieldError) {
      if let r, ![0, 90, 180, 270].contains(r) {
        throw FieldError(field: "rotation", reason: "must be 0, 90, 180 or 270")
      }
    }
    switch self {
    case .text(let t):
      try rotation(t.rotation)
      try inside(t.x, "x", limit: media.widthMM)
      try inside(t.y, "y", limit: media.lengthMM)
      try positive(t.width, "width")
      try positive(t.height, "height")
      // Turned a quarter, the box's width runs down the label.
      let (across, down) = (t.rotation ?? 0) % 180 == 0 ? (t.width, t.height) : (t.height, t.width)
      try inside(
        t.x + across, (t.rotation ?? 0) % 180 == 0 ? "width" : "height", limit: media.widthMM)
      try inside(
        t.y + down, (t.rotation ?? 0) % 180 == 0 ? "height" : "width", limit: media.lengthMM)
      if let size = t.size { try upTo(size, TextElement.maxPoints, "size", "pt") }
      if let font = t.font, font.trimmingSpaces.isEmpty {
        throw FieldError(field: "font", reason: "must not be empty")
      }
    case .barcode(let b):
      try rotation(b.rotation)
      try inside(b.x, "x", limit: media.widthMM)
      try inside(b.y, "y", limit: media.lengthMM)
      try positive(b.height, "height")
      if (b.rotation ?? 0) % 180 == 0 {
        try inside(b.y + b.height, "height", limit: media.lengthMM)
      } else {
        try inside(b.x + b.height, "height", limit: media.widthMM)
      }
      if let m = b.moduleWidth { try upTo(m, BarcodeElement.maxModuleMM, "moduleWidth", "mm") }
      if b.data.isEmpty { throw FieldError(field: "data", reason: "must not be empty") }
      if Placeholders.names(in: b.data).isEmpty, let problem = b.symbology.problem(b.data) {
        throw FieldError(field: "data", reason: problem)
      }
    case .box(let b):
      try inside(b.x, "x", limit: media.widthMM)
      try inside(b.y, "y", limit: media.lengthMM)
      try positive(b.width, "width")
      try positive(b.height, "height")
      try inside(b.x + b.width, "width", limit: media.widthMM)
      try inside(b.y + b.height, "height", limit: media.lengthMM)
      if let t = b.thickness { try upTo(t, max(b.width, b.height), "thickness", "mm") }
    case .line(let l):
      try inside(l.x1, "x1", limit: media.widthMM)
      try inside(l.y1, "y1", limit: media.lengthMM)
      try inside(l.x2, "x2", limit: media.widthMM)
      try inside(l.y2, "y2", limit: media.lengthMM)
      if let t = l.thickness {
        try upTo(t, max(media.widthMM, media.lengthMM), "thickness", "mm")
      }
    case .image(let m):
      try rotation(m.rotation)
      try inside(m.x, "x", limit: media.widthMM)
      try inside(m.y, "y", limit: media.lengthMM)
      try positive(m.width, "width")
      try positive(m.height, "height")
      let quarter = (m.rotation ?? 0) % 180 != 0
      try inside(
        m.x + (quarter ? m.height : m.width), quarter ? "height" : "width", limit: media.widthMM)
      try inside(
        m.y + (quarter ? m.width : m.height), quarter ? "width" : "height", limit: media.lengthMM)
      guard let bytes = Data(base64Encoded: m.png) else {
        throw FieldError(field: "png", reason: "is not valid base64")
      }
      guard bytes.count <= ImageElement.maxBytes else {
        throw FieldError(
          field: "png",
          reason: "is \(bytes.count) bytes; at most \(ImageElement.maxBytes) are allowed")
      }
      guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
        throw FieldError(field: "png", reason: "is not a PNG file (no PNG signature)")
      }
    }
  }
}

extension Symbology {
  /// What a symbol of this symbology encodes for `data`: EAN-13 and UPC-A take GTINs by
  /// GS1's rules (see `GTIN`) and give their 13 and 12 digits, check digit included and
  /// verified; Code 128 and QR give `data` itself. Throws why `data` cannot be encoded, on
  /// field `data`.
  ///
  /// - `ean13`: a GTIN-13, or a GTIN-12 encoded as 0 + its 12 digits (GS1 GS §5.2).
  /// - `upca`: a GTIN-12, or 13 digits starting with 0 whose last 12 are a GTIN-12.
  public func symbolData(_ data: String) throws(FieldError) -> String {
    switch self {
    case .ean13:
      guard data.count == 12 || data.count == 13 else {
        throw FieldError(
          field: "data",
          reason:
            "EAN-13 takes a GTIN-13 (13 digits) or a GTIN-12 (12 digits, encoded as 0 + them), "
            + "got \(data.count) characters")
      }
      return try Self.gtin(data, for: "EAN-13").ean13!
    case .upca:
      guard data.count == 12 || data.count == 13 else {
        throw FieldError(
          field: "data",
          reason:
            "UPC-A takes a GTIN-12 (12 digits), or 13 digits starting with 0, "
            + "got \(data.count) characters")
      }
      guard let digits = try Self.gtin(data, for: "UPC-A").upca else {
        throw FieldError(
          field: "data",
          reason: "a GTIN-13 that does not start with 0 is not a GTIN-12: print it as EAN-13")
      }
      return digits
    case .code128:
      guard data.count <= 80 else {
        throw FieldError(field: "data", reason: "Code 128 data longer than 80 characters")
      }
      guard data.unicodeScalars.allSatisfy({ $0.value < 128 }) else {
        throw FieldError(field: "data", reason: "Code 128 encodes ASCII only")
      }
      return data
    case .qr:
      guard data.utf8.count <= 2953 else {
        throw FieldError(field: "data", reason: "QR data longer than 2953 bytes")
      }
      return data
    }
  }

  /// Nil when `data` can be encoded in this symbology, else why not.
  public func problem(_ data: String) -> String? {
    do {
      _ = try symbolData(data)
      return nil
    } catch {
      return error.reason
    }
  }

  private static func gtin(_ data: String, for name: String) throws(FieldError) -> GTIN {
    do {
      return try GTIN(data)
    } catch {
      // A 12-digit value is a GTIN-12 with its own check digit: say so, since a printer
      // (or an older labeld) would have computed a 13th digit and made another number.
      let kind = data.count == 12 ? "GTIN-12" : "GTIN-13"
      throw FieldError(
        field: "data", reason: "\(name) data is not a valid \(kind): \(error.reason)")
    }
  }
}

/// `${field}` placeholders in template strings.
public enum Placeholders {
  /// The field names referenced in `text`.
  public static func names(in text: String) -> [String] {
    var out: [String] = []
    var rest = Substring(text)
    while let open = rest.firstRange(of: "${") {
      guard let close = rest[open.upperBound...].firstIndex(of: "}") else { break }
      out.append(String(rest[open.upperBound..<close]))
      rest = rest[rest.index(after: close)...]
    }
    return out
  }

  /// The most UTF-8 bytes a filled text or barcode value may have: far more than any
  /// label shows, and a bound on what `${a}${a}${a}…` with a long `a` can make labeld
  /// allocate (1 MiB of placeholders times 1 MiB of data would be terabytes).
  public static let maxFilledBytes = 65_536

  /// `text` with each `${field}` replaced from `data`; the failure names the field that has
  /// no value, or whose value makes the result longer than `maxFilledBytes`.
  public static func fill(_ text: String, from data: [String: String]) -> Result<String, FieldError>
  {
    var out = ""
    var rest = Substring(text)
    while let open = rest.firstRange(of: "${") {
      guard let close = rest[open.upperBound...].firstIndex(of: "}") else { break }
      out += rest[..<open.lowerBound]
      let name = String(rest[open.upperBound..<close])
      guard let value = data[name] else {
        return .failure(FieldError(field: name, reason: "no value for ${\(name)}"))
      }
      guard out.utf8.count + value.utf8.count <= maxFilledBytes else {
        return .failure(
          FieldError(
            field: name,
            reason: "filling ${\(name)} makes the text longer than \(maxFilledBytes) bytes"))
      }
      out += value
      rest = rest[rest.index(after: close)...]
    }
    out += rest
    guard out.utf8.count <= maxFilledBytes else {
      return .failure(
        FieldError(field: "text", reason: "is longer than \(maxFilledBytes) bytes once filled"))
    }
    return .success(out)
  }
}
