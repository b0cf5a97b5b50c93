/// How the daemon reaches a printer; part of the printer's id.
public enum TransportKind: String, Codable, Sendable {
  case usb, cups, sim
  /// A network printer on a raw TCP port (labeld addition).
  case net
}

/// The page-description language a printer speaks.
public enum PrinterLanguage: String, Codable, Sendable, CaseIterable {
  case zpl
  case brotherQL = "brother-ql"
  case tspl
  case epl2
  /// DYMO LabelWriter 300/400/450 series and 4XL (the LW 450 Series Technical Reference).
  case dymoLW = "dymo-lw"
  /// DYMO LabelWriter 550, 550 Turbo and 5XL (the LW 550 Series Technical Reference).
  case dymoLW5 = "dymo-lw5"
  /// Brother P-touch tape printers in raster mode: PT-P700, PT-P750W, PT-E550W, PT-P710BT
  /// (Brother's Software Developer's Manual, Raster Command Reference PT-E550W/P750W/P710BT)
  /// and PT-P900W, PT-P950NW (Raster Command Reference PT-P900/P900W/P950NW/P910BT).
  case brotherPT = "brother-pt"
  /// DYMO LabelManager tape printers (PnP, 280, 420P, 400, 450, PC, PC II): D1 tape at
  /// 180 dpi, the stream DYMO's own CUPS filter `raster2dymolm` writes (dymo-cups-drivers
  /// 1.4.0, `LabelManagerDriver.cpp`) and labelle drives the PnP with.
  case dymoLM = "dymo-lm"
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
  /// The roll prints red as well as black (Brother DK-22251 on a QL-800/810W/820NWB).
  /// Absent (nil) means black only. Added field.
  public var redBlack: Bool?

  public init(widthMM: Double, lengthMM: Double, kind: String? = nil, redBlack: Bool? = nil) {
    self.widthMM = widthMM
    self.lengthMM = lengthMM
    self.kind = kind
    self.redBlack = redBlack
  }

  /// Whether the roll prints red as well as black.
  public var printsRed: Bool { redBlack == true }
}

/// A printer as the protocol shows it.
public struct Printer: Codable, Sendable, Equatable {
  public var id: String
  public var name: String
  public var transport: TransportKind
  public var model: String
  /// Nil when it is not known (a CUPS queue whose make and model name no language and that
  /// has no pin); the wire shows `"unknown"` and such a printer prints native documents only.
  public var language: PrinterLanguage?
  public var dpi: Int
  public var state: PrinterState
  public var reasons: [Reason]
  public var media: Media?
  public var uri: String?
  /// Whether the printer takes new jobs at all (false answers 1002). Added field.
  public var accepting: Bool
  /// The labels left on the loaded roll, where the printer reports it (DYMO LabelWriter
  /// 550); absent elsewhere. Added field.
  public var labelsRemaining: Int?

  public init(
    id: String, name: String, transport: TransportKind, model: String,
    language: PrinterLanguage?, dpi: Int, state: PrinterState = .idle, reasons: [Reason] = [],
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

extension Printer {
  private enum Keys: String, CodingKey {
    case id, name, transport, model, language, dpi, state, reasons, media, uri, accepting
    case labelsRemaining
  }

  /// The wire name of `language`: its raw value, `"unknown"` when nil.
  public var languageName: String { language?.rawValue ?? "unknown" }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    id = try c.decode(String.self, forKey: .id)
    name = try c.decode(String.self, forKey: .name)
    transport = try c.decode(TransportKind.self, forKey: .transport)
    model = try c.decode(String.self, forKey: .model)
    language = PrinterLanguage(rawValue: try c.decode(String.self, forKey: .language))
    dpi = try c.decode(Int.self, forKey: .dpi)
    state = try c.decode(PrinterState.self, forKey: .state)
    reasons = try c.decode([Reason].self, forKey: .reasons)
    media = try c.decodeIfPresent(Media.self, forKey: .media)
    uri = try c.decodeIfPresent(String.self, forKey: .uri)
    accepting = try c.decodeIfPresent(Bool.self, forKey: .accepting) ?? true
    labelsRemaining = try c.decodeIfPresent(Int.self, forKey: .labelsRemaining)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Keys.self)
    try c.encode(id, forKey: .id)
    try c.encode(name, forKey: .name)
    try c.encode(transport, forKey: .transport)
    try c.encode(model, forKey: .model)
    try c.encode(languageName, forKey: .language)
    try c.encode(dpi, forKey: .dpi)
    try c.encode(state, forKey: .state)
    try c.encode(reasons, forKey: .reasons)
    try c.encodeIfPresent(media, forKey: .media)
    try c.encodeIfPresent(uri, forKey: .uri)
    try c.encode(accepting, forKey: .accepting)
    try c.encodeIfPresent(labelsRemaining, forKey: .labelsRemaining)
  }
}

extension PrinterLanguage {
  /// Every identifier, for help and messages: "zpl or brother-ql".
  public static var spokenList: String {
    let names = allCases.map(\.rawValue)
    guard names.count > 1 else { return names.joined() }
    return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
  }
}
