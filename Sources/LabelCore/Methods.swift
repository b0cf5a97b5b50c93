/// Result shapes of the protocol's methods, shared by the daemon (which encodes them) and
/// clients (which decode them). Params are read field by field in the daemon so that every
/// bad field is named; clients build params as `JSONValue`.

/// The method names of protocol v1.
public enum Method: String, Sendable, CaseIterable {
  case hello
  case printersList = "printers.list"
  case printersGet = "printers.get"
  case printersRefresh = "printers.refresh"
  case printersSimulate = "printers.simulate"
  case productsSave = "products.save"
  case productsGet = "products.get"
  case productsDelete = "products.delete"
  case productsList = "products.list"
  case templatesList = "templates.list"
  case templatesGet = "templates.get"
  case templatesSave = "templates.save"
  case labelsRender = "labels.render"
  case jobsSubmit = "jobs.submit"
  case jobsGet = "jobs.get"
  case jobsCancel = "jobs.cancel"
  case jobsList = "jobs.list"
  case alertsActive = "alerts.active"
  case alertsDismiss = "alerts.dismiss"
  case subscribe
  /// labeld addition: what is on the USB bus and why each device is or is not a printer.
  case devicesList = "devices.list"
  /// labeld addition: the web endpoint's bearer tokens (administrators only).
  case tokensCreate = "tokens.create"
  case tokensList = "tokens.list"
  case tokensRevoke = "tokens.revoke"
}

/// Server-to-client notification names.
public enum NotificationMethod: String, Sendable {
  case alert, job, printer, overflow
}

/// Subscription topics.
public enum Topic: String, Codable, Sendable, CaseIterable {
  case alerts, jobs, printers
}

public struct HelloResult: Codable, Sendable, Equatable {
  public var server: String
  public var version: String
  public var `protocol`: Int
  public init(server: String, version: String, protocol: Int) {
    self.server = server
    self.version = version
    self.protocol = `protocol`
  }
}

public struct PrintersResult: Codable, Sendable, Equatable {
  public var printers: [Printer]
  public init(printers: [Printer]) { self.printers = printers }
}
public struct PrinterResult: Codable, Sendable {
  public var printer: Printer
  public init(printer: Printer) { self.printer = printer }
}
public struct ProductSaveResult: Codable, Sendable {
  public var product: Product
  public var job: Job?
  public init(product: Product, job: Job? = nil) {
    self.product = product
    self.job = job
  }
}
public struct ProductResult: Codable, Sendable {
  public var product: Product
  public init(product: Product) { self.product = product }
}
public struct ProductsResult: Codable, Sendable {
  public var products: [Product]
  /// With `limit`: the cursor of the next page (the last sku), absent on the last page.
  public var next: String?
  public init(products: [Product], next: String? = nil) {
    self.products = products
    self.next = next
  }
}
public struct DeletedResult: Codable, Sendable {
  public var deleted: Bool
  public init(deleted: Bool) { self.deleted = deleted }
}
public struct TemplatesResult: Codable, Sendable {
  public var templates: [Template]
  /// With `limit`: the cursor of the next page (the last name), absent on the last page.
  public var next: String?
  public init(templates: [Template], next: String? = nil) {
    self.templates = templates
    self.next = next
  }
}
public struct TemplateResult: Codable, Sendable {
  public var template: Template
  public init(template: Template) { self.template = template }
}
public struct RenderResult: Codable, Sendable {
  public var format: String
  public var mediaType: String
  public var data: String
  public var width: Int?
  public var height: Int?
  public init(format: String, mediaType: String, data: String, width: Int?, height: Int?) {
    self.format = format
    self.mediaType = mediaType
    self.data = data
    self.width = width
    self.height = height
  }
}
public struct JobResult: Codable, Sendable {
  public var job: Job
  public init(job: Job) { self.job = job }
}
public struct JobsResult: Codable, Sendable {
  public var jobs: [Job]
  /// With `limit`: the cursor of the next page (`after`), absent on the last page.
  public var next: Int?
  public init(jobs: [Job], next: Int? = nil) {
    self.jobs = jobs
    self.next = next
  }
}
public struct AlertsResult: Codable, Sendable {
  public var alerts: [AlertEvent]
  public init(alerts: [AlertEvent]) { self.alerts = alerts }
}
public struct DismissResult: Codable, Sendable {
  public var dismissed: Bool
  public init(dismissed: Bool) { self.dismissed = dismissed }
}
public struct SubscribeResult: Codable, Sendable {
  /// The latest alert seq at the moment of subscribing.
  public var seq: UInt64
  /// Present and true when `since` is older than what is retained.
  public var gap: Bool?
  public init(seq: UInt64, gap: Bool? = nil) {
    self.seq = seq
    self.gap = gap
  }
}
public struct OverflowParams: Codable, Sendable {
  /// The last alert seq this connection was sent; resume with `since: seq`.
  public var seq: UInt64
  public init(seq: UInt64) { self.seq = seq }
}

/// The daemon's identity.
public enum LabelVersion {
  public static let server = "labeld"
  public static let version = "0.1.0"
  public static let protocolVersion = 1
}

/// A web token as listed: never its secret, which exists only in `TokenCreated`.
public struct TokenInfo: Codable, Sendable, Equatable {
  public var name: String
  /// `viewer`, `operator` or `admin`.
  public var role: String
  public var createdAt: String
  public init(name: String, role: String, createdAt: String) {
    self.name = name
    self.role = role
    self.createdAt = createdAt
  }
}
public struct TokenCreated: Codable, Sendable, Equatable {
  public var token: TokenInfo
  /// The bearer secret, shown this once: labeld keeps only its SHA-256.
  public var secret: String
  public init(token: TokenInfo, secret: String) {
    self.token = token
    self.secret = secret
  }
}
public struct TokensResult: Codable, Sendable, Equatable {
  public var tokens: [TokenInfo]
  public init(tokens: [TokenInfo]) { self.tokens = tokens }
}
public struct RevokeResult: Codable, Sendable, Equatable {
  public var revoked: Bool
  /// Open web connections of the token, closed at once.
  public var closed: Int
  public init(revoked: Bool, closed: Int) {
    self.revoked = revoked
    self.closed = closed
  }
}
