import Foundation
import LabelCore
import LabelLanguages
import LabelRender
import LabelScheduler
import LabelStore

/// Turns a template and its data into a printer's bytes or a preview, and PNG documents
/// into a printer's bytes.
///
/// ZPL printers get native ZPL II (text and barcodes drawn by the printer; image elements
/// as `^GFA` graphics). Brother QL printers get the rasterised label: the template drawn
/// at 300 dpi and cut to the roll's printable area. A PNG preview for a printer is that
/// printer's label: for a Brother QL, the very bitmap it prints, with the unprintable
/// margins left white.
package struct LabelRenderer: Sendable {
  package enum Format: String, Sendable { case png, native }

  package let rasteriser = LabelRasteriser()

  package init() {}

  /// What a label is rendered for: a printer, or just a language and a resolution.
  package struct Target: Sendable {
    package var language: PrinterLanguage
    package var dpi: Int
    /// The printer's media; nil renders for the template's own size.
    package var media: Media?
    package var settings: LabelSettings = LabelSettings()

    package init(
      language: PrinterLanguage, dpi: Int, media: Media? = nil,
      settings: LabelSettings = LabelSettings()
    ) {
      self.language = language
      self.dpi = dpi
      self.media = media
      self.settings = settings
    }
  }

  /// Checks every `${field}` the template uses has a value (`data.<name>` otherwise).
  package func resolve(_ template: Template, data: [String: String]) throws(RPCError) {
    for name in template.referencedFields.sorted() where data[name] == nil {
      throw .invalidParams(
        field: "data.\(name)",
        reason: "template \(template.name) uses ${\(name)} but no value was given")
    }
  }

  /// One copy of `template` for `target`, as a preview or the printer's bytes.
  package func render(
    _ template: Template, data: [String: String], for target: Target, format: Format
  )
    throws(RPCError) -> RenderResult
  {
    try resolve(template, data: data)
    switch format {
    case .png:
      let bitmap = try preview(template, data: data, for: target)
      let png: [UInt8]
      do { png = try PNGCodec.encode(bitmap) } catch {
        throw .internalError("cannot encode the preview: \(error.message)")
      }
      return RenderResult(
        format: "png", mediaType: "image/png", data: Data(png).base64EncodedString(),
        width: bitmap.width, height: bitmap.height)
    case .native:
      let bytes = try native(template, data: data, for: target)
      return RenderResult(
        format: "native", mediaType: target.language.profile.mediaType,
        data: Data(bytes).base64EncodedString(),
        width: dots(template.media.widthMM, target.dpi),
        height: dots(template.media.lengthMM, target.dpi))
    }
  }

  /// One copy of a template job for `printer`, in its language. A template wider than the
  /// printer's media is refused (1007) rather than printed cut off.
  package func document(
    _ template: Template, data: [String: String], for printer: Printer,
    settings: LabelSettings = LabelSettings()
  ) throws(RPCError) -> JobDocument {
    if let media = printer.media, template.media.widthMM > media.widthMM + 0.5 {
      throw .unsupported(
        "template \(template.name) is \(template.media.widthMM) mm wide but \(printer.id) has "
          + "\(media.widthMM) mm media loaded")
    }
    guard let language = printer.language else { throw .unknownLanguage(printer) }
    try resolve(template, data: data)
    let target = Target(
      language: language, dpi: printer.dpi, media: printer.media, settings: settings)
    return .native(try native(template, data: data, for: target))
  }

  /// A PNG document as `printer`'s bytes: one pixel per dot, placed at the top-left of the
  /// printable area, black where a pixel is darker than half (transparent is white).
  /// Larger than the media → 1007 saying by how much; not a PNG → -32602.
  package func convertPNG(
    _ png: [UInt8], for printer: Printer, language: PrinterLanguage, settings: LabelSettings
  ) throws(RPCError) -> [UInt8] {
    // The size comes from the header: an image too large is refused before it is decoded.
    let size: (width: Int, height: Int)
    do { size = try PNGCodec.size(of: png) } catch {
      throw .invalidParams(field: "document.data", reason: error.message)
    }
    let target = Target(
      language: language, dpi: printer.dpi, media: printer.media, settings: settings)
    switch language {
    case .zpl:
      if let media = printer.media {
        let width = dots(media.widthMM, printer.dpi)
        let length = media.lengthMM > 0 ? dots(media.lengthMM, printer.dpi) : nil
        if size.width > width || length.map({ size.height > $0 }) == true {
          throw .unsupported(
            "the PNG is \(size.width) x \(size.height) pixels but \(printer.id)'s "
              + "\(mediaName(media)) label is \(width) x \(length.map(String.init) ?? "any") "
              + "dots at \(printer.dpi) dpi; send an image no larger, at one pixel per dot")
        }
      }
      let bitmap = try decode(png)
      do {
        return try zplDriver(target).encode(
          pages: [bitmap], media: printer.media ?? Media(widthMM: 0, lengthMM: 0),
          dpi: printer.dpi)
      } catch {
        throw .unsupported(error.message)
      }
    case .brotherQL:
      let (driver, roll, media) = try brotherQL(target)
      let lengthLimit =
        roll.kind == .dieCut ? roll.printableLength : driver.ql.lineRange.upperBound
      if size.width > roll.printableWidth || size.height > lengthLimit {
        throw .unsupported(
          "the PNG is \(size.width) x \(size.height) pixels but \(printer.id)'s \(roll.id) mm "
            + "roll prints \(roll.printableWidth) dots across and at most \(lengthLimit) lines "
            + "at 300 dpi; send an image no larger, at one pixel per dot")
      }
      return try encodeQL([try decode(png)], driver: driver, media: media, dpi: target.dpi)
    }
  }

  private func decode(_ png: [UInt8]) throws(RPCError) -> Bitmap {
    do { return try PNGCodec.decodeBitmap(png) } catch {
      throw .invalidParams(field: "document.data", reason: error.message)
    }
  }

  // MARK: - Languages

  private func native(_ template: Template, data: [String: String], for target: Target)
    throws(RPCError) -> [UInt8]
  {
    switch target.language {
    case .zpl:
      var images: [Int: Bitmap] = [:]
      var imageDots = 0
      for (index, element) in template.elements.enumerated() {
        guard case .image(let image) = element else { continue }
        // All images of a label together stay within the pixel budget, checked before
        // each is drawn: each becomes a bitmap kept until the label is encoded.
        imageDots += max(1, dots(image.width, target.dpi)) * max(1, dots(image.height, target.dpi))
        guard imageDots <= LabelRasteriser.maxPixels else {
          throw .invalidParams(
            field: "elements[\(index)]",
            reason: "the label's images come to more than \(LabelRasteriser.maxPixels) dots "
              + "at \(target.dpi) dpi")
        }
        images[index] = try labelError { () throws(LabelError) in
          try rasteriser.render(image, dpi: target.dpi, path: "elements[\(index)]")
        }
      }
      let sized = try fittingQRCodes(template, data: data, dpi: target.dpi)
      let zpl = try labelError { () throws(LabelError) in
        try ZPLEncoder.label(sized, data: data, options: zplOptions(target), images: images)
      }
      return Array(zpl.utf8)
    case .brotherQL:
      let (driver, roll, media) = try brotherQL(target, template: template)
      let page = try printedArea(template, data: data, roll: roll).page
      return try encodeQL([page], driver: driver, media: media, dpi: target.dpi)
    }
  }

  /// QR codes without a `moduleWidth` get the module that fits their `height`, as the
  /// rasteriser draws them, so a ZPL printer's `^BQ` symbol has the same size.
  private func fittingQRCodes(_ template: Template, data: [String: String], dpi: Int)
    throws(RPCError) -> Template
  {
    var out = template
    for (index, element) in template.elements.enumerated() {
      guard case .barcode(var b) = element, b.symbology == .qr, b.moduleWidth == nil else {
        continue
      }
      let path = "elements[\(index)]"
      let modules: Int
      do throws(LabelError) {
        // Filled and checked (length, placeholders) before the symbol is sized.
        modules = try SymbolSize.qrModules(try b.filledData(data, path: path))
      } catch {
        throw .invalidParams(
          field: error.field.hasPrefix(path) || error.field.hasPrefix("data.")
            ? error.field : "\(path).data", reason: error.reason)
      }
      let moduleDots = max(1, dots(b.height, dpi) / max(1, modules))
      b.moduleWidth = Double(moduleDots) * 25.4 / Double(dpi)
      out.elements[index] = .barcode(b)
    }
    return out
  }

  /// The label as a picture: for Brother QL, exactly what it prints.
  private func preview(_ template: Template, data: [String: String], for target: Target)
    throws(RPCError) -> Bitmap
  {
    switch target.language {
    case .zpl:
      return try labelError { () throws(LabelError) in
        try rasteriser.render(template, data: data, dpi: target.dpi)
      }
    case .brotherQL:
      let (_, roll, _) = try brotherQL(target, template: template)
      return try printedArea(template, data: data, roll: roll).preview
    }
  }

  /// The template drawn at 300 dpi, cut to the roll's printable area (centred on the
  /// label): the page a Brother QL prints, and the full label with white margins.
  private func printedArea(_ template: Template, data: [String: String], roll: BrotherQLMedia)
    throws(RPCError) -> (page: Bitmap, preview: Bitmap)
  {
    let full = try labelError { () throws(LabelError) in
      try rasteriser.render(template, data: data, dpi: 300)
    }
    let width = min(full.width, roll.printableWidth)
    let x0 = (full.width - width) / 2
    let height = roll.kind == .dieCut ? min(full.height, roll.printableLength) : full.height
    let y0 = (full.height - height) / 2
    var page = Bitmap(width: width, height: height)
    var preview = Bitmap(width: full.width, height: full.height)
    for y in 0..<height {
      for x in 0..<width where full[x0 + x, y0 + y] {
        page[x, y] = true
        preview[x0 + x, y0 + y] = true
      }
    }
    return (page, preview)
  }

  /// The printer's settings, and its media (for `^PW`/`^LL`) when it is known.
  private func zplOptions(_ target: Target) -> ZPLOptions {
    ZPLOptions(
      dpi: target.dpi, darkness: target.settings.darkness,
      mode: target.settings.finish.flatMap { ["tear": .tear, "cut": .cut, "peel": .peel][$0] },
      media: target.media.flatMap { ZPLMedia($0, dpi: target.dpi) })
  }

  private func zplDriver(_ target: Target) -> ZPLDriver {
    ZPLDriver(options: zplOptions(target))
  }

  /// The Brother QL driver and roll for `target`: the printer's model (QL-820NWB unless
  /// configured) and its loaded media, or a roll as wide as the template.
  private func brotherQL(_ target: Target, template: Template? = nil) throws(RPCError)
    -> (BrotherQLDriver, BrotherQLMedia, Media)
  {
    let name = target.settings.model ?? LanguageProfile.defaultBrotherQLModel
    guard let entry = DriverTable.models.first(where: { $0.name == name }) else {
      throw .unsupported("no Brother QL driver for model \(name)")
    }
    let media =
      target.media
      ?? Media(widthMM: template?.media.widthMM ?? 62, lengthMM: 0, kind: "continuous")
    do {
      let driver = try BrotherQLDriver(model: entry)
      return (driver, try driver.roll(for: media), media)
    } catch {
      throw .unsupported(error.message)
    }
  }

  private func encodeQL(_ pages: [Bitmap], driver: BrotherQLDriver, media: Media, dpi: Int)
    throws(RPCError) -> [UInt8]
  {
    guard dpi == 300 else {
      throw .unsupported("Brother QL raster is printed at 300 dpi, not \(dpi)")
    }
    do {
      return try driver.encode(pages: pages, media: media, dpi: 300)
    } catch {
      throw .unsupported(error.message)
    }
  }

  private func mediaName(_ media: Media) -> String {
    media.lengthMM == 0
      ? "\(media.widthMM) mm continuous" : "\(media.widthMM) x \(media.lengthMM) mm"
  }

  private func labelError<T>(_ body: () throws(LabelError) -> T) throws(RPCError) -> T {
    do { return try body() } catch {
      throw .invalidParams(field: error.field, reason: error.reason)
    }
  }
}
