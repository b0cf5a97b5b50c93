import Foundation
import LabelCore

/// Turns a template and its data into a printer's bytes or a preview.
///
/// The encoders (ZPL II, Brother QL raster) and the rasteriser arrive with the
/// printer-languages and rendering work; until then every render answers 1007, after the
/// request has been checked in full, so clients see their real mistakes first.
struct LabelRenderer: Sendable {
  enum Format: String, Sendable { case png, native }

  /// Fills the template's placeholders; a missing value names the field (`data.<name>`).
  func resolve(_ template: Template, data: [String: String]) throws(RPCError) {
    for name in template.referencedFields where data[name] == nil {
      throw .invalidParams(
        field: "data.\(name)",
        reason: "template \(template.name) uses ${\(name)} but no value was given")
    }
  }

  /// The bytes of one copy of `template` for `language`.
  func render(
    _ template: Template, data: [String: String], language: PrinterLanguage, dpi: Int,
    format: Format
  ) throws(RPCError) -> RenderResult {
    try resolve(template, data: data)
    switch format {
    case .native:
      throw .unsupported(
        "rendering templates to \(language.rawValue) is not available in this version of labeld")
    case .png:
      throw .unsupported("PNG previews are not available in this version of labeld")
    }
  }

  /// One copy of a template job for `printer`, in its language.
  func document(_ template: Template, data: [String: String], for printer: Printer)
    throws(RPCError) -> JobDocument
  {
    let rendered = try render(
      template, data: data, language: printer.language, dpi: printer.dpi, format: .native)
    guard let bytes = Data(base64Encoded: rendered.data) else {
      throw .internalError("renderer produced invalid base64")
    }
    return .native([UInt8](bytes))
  }

  /// Decodes a PNG document into the printer's bytes.
  func convertPNG(_ png: [UInt8], language: PrinterLanguage) throws(RPCError) -> [UInt8] {
    throw .unsupported(
      "PNG documents cannot be printed by this version of labeld; send native \(language.rawValue) bytes"
    )
  }
}
