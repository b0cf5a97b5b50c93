import LabelCore

/// Why a driver could not do what was asked (no such model or media, a bad reply).
public struct DriverError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// A printer language, the PAPPL/LPrint way: what it can do (the model rows of
/// `DriverTable`), how a page becomes its bytes, how to ask the printer how it is, and how
/// to read the answer. Transports (USB, CUPS) hold one per printer and never look inside
/// the bytes.
public protocol LanguageDriver: Sendable {
  var language: PrinterLanguage { get }
  /// The model this driver was chosen for.
  var model: ModelEntry { get }
  /// One job printing `pages` (1-bit, at the printer's dpi) on the loaded media.
  func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8]
  /// The bytes that ask the printer for its status.
  var statusRequest: [UInt8] { get }
  /// The printer's faults in a status reply; a short or garbled reply throws.
  func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason]
}

/// ZPL II printers: pages as `^GFA` graphics, status from `~HQES`.
public struct ZPLDriver: LanguageDriver {
  public let model: ModelEntry
  public var options: ZPLOptions?
  public init(model: ModelEntry = DriverTable.genericZPL, options: ZPLOptions? = nil) {
    self.model = model
    self.options = options
  }
  public var language: PrinterLanguage { .zpl }

  /// Each page as a `^GFA` label at the top-left; `^PW`/`^LL` from `media` (a width of 0
  /// means it is not known, and then no `^PW` is sent).
  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    var opts = options ?? ZPLOptions(dpi: dpi)
    opts.dpi = dpi
    opts.media = ZPLMedia(media, dpi: dpi)
    return Array(pages.map { ZPLEncoder.label($0, options: opts) }.joined().utf8)
  }

  public var statusRequest: [UInt8] { Array(ZebraExtendedStatus.request.utf8) }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    do {
      return try ZebraExtendedStatus(reply).reasons
    } catch {
      throw DriverError("\(model.name): unreadable ~HQES reply: \(error)")
    }
  }
}

/// Brother QL printers: pages as raster lines, status from the 32-byte `ESC i S` reply.
public struct BrotherQLDriver: LanguageDriver {
  public let model: ModelEntry
  public let ql: BrotherQLModel
  public var cut = true

  public init(model: ModelEntry) throws(DriverError) {
    guard model.language == .brotherQL, let ql = BrotherQLModel.named(model.name) else {
      throw DriverError("\(model.name) is not a Brother QL model")
    }
    self.model = model
    self.ql = ql
  }

  public var language: PrinterLanguage { .brotherQL }

  /// The roll that `media` describes (width, and length 0 for continuous).
  public func roll(for media: Media) throws(DriverError) -> BrotherQLMedia {
    let width = roundedClamped(media.widthMM, to: 0...10_000)
    let found =
      media.lengthMM == 0
      ? BrotherQLMedia.continuous(widthMM: width)
      : BrotherQLMedia.matching(
        widthMM: width, lengthMM: roundedClamped(media.lengthMM, to: 0...100_000), kind: .dieCut)
    guard let found else {
      throw DriverError("no Brother QL roll is \(media.widthMM) x \(media.lengthMM) mm")
    }
    return found
  }

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    let roll = try roll(for: media)
    do {
      let encoder = try BrotherQLEncoder(
        BrotherQLOptions(model: ql, media: roll, cut: cut, highResolution: dpi == 600))
      return try encoder.encode(pages)
    } catch {
      throw DriverError("\(ql.name): \(error)")
    }
  }

  public var statusRequest: [UInt8] { BrotherQLStatus.request }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    do {
      return try BrotherQLStatus(reply).reasons
    } catch {
      throw DriverError("\(ql.name): unreadable status reply: \(error)")
    }
  }
}

extension DriverTable {
  /// The driver for a matched model.
  public static func driver(for model: ModelEntry) throws(DriverError) -> any LanguageDriver {
    switch model.language {
    case .zpl: return ZPLDriver(model: model)
    case .brotherQL: return try BrotherQLDriver(model: model)
    }
  }
}
