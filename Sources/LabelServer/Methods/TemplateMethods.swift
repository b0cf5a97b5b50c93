import FoundationEssentials
import LabelCore
import LabelLanguages
import LabelPrint

extension Dispatcher {
  package func templatesGet(_ p: Params) async throws(RPCError) -> Reply {
    let name = try p.string("name")
    guard let template = try await services.template(name) else {
      throw .notFound(entity: "template", key: name)
    }
    return .result(TemplateResult(template: template))
  }

  package func templatesSave(_ p: Params) async throws(RPCError) -> Reply {
    let template = try p.decode("template", as: Template.self)
    if let raw = p.values["template"], let unknown = TemplateKeys.unknownMember(in: raw) {
      throw .invalidParams(unknown.nested(under: "template"))
    }
    do throws(FieldError) { try template.validate() } catch {
      throw .invalidParams(error.nested(under: "template"))
    }
    let saved: Template
    do {
      saved = try await services.templates.save(template)
    } catch {
      throw services.saveErrors.failed(error, entity: .template, key: template.name)
    }
    services.saveErrors.succeeded(entity: .template, key: template.name)
    return .result(TemplateResult(template: saved))
  }

  /// Renders a template with a product's or given data, for a printer or a language.
  package func labelsRender(_ p: Params) async throws(RPCError) -> Reply {
    let name = try p.string("template")
    let formatName = try p.string("format")
    guard let format = LabelRenderer.Format(rawValue: formatName) else {
      throw .invalidParams(field: "format", reason: "must be \"png\" or \"native\"")
    }
    let target = try target(p)
    let template = try await templateNamed(name)
    let data = try await templateData(p)
    return .result(try services.renderer.render(template, data: data, for: target, format: format))
  }

  /// The template `name`, or 1006.
  package func templateNamed(_ name: String) async throws(RPCError) -> Template {
    try await services.print.catalog.templateNamed(name)
  }

  /// The data for a template: the product `sku` (1006 when unknown) or the `data` object.
  package func templateData(_ p: Params) async throws(RPCError) -> [String: String] {
    switch try templateSource(p) {
    case .product(let sku): return try await services.print.catalog.productData(sku)
    case .fields(let data): return data
    }
  }

  /// Where a template's fields come from: `sku` or `data`, exactly one.
  package func templateSource(_ p: Params) throws(RPCError) -> TemplateData {
    let sku = try p.optionalString("sku")
    let data = try p.optionalStringMap("data")
    switch (sku, data) {
    case (let sku?, nil): return .product(sku: sku)
    case (nil, let data?): return .fields(data)
    case (nil, nil): throw .invalidParams(field: "sku", reason: "either sku or data is required")
    case (.some, .some): throw .invalidParams(field: "data", reason: "give sku or data, not both")
    }
  }

  /// The language and resolution to render for: a printer's, or `language` (default dpi).
  private func target(_ p: Params) throws(RPCError) -> LabelRenderer.Target {
    if let id = try p.optionalString("printer") {
      guard let queue = services.printers.queue(id) else { throw .printerNotFound(id) }
      let printer = queue.snapshot
      guard let language = printer.language else { throw .unknownLanguage(printer) }
      return LabelRenderer.Target(
        language: language, dpi: printer.dpi, media: printer.media,
        settings: queue.labelSettings)
    }
    guard let name = try p.optionalString("language") else {
      throw .invalidParams(field: "printer", reason: "either printer or language is required")
    }
    guard let language = PrinterLanguage(rawValue: name) else {
      let known = PrinterLanguage.allCases.map(\.rawValue).joined(separator: ", ")
      throw .invalidParams(
        field: "language", reason: "unknown language \"\(name)\" (one of \(known))")
    }
    let dpi = try p.optionalInt("dpi", in: 100...1200) ?? language.profile.defaultDPI
    return LabelRenderer.Target(language: language, dpi: dpi, media: nil)
  }
}
