import LabelCore
import LabelWire

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What to print: a native document, a PNG (one pixel per dot), or a template filled from
/// a product or from values.
public enum PrintDocument: Sendable, Equatable {
  case native([UInt8])
  case png([UInt8])
  case template(String, sku: String)
  case templateData(String, data: [String: String])
}

/// `products.save`'s optional label: print `template` on `printer` once the save is kept.
public struct PrintRequest: Sendable, Equatable {
  public var printer: String
  public var template: String
  public var copies: Int
  public init(printer: String, template: String, copies: Int = 1) {
    self.printer = printer
    self.template = template
    self.copies = copies
  }
}

/// What `labels.render` draws for: a configured printer, or a language (and resolution).
public enum RenderTarget: Sendable, Equatable {
  case printer(String)
  case language(PrinterLanguage, dpi: Int? = nil)
}

/// A rendered label: a PNG preview or the printer's native bytes.
public struct RenderedLabel: Sendable, Equatable {
  public var mediaType: String
  public var data: [UInt8]
  /// The label's size in dots (for a PNG, the image's).
  public var width: Int?
  public var height: Int?
}

/// `jobs.list`'s filters and page.
public struct JobQuery: Sendable, Equatable {
  public var printer: String?
  public var states: [JobState]?
  public var owner: UInt32?
  public var limit: Int?
  public var after: Int?
  public init(
    printer: String? = nil, states: [JobState]? = nil, owner: UInt32? = nil, limit: Int? = nil,
    after: Int? = nil
  ) {
    self.printer = printer
    self.states = states
    self.owner = owner
    self.limit = limit
    self.after = after
  }
}

extension LabeldClient {
  // MARK: the daemon and its printers

  public func hello(client: String? = nil) async throws(LabelError) -> HelloResult {
    try await call(.hello, client.map { ["client": .string($0)] } ?? [:], as: HelloResult.self)
  }

  public func printers() async throws(LabelError) -> [Printer] {
    try await call(.printersList, as: PrintersResult.self).printers
  }

  public func printer(_ id: String) async throws(LabelError) -> Printer {
    try await call(.printersGet, ["printer": .string(id)], as: PrinterResult.self).printer
  }

  /// The printers after a fresh discovery (CUPS queues, USB devices).
  public func refreshPrinters() async throws(LabelError) -> [Printer] {
    try await call(.printersRefresh, as: PrintersResult.self).printers
  }

  /// Sets (or with nil clears) a fault on a simulated printer. Administrators only.
  public func simulate(printer: String, fault: Reason?) async throws(LabelError) -> Printer {
    try await call(
      .printersSimulate,
      ["printer": .string(printer), "fault": fault.map { .string($0.rawValue) } ?? .null],
      as: PrinterResult.self
    ).printer
  }

  /// What is on the USB bus and the network, and why each device is or is not a printer.
  public func devices() async throws(LabelError) -> DevicesResult {
    try await call(.devicesList, as: DevicesResult.self)
  }

  // MARK: products and templates

  /// Saves `product` whole: a save replaces every field, so send back what you read.
  /// `expectedVersion` (the version you read, 0 for a new product) makes a concurrent
  /// change fail with `saveFailed` (reason `conflict`) instead of being overwritten. With
  /// `print`, its label is submitted once the save is kept.
  public func saveProduct(
    _ product: ProductInput, expectedVersion: Int? = nil, print: PrintRequest? = nil
  ) async throws(LabelError) -> ProductSaveResult {
    var params: [String: JSONValue] = ["product": try Self.value(product)]
    if let expectedVersion { params["expectedVersion"] = .int(expectedVersion) }
    if let print {
      params["print"] = [
        "printer": .string(print.printer), "template": .string(print.template),
        "copies": .int(print.copies),
      ]
    }
    return try await call(.productsSave, params, as: ProductSaveResult.self)
  }

  public func product(_ sku: String) async throws(LabelError) -> Product {
    try await call(.productsGet, ["sku": .string(sku)], as: ProductResult.self).product
  }

  /// Deletes a product (`notFound` when there is none).
  public func deleteProduct(_ sku: String) async throws(LabelError) {
    _ = try await call(.productsDelete, ["sku": .string(sku)], as: DeletedResult.self)
  }

  /// One page of products in sku order: at most `limit` after the sku `after`; `next` is
  /// the cursor of the following page, nil on the last.
  public func products(after: String? = nil, limit: Int = 500) async throws(LabelError)
    -> ProductsResult
  {
    var params: [String: JSONValue] = ["limit": .int(limit)]
    if let after { params["after"] = .string(after) }
    return try await call(.productsList, params, as: ProductsResult.self)
  }

  public func templates(after: String? = nil, limit: Int = 500) async throws(LabelError)
    -> TemplatesResult
  {
    var params: [String: JSONValue] = ["limit": .int(limit)]
    if let after { params["after"] = .string(after) }
    return try await call(.templatesList, params, as: TemplatesResult.self)
  }

  public func template(_ name: String) async throws(LabelError) -> Template {
    try await call(.templatesGet, ["name": .string(name)], as: TemplateResult.self).template
  }

