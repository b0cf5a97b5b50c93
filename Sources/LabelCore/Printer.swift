/// How the daemon reaches a printer; part of the printer's id.
public enum TransportKind: String, Codable, Sendable {
  case usb, cups, sim
}

/// The page-description language a printer speaks.
public enum PrinterLanguage: String, Codable, Sendable, CaseIterable {
  case zpl
  case brotherQL = "brother-ql"

  /// The file extension used for this language's output (simulator spool files).
  public var fileExtension: String {
    switch self {
    case .zpl: return "zpl"
    case .brotherQL: return "ql"
    }
  }
}

/// IPP printer state.
public enum PrinterState: String, Codable, Sendable {
  case idle, processing, stopped
}

/// Loaded media. `lengthMM` 0 means continuous.
public struct Media: Codable, Sendable, Equatable {
  public var widthMM: Double
  public var lengthMM: Double
  public var kind: String?

  public init(widthMM: Double, lengthMM: Double, kind: String? = nil) {
    self.widthMM = widthMM
    self.lengthMM = lengthMM
    self.kind = kind
  }
}

/// A printer as the protocol shows it.
public struct Printer: Codable, Sendable, Equatable {
  public var id: String
  public var name: String
  public var transport: TransportKind
  public var model: String
  public var language: PrinterLanguage
  public var dpi: Int
  public var state: PrinterState
  public var reasons: [Reason]
  public var media: Media?
  public var uri: String?
  /// Whether the printer takes new jobs at all (false answers 1002). Added field.
  public var accepting: Bool

  public init(
    id: String, name: String, transport: TransportKind, model: String,
    language: PrinterLanguage, dpi: Int, state: PrinterState = .idle, reasons: [Reason] = [],
    media: Media? = nil, uri: String? = nil, accepting: Bool = true
  ) {
    self.id = id
    self.name = name
    self.transport = transport
    self.model = model
    self.language = language
    self.dpi = dpi
    self.state = state
    self.reasons = reasons
    self.media = media
    self.uri = uri
    self.accepting = accepting
  }
}
