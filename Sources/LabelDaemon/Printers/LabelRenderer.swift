import Foundation
import LabelCore
import LabelLanguages

/// Turns a template and its data into a printer's bytes or a preview.
///
/// ZPL printers get native ZPL II (text and barcodes drawn by the printer). Brother QL
/// raster and PNG previews need the rasteriser, which comes with the rendering work; until
/// then they answer 1007, after the request has been checked in full, so clients see their
/// real mistakes first.
struct LabelRenderer: Sendable {
  enum Format: String, Sendable { case png, native }

  /// Checks every `${field}` the template uses has a value (`data.<name>` otherwise).
  func resolve(_ template: Template, data: [String: String]) throws(RPCError) {
    for name in template.referencedFields.sorted() where data[name] == nil {
      throw .invalidParams(
        field: "data.\(name)",
        reason: "template \(template.name) uses ${\(name)} but no value was given")
    }
  }

  /// One copy of `template` for `language` at `dpi`.
  func render(
    _ template: Template, data: [String: String], language: PrinterLanguage, dpi: Int,
    format: Format, settings: LabelSettings = LabelSettings()
  ) throws(RPCError) -> RenderResult {
    try resolve(template, data: data)
    switch format {
    case .native:
      switch language {
      case .zpl:
        let zpl: String
        do {
          let options = ZPLOptions(
            dpi: dpi, darkness: settings.darkness,
            mode: settings.finish.flatMap { ["tear": .tear, "cut": .cut, "peel": .peel][$0] })
          zpl = try ZPLEncoder.label(template, data: data, options: options)
        } catch {
          throw .invalidParams(field: error.field, reason: error.reason)
        }
        return RenderResult(
          format: "native", mediaType: "application/vnd.zebra-zpl",
          data: Data(zpl.utf8).base64EncodedString(),
          width: Int((template.media.widthMM * Double(dpi) / 25.4).rounded()),
          height: Int((template.media.lengthMM * Double(dpi) / 25.4).rounded()))
      case .brotherQL:
        throw .unsupported(
          "Brother QL labels are raster images and need the rasteriser, which this version of labeld does not have yet"
        )
      }
    case .png:
      throw .unsupported("PNG previews are not available in this version of labeld")
    }
  }

  /// One copy of a template job for `printer`, in its language. A template wider than the
  /// printer's media is refused (1007) rather than printed cut off.
  func document(
    _ template: Template, data: [String: String], for printer: Printer,
    settings: LabelSettings = LabelSettings()
  ) throws(RPCError) -> JobDocument {
    if let media = printer.media, template.media.widthMM > media.widthMM + 0.5 {
      throw .unsupported(
        "template \(template.name) is \(template.media.widthMM) mm wide but \(printer.id) has "
          + "\(media.widthMM) mm media loaded")
    }
    guard let language = printer.language else { throw .unknownLanguage(printer) }
    let rendered = try render(
      template, data: data, language: language, dpi: printer.dpi, format: .native,
      settings: settings)
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