  public func saveTemplate(_ template: Template) async throws(LabelError) -> Template {
    try await call(
      .templatesSave, ["template": try Self.value(template)], as: TemplateResult.self
    ).template
  }

  /// Draws `template` from a product (`sku`) or from values (`data`) for `target`: a PNG
  /// preview (`png` true) or the printer's native bytes.
  public func render(
    template: String, sku: String? = nil, data: [String: String]? = nil, for target: RenderTarget,
    png: Bool = true
  ) async throws(LabelError) -> RenderedLabel {
    var params: [String: JSONValue] = [
      "template": .string(template), "format": .string(png ? "png" : "native"),
    ]
    if let sku { params["sku"] = .string(sku) }
    if let data { params["data"] = .object(data.mapValues { .string($0) }) }
    switch target {
    case .printer(let id): params["printer"] = .string(id)
    case .language(let language, let dpi):
      params["language"] = .string(language.rawValue)
      if let dpi { params["dpi"] = .int(dpi) }
    }
    let result = try await call(.labelsRender, params, as: RenderResult.self)
    guard let bytes = Data(base64Encoded: result.data) else {
      throw .protocolViolation("labels.render answered data that is not base64")
    }
    return RenderedLabel(
      mediaType: result.mediaType, data: [UInt8](bytes), width: result.width,
      height: result.height)
  }

  // MARK: jobs

  /// Submits a job; it is durable when this returns (it survives a crash of labeld).
  public func submit(printer: String, _ document: PrintDocument, copies: Int = 1)
    async throws(LabelError) -> Job
  {
    var params: [String: JSONValue] = ["printer": .string(printer), "copies": .int(copies)]
    switch document {
    case .native(let bytes):
      params["document"] = ["format": "native", "data": .string(Data(bytes).base64EncodedString())]
    case .png(let bytes):
      params["document"] = ["format": "png", "data": .string(Data(bytes).base64EncodedString())]
    case .template(let name, let sku):
      params["template"] = .string(name)
      params["sku"] = .string(sku)
    case .templateData(let name, let data):
      params["template"] = .string(name)
      params["data"] = .object(data.mapValues { .string($0) })
    }
    return try await call(.jobsSubmit, params, as: JobResult.self).job
  }

  public func job(_ id: Int) async throws(LabelError) -> Job {
    try await call(.jobsGet, ["job": .int(id)], as: JobResult.self).job
  }

  /// Cancels a job: at once when it waits, after the label in progress when it prints
  /// (the job then still shows `processing`; `jobUpdates` reports it `canceled`).
  public func cancel(job id: Int) async throws(LabelError) -> Job {
    try await call(.jobsCancel, ["job": .int(id)], as: JobResult.self).job
  }

  /// Jobs matching `query`, in id order; with `limit`, a page whose `next` is the cursor of
  /// the following one.
  public func jobs(_ query: JobQuery = JobQuery()) async throws(LabelError) -> JobsResult {
    var params: [String: JSONValue] = [:]
    if let printer = query.printer { params["printer"] = .string(printer) }
    if let states = query.states { params["states"] = .array(states.map { .string($0.rawValue) }) }
    if let owner = query.owner { params["owner"] = .int(Int(owner)) }
    if let limit = query.limit { params["limit"] = .int(limit) }
    if let after = query.after { params["after"] = .int(after) }
    return try await call(.jobsList, params, as: JobsResult.self)
  }

  // MARK: alerts

  /// The alerts active now, oldest first, each as its latest event.
  public func activeAlerts() async throws(LabelError) -> [AlertEvent] {
    try await call(.alertsActive, as: AlertsResult.self).alerts
  }

  /// Acknowledges an alert for everyone (a `dismissed` event); false when no active alert
  /// has that id.
  public func dismiss(alert id: String) async throws(LabelError) -> Bool {
    try await call(.alertsDismiss, ["id": .string(id)], as: DismissResult.self).dismissed
  }

  // MARK: web tokens (administrators)

  /// Makes a token for labeld's web endpoint with `role` (`viewer`, `operator` or `admin`);
  /// its secret is in the result and nowhere else.
  public func createToken(name: String, role: String) async throws(LabelError) -> TokenCreated {
    try await call(
      .tokensCreate, ["name": .string(name), "role": .string(role)], as: TokenCreated.self)
  }

  /// The web endpoint's tokens, by name (never their secrets).
  public func tokens() async throws(LabelError) -> [TokenInfo] {
    try await call(.tokensList, as: TokensResult.self).tokens
  }

  /// Revokes the token `name`; its open connections are closed at once.
  public func revokeToken(name: String) async throws(LabelError) -> RevokeResult {
    try await call(.tokensRevoke, ["name": .string(name)], as: RevokeResult.self)
  }

  private static func value<T: Encodable>(_ value: T) throws(LabelError) -> JSONValue {
    do {
      return try LabelJSON.value(value)
    } catch {
      throw .protocolViolation("cannot encode \(T.self): \(error)")
    }
  }
}
