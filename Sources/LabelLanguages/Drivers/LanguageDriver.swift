import LabelCore

/// Why a driver could not do what was asked (no such model or media, a bad reply).
public struct DriverError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// A printer language, the PAPPL/LPrint way: what it can do (the model rows of
/// `DriverTable`), how a page becomes its bytes, how to ask the printer how it is, and how
/// to read the answer. Transports (USB, CUPS) and the renderer hold one per printer and
/// never look inside the bytes: nothing outside this layer switches on the language.
///
/// A new language is a driver file conforming to this, its `LanguageProfile` row, its
/// model rows, and tests.
public protocol LanguageDriver: Sendable {
  var language: PrinterLanguage { get }
  /// The model this driver was chosen for.
  var model: ModelEntry { get }

  // MARK: Pages

  /// The media to encode for when the printer's is not known; `labelWidthMM` is the
  /// label's own width where there is a label.
  func assumedMedia(labelWidthMM: Double?) -> Media
  /// Where a page's dots go on `media` at `dpi`; media this printer cannot take throws.
  func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea
  /// One job printing `pages` (1-bit, at the printer's dpi) on the loaded media.
  func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8]
  /// Whether `media` on this printer prints red as well as black.
  func printsRed(on media: Media) -> Bool
  /// One job printing pages in two inks: `red[i]` is page i's red plane, the size of
  /// `pages[i]`. A printer without red prints it black.
  func encode(pages: [Bitmap], red: [Bitmap], media: Media, dpi: Int) throws(DriverError)
    -> [UInt8]

  // MARK: Status

  /// The bytes that ask the printer for its status.
  var statusRequest: [UInt8] { get }
  /// Sent before `statusRequest` when the printer may be in the middle of a command
  /// (Brother: NULs and `ESC @`); empty for most languages.
  var statusPreamble: [UInt8] { get }
  /// The status request's name, for messages ("~HQES").
  var statusRequestName: String { get }
  /// Whether the language's network printers answer the status request on the raw
  /// printing connection (TCP 9100), as Zebra's do; true for most languages.
  var answersStatusOverSocket: Bool { get }
  /// The SNMP object whose value (an OCTET STRING) is the status reply `scanStatus`
  /// reads, for network printers that answer their status over SNMP instead; nil for
  /// most languages.
  var snmpStatusOID: [UInt32]? { get }
  /// The first status message at the front of `input`, if there is one yet.
  func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan
  /// The printer's faults in a status reply; a short or garbled reply throws.
  func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason]
  /// What a job of this language asks of the printer (pages, media), read from its bytes.
  func jobFacts(_ bytes: [UInt8]) -> JobFacts
  /// Whether a label is drawn only for media the printer names (a P-touch's job names its
  /// tape, which the printer must have): while it names none, labeld refuses to draw for a
  /// guess. False for most languages, which print on whatever is loaded.
  var needsKnownMedia: Bool { get }
  /// The status requests `job` itself carries (a LabelWriter 550 takes no more data after
  /// a label until its status is read): the transport reads their answers, the last one
  /// confirming the copy, instead of asking again. 0 for most languages.
  func statusRepliesCarried(by job: [UInt8]) -> Int
}

extension LanguageDriver {
  public var statusPreamble: [UInt8] { [] }
  public var answersStatusOverSocket: Bool { true }
  public var snmpStatusOID: [UInt32]? { nil }
  public func printsRed(on media: Media) -> Bool { false }
  public func encode(pages: [Bitmap], red: [Bitmap], media: Media, dpi: Int)
    throws(DriverError) -> [UInt8]
  {
    try encode(pages: zip(pages, red).map { $0.union($1) }, media: media, dpi: dpi)
  }
  /// A job the driver cannot read is one page for whatever media is loaded.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts { JobFacts(pages: 1) }
  public func statusRepliesCarried(by job: [UInt8]) -> Int { 0 }
  public var needsKnownMedia: Bool { false }
}

/// A language whose printers draw a template themselves (text and barcodes as commands,
/// not dots): the renderer sends the template, with only its images rasterised.
public protocol TemplateEncoding: LanguageDriver {
  /// One label for `template` filled with `data` on `media` at `dpi`; `images` holds each
  /// image element rasterised at `dpi`, by element index.
  func encode(
    template: Template, data: [String: String], images: [Int: Bitmap], media: Media, dpi: Int
  ) throws(DrawingError) -> [UInt8]
}

extension DriverTable {
  /// The driver for a matched model, built with `settings` (darkness, finishing).
  public static func driver(for model: ModelEntry, settings: LabelSettings = LabelSettings())
    throws(DriverError) -> any LanguageDriver
  {
    try model.language.profile.makeDriver(model, settings)
  }

  /// The driver for `language` with `settings`: the model `settings.model` names, else
  /// the language's default model.
  public static func driver(for language: PrinterLanguage, settings: LabelSettings)
    throws(DriverError) -> any LanguageDriver
  {
    let profile = language.profile
    let name = settings.model ?? profile.defaultModel
    guard let model = model(named: name, language: language) else {
      throw DriverError("no \(profile.displayName) driver for model \(name)")
    }
    return try driver(for: model, settings: settings)
  }
}
