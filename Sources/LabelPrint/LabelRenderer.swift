import FoundationEssentials
import LabelCore
import LabelInterfaces
import LabelLanguages
import LabelRender
import LabelScheduler
import LabelStore

/// Turns a template and its data into a printer's bytes or a preview, and PNG documents
/// into a printer's bytes.
///
/// Everything language-specific comes from the printer's driver: a language that draws
/// templates itself (`TemplateEncoding`: ZPL II, text and barcodes as commands, images as
/// graphics) gets the template; any other gets the label rasterised at its resolution and
/// cut to its driver's printable area (Brother QL: the roll's). A PNG preview for a
/// printer is that printer's label: for a raster printer, the very bitmap it prints, dot
/// for dot and no larger (a QL's 62 mm roll: 696 dots across, not the label's 732), so a
/// preview sent back as a PNG document prints as it shows.
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
      let (bitmap, red) = try preview(template, data: data, for: target)
      let png: [UInt8]
      do throws(ImageError) {
        // A red/black printer's preview is in its two inks; any other's is black.
        if let red {
          png = try PNGCodec.encode(black: bitmap, red: red)
        } else {
          png = try PNGCodec.encode(bitmap)
        }
      } catch {
        throw .internalError("cannot encode the preview: \(error.message)")
      }
      return RenderResult(
        format: "png", mediaType: "image/png", data: Data(png).base64EncodedString(),
        width: bitmap.width, height: bitmap.height)
    case .native:
      var size: (width: Int, height: Int)?
      let bytes = try native(template, data: data, for: target) { size = $0 }
      // On tape the label's size is the one drawn for the tape, not the template's.
      return RenderResult(
        format: "native", mediaType: target.language.profile.mediaType,
        data: Data(bytes).base64EncodedString(),
        width: size?.width ?? dots(template.media.widthMM, target.dpi),
        height: size?.height ?? dots(template.media.lengthMM, target.dpi))
    }
  }

  /// One copy of a template job for `printer`, in its language. A template wider than the
  /// printer's media is refused (1007) rather than printed cut off.
  package func document(
    _ template: Template, data: [String: String], for printer: Printer,
    settings: LabelSettings = LabelSettings()
  ) throws(RPCError) -> JobDocument {
    guard let language = printer.language else { throw .unknownLanguage(printer) }
    let target = Target(
      language: language, dpi: printer.dpi, media: printer.media, settings: settings)
    try knownTape(printer, target)
    // On tape the label is drawn to the tape's height, whatever the template's size.
    if let media = printer.media, template.media.widthMM > media.widthMM + 0.5, !onTape(target) {
      throw .unsupported(
        "template \(template.name) is \(template.media.widthMM) mm wide but \(printer.id) has "
          + "\(media.widthMM) mm media loaded")
    }
    try resolve(template, data: data)
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
    let (driver, media, dpi) = try encoding(printer, language, settings)
    let area = try pageArea(driver, media, dpi)
    if area.tape {
      return try convertTapePNG(png, size: size, for: printer, driver, area, media, dpi)
    }
    guard area.fits(width: size.width, height: size.height) else {
      throw .unsupported(
        "the PNG is \(size.width) x \(size.height) pixels but \(printer.id)'s \(area); send an "
          + "image no larger, at one pixel per dot")
    }
    // On a red/black roll the image's red pixels print red (brother_ql's rule).
    if driver.printsRed(on: media) {
      let planes: (black: Bitmap, red: Bitmap)
      do { planes = try PNGCodec.decodeTwoColour(png) } catch {
        throw .invalidParams(field: "document.data", reason: error.message)
      }
      return try unsupported { () throws(DriverError) in
        try driver.encode(pages: [planes.black], red: [planes.red], media: media, dpi: dpi)
      }
    }
    let bitmap = try decode(png)
    return try unsupported { () throws(DriverError) in
      try driver.encode(pages: [bitmap], media: media, dpi: dpi)
    }
  }

  /// A PNG on tape, as the label reads: its height across the tape (no more than the
  /// tape's printable dots), its width along it; placed at the tape's top edge and turned
  /// into the driver's page.
  private func convertTapePNG(
    _ png: [UInt8], size: (width: Int, height: Int), for printer: Printer,
    _ driver: any LanguageDriver, _ area: PageArea, _ media: Media, _ dpi: Int
  ) throws(RPCError) -> [UInt8] {
    let across = area.width ?? 0
    let along = area.maxLength ?? dots(1000, dpi)
    guard size.height <= across, size.width <= along else {
      throw .unsupported(
        "the PNG is \(size.width) x \(size.height) pixels but \(printer.id)'s \(area): on tape "
          + "an image's height runs across the tape (at most \(across) pixels) and its width "
          + "along it (at most \(along)); send one no larger, at one pixel per dot")
    }
    let bitmap = try decode(png)
    var label = Bitmap(width: bitmap.width, height: across)
    for y in 0..<bitmap.height {
      for x in 0..<bitmap.width where bitmap[x, y] { label[x, y] = true }
    }
    return try unsupported { () throws(DriverError) in
      try driver.encode(pages: [label.turnedCounterClockwise()], media: media, dpi: dpi)
    }
  }

  /// Where a document's pages print on `printer`: its printable area in dots; continuous
  /// media as long as the page, up to what the driver takes.
  package func labelArea(for printer: Printer, settings: LabelSettings) throws(RPCError)
    -> LabelArea
  {
    guard let language = printer.language else { throw .unknownLanguage(printer) }
    let (driver, media, dpi) = try encoding(printer, language, settings)
    let area = try pageArea(driver, media, dpi)
    let width = area.width ?? dots(media.widthMM, dpi)
    guard width > 0 else {
      throw .unsupported("the width of \(printer.id)'s media is not known")
    }
    // Without a driver's limit, a label is at most a metre long.
    let maxLength = area.length ?? area.maxLength ?? dots(1000, dpi)
    return LabelArea(width: width, length: area.length, maxLength: maxLength, dpi: dpi)
  }

  /// One job printing `labels` (each one page, at the printer's dots) on `printer`.
  package func encode(labels: [Bitmap], for printer: Printer, settings: LabelSettings)
    throws(RPCError) -> [UInt8]
  {
    guard let language = printer.language else { throw .unknownLanguage(printer) }
    let (driver, media, dpi) = try encoding(printer, language, settings)
    return try unsupported { () throws(DriverError) in
      try driver.encode(pages: labels, media: media, dpi: dpi)
    }
  }

  /// The driver, media and dots per inch that `printer`'s bytes in `language` are made
  /// with (whatever media a label asks for: it prints on what is loaded).
  private func encoding(
    _ printer: Printer, _ language: PrinterLanguage, _ settings: LabelSettings
  ) throws(RPCError) -> (any LanguageDriver, Media, Int) {
    let target = Target(
      language: language, dpi: printer.dpi, media: printer.media, settings: settings)
    let (driver, media) = try driver(target, labelWidthMM: nil)
    try knownTape(printer, target)
    return (driver, media, try rasterDPI(target, encoding: true))
  }

  /// A label for a printer whose jobs name their media (a P-touch's tape) is drawn for the
  /// media in it: while the printer names none (no cassette, the cover open, its status not
  /// read yet) a job is refused rather than drawn for a guessed tape, which would wait for
  /// that tape for ever.
  private func knownTape(_ printer: Printer, _ target: Target) throws(RPCError) {
    guard printer.media == nil,
      let driver = try? DriverTable.driver(for: target.language, settings: target.settings),
      driver.needsKnownMedia
    else { return }
    throw .unsupported(
      "\(printer.id) does not say which tape is in it (no cassette, its cover open, or its "
        + "status not read yet); a label on tape is drawn for the tape loaded: load one and "
        + "send the job again")
  }

  /// Where a raster page prints on `media`, as the driver has it.
  private func pageArea(_ driver: any LanguageDriver, _ media: Media, _ dpi: Int)
    throws(RPCError) -> PageArea
  {
    try unsupported { () throws(DriverError) in try driver.pageArea(media: media, dpi: dpi) }
  }

  private func decode(_ png: [UInt8]) throws(RPCError) -> Bitmap {
    do { return try PNGCodec.decodeBitmap(png) } catch {
      throw .invalidParams(field: "document.data", reason: error.message)
    }
  }

  // MARK: - Through the driver

  /// The printer's bytes: a language that draws templates itself gets the template (its
  /// images rasterised); any other gets the label drawn and cut to the printable area.
  private func native(
    _ template: Template, data: [String: String], for target: Target,
    tapeLabelSize: (_ size: (width: Int, height: Int)) -> Void = { _ in }
  )
    throws(RPCError) -> [UInt8]
  {
    let (driver, media) = try driver(target, labelWidthMM: template.media.widthMM)
    if let drawing = driver as? any TemplateEncoding {
      let images = try images(of: template, dpi: target.dpi)
      let sized = try fittingQRCodes(template, data: data, dpi: target.dpi)
      return try labelError { () throws(DrawingError) in
        try drawing.encode(
          template: sized, data: data, images: images, media: media, dpi: target.dpi)
      }
    }
    let dpi = try rasterDPI(target, encoding: true)
    if let tape = try tapeLabel(template, data: data, driver: driver, media: media, dpi: dpi) {
      tapeLabelSize((tape.width, tape.height))
      return try unsupported { () throws(DriverError) in
        try driver.encode(pages: [tape.turnedCounterClockwise()], media: media, dpi: dpi)
      }
    }
    let area = try printedArea(template, data: data, driver: driver, media: media, dpi: dpi)
    return try unsupported { () throws(DriverError) in
      if let red = area.redPage {
        return try driver.encode(pages: [area.page], red: [red], media: media, dpi: dpi)
      }
      return try driver.encode(pages: [area.page], media: media, dpi: dpi)
    }
  }

  /// Each image element rasterised at `dpi`, by index, for a printer that draws the rest.
  private func images(of template: Template, dpi: Int) throws(RPCError) -> [Int: Bitmap] {
    var images: [Int: Bitmap] = [:]
    var imageDots = 0
    for (index, element) in template.elements.enumerated() {
      guard case .image(let image) = element else { continue }
      // All images of a label together stay within the pixel budget, checked before
      // each is drawn: each becomes a bitmap kept until the label is encoded.
      imageDots += max(1, dots(image.width, dpi)) * max(1, dots(image.height, dpi))
      guard imageDots <= LabelRasteriser.maxPixels else {
        throw .invalidParams(
          field: "elements[\(index)]",
          reason: "the label's images come to more than \(LabelRasteriser.maxPixels) dots "
            + "at \(dpi) dpi")
      }
      images[index] = try labelError { () throws(DrawingError) in
        try rasteriser.render(image, dpi: dpi, path: "elements[\(index)]")
      }
    }
    return images
  }

  /// QR codes without a `moduleWidth` get the module that fits their `height`, as the
  /// rasteriser draws them, so a printer's own symbol (ZPL `^BQ`) has the same size.
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
      do throws(DrawingError) {
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

  /// The label as a picture: for a raster printer, exactly the page it prints (the
  /// printable area, without the margins it cannot print); for one that draws templates,
  /// the template drawn.
  private func preview(_ template: Template, data: [String: String], for target: Target)
    throws(RPCError) -> (black: Bitmap, red: Bitmap?)
  {
    let (driver, media) = try driver(target, labelWidthMM: template.media.widthMM)
    if driver is any TemplateEncoding {
      return (
        try labelError { () throws(DrawingError) in
          try rasteriser.render(template, data: data, dpi: target.dpi)
        }, nil
      )
    }
    let dpi = try rasterDPI(target, encoding: false)
    if let tape = try tapeLabel(template, data: data, driver: driver, media: media, dpi: dpi) {
      return (tape, nil)
    }
    let area = try printedArea(template, data: data, driver: driver, media: media, dpi: dpi)
    return (area.page, area.redPage)
  }

  /// On tape, the label as it reads (`LabelRasteriser.renderTape`): as high as the tape's
  /// printable dots, as long as the template or its content; nil on any other media.
  private func tapeLabel(
    _ template: Template, data: [String: String], driver: any LanguageDriver, media: Media,
    dpi: Int
  ) throws(RPCError) -> Bitmap? {
    let area = try pageArea(driver, media, dpi)
    guard area.tape, let across = area.width else { return nil }
    let along = area.maxLength ?? dots(1000, dpi)
    return try labelError { () throws(DrawingError) in
      try rasteriser.renderTape(template, data: data, height: across, maxLength: along)
    }
  }

  /// Whether `target`'s media is tape (false where its driver cannot say).
  private func onTape(_ target: Target) -> Bool {
    guard let (driver, media) = try? driver(target, labelWidthMM: nil),
      let dpi = try? rasterDPI(target, encoding: false)
    else { return false }
    return (try? driver.pageArea(media: media, dpi: dpi))?.tape ?? false
  }

  /// The template drawn at `dpi`, cut to the printable area (centred on the label): the
  /// page a raster printer prints; on a red/black roll in two planes (black, red), on any
  /// other red elements drawn black.
  private func printedArea(
    _ template: Template, data: [String: String], driver: any LanguageDriver, media: Media,
    dpi: Int
  ) throws(RPCError) -> (page: Bitmap, redPage: Bitmap?) {
    let area = try pageArea(driver, media, dpi)
    let planes: (black: Bitmap, red: Bitmap?) = try labelError {
      () throws(DrawingError) -> (black: Bitmap, red: Bitmap?) in
      if driver.printsRed(on: media) {
        let both = try rasteriser.renderPlanes(template, data: data, dpi: dpi)
        return (both.black, both.red)
      }
      return (try rasteriser.render(template, data: data, dpi: dpi), nil)
    }
    let full = planes.black
    let width = min(full.width, area.width ?? full.width)
    let x0 = (full.width - width) / 2
    let height = min(full.height, area.length ?? full.height)
    let y0 = (full.height - height) / 2
    func cut(_ plane: Bitmap) -> Bitmap {
      var page = Bitmap(width: width, height: height)
      for y in 0..<height {
        for x in 0..<width where plane[x0 + x, y0 + y] { page[x, y] = true }
      }
      return page
    }
    return (cut(full), planes.red.map(cut))
  }

  /// The driver for `target` (its printer's model, or the language's default) and the
  /// media to encode for: the printer's, or what the driver assumes for this label.
  private func driver(_ target: Target, labelWidthMM: Double?) throws(RPCError)
    -> (any LanguageDriver, Media)
  {
    let driver = try unsupported { () throws(DriverError) in
      try DriverTable.driver(for: target.language, settings: target.settings)
    }
    return (driver, target.media ?? driver.assumedMedia(labelWidthMM: labelWidthMM))
  }

  /// The resolution a raster page is drawn at: the language's only one where it has one.
  /// Bytes for a printer are refused at any other; a preview is drawn at it regardless.
  private func rasterDPI(_ target: Target, encoding: Bool) throws(RPCError) -> Int {
    let profile = target.language.profile
    guard let only = profile.onlyDPI else { return target.dpi }
    if encoding && target.dpi != only {
      throw .unsupported(
        "\(profile.displayName) raster is printed at \(only) dpi, not \(target.dpi)")
    }
    return only
  }

  private func unsupported<T>(_ body: () throws(DriverError) -> T) throws(RPCError) -> T {
    do { return try body() } catch { throw .unsupported(error.message) }
  }

  private func labelError<T>(_ body: () throws(DrawingError) -> T) throws(RPCError) -> T {
    do { return try body() } catch {
      throw .invalidParams(field: error.field, reason: error.reason)
    }
  }
}
