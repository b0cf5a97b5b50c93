import LabelCore

/// A printer's status as its driver reads it, in terms every transport understands.
public struct DeviceStatus: Sendable, Equatable {
  /// What the message is.
  public enum Kind: Sendable, Equatable {
    /// The answer to a status request.
    case reply
    /// The printer says a page is printed (sent unasked while printing).
    case pagePrinted
    /// The printer says something failed (sent unasked).
    case error
    /// The printer says it is being switched off.
    case turnedOff
    /// Anything else sent unasked (phase changes, notifications).
    case other
  }

  public var kind: Kind
  /// The faults it reports, in the driver's table order.
  public var faults: [Reason]
  /// The media it says is loaded; nil when none is, or it does not say.
  public var media: Media?
  /// Where the faults come from, for messages: "~HQES", "error bits 00 10".
  public var detail: String
  /// The labels left on the loaded roll, where the printer counts them (DYMO LabelWriter
  /// 550: from the roll's NFC tag); nil where it does not say.
  public var labelsRemaining: Int?

  public init(kind: Kind, faults: [Reason], media: Media? = nil, detail: String) {
    self.kind = kind
    self.faults = faults
    self.media = media
    self.detail = detail
  }
}

/// What a driver found at the front of the bytes a printer sent.
public enum StatusScan: Sendable, Equatable {
  /// A status, taking the first `consumed` bytes.
  case status(DeviceStatus, consumed: Int)
  /// A whole message, `consumed` bytes, that is not a status (why).
  case unreadable(String, consumed: Int)
  /// The first `count` bytes cannot start a status: drop them and look again.
  case skip(Int)
  /// A status may follow once more bytes come.
  case needMore
}

/// What a job's bytes ask of the printer, as far as its driver can read them.
public struct JobFacts: Sendable, Equatable {
  /// The pages a copy prints (each confirmed, where the printer confirms pages).
  public var pages: Int
  /// The media the job is for; nil when the job does not say.
  public var wants: MediaWant?

  public init(pages: Int, wants: MediaWant? = nil) {
    self.pages = pages
    self.wants = wants
  }

  /// Why the loaded media cannot take this job, or nil when it can (or nothing is
  /// loaded, or the job does not say: then the printer's own error decides).
  public func mismatch(loaded: Media?) -> String? {
    guard let wants, let loaded else { return nil }
    let loadedDieCut = loaded.lengthMM > 0
    let dieCut = wants.dieCut ?? loadedDieCut
    let width = wants.widthMM ?? loaded.widthMM
    let length = wants.lengthMM ?? loaded.lengthMM
    let fits =
      dieCut == loadedDieCut && width == loaded.widthMM && (!dieCut || length == loaded.lengthMM)
    if fits { return nil }
    if wants.tape == true || loaded.kind == "tape" {
      // Tape cassettes (P-touch): only the width tells them apart.
      let job =
        wants.tape == true
        ? "\(millimetres(width)) mm tape"
        : Self.describe(
          dieCut: dieCut, width, length)
      let cassette =
        loaded.kind == "tape"
        ? "\(millimetres(loaded.widthMM)) mm tape is"
        : "\(Self.describe(dieCut: loadedDieCut, loaded.widthMM, loaded.lengthMM)) are"
      return "the job is for \(job) but \(cassette) loaded"
    }
    return "the job is for \(Self.describe(dieCut: dieCut, width, length)) but "
      + "\(Self.describe(dieCut: loadedDieCut, loaded.widthMM, loaded.lengthMM)) are loaded"
  }

  private static func describe(dieCut: Bool, _ width: Double, _ length: Double) -> String {
    dieCut || length > 0
      ? "\(millimetres(width)) x \(millimetres(length)) mm die-cut labels"
      : "\(millimetres(width)) mm continuous tape"
  }
}

/// The media a job is encoded for: each part nil where the job leaves it to the printer.
public struct MediaWant: Sendable, Equatable {
  public var dieCut: Bool?
  public var widthMM: Double?
  public var lengthMM: Double?
  /// The job is for a tape cassette (P-touch); nil where the job does not say.
  public var tape: Bool?

  public init(dieCut: Bool?, widthMM: Double?, lengthMM: Double?, tape: Bool? = nil) {
    self.dieCut = dieCut
    self.widthMM = widthMM
    self.lengthMM = lengthMM
    self.tape = tape
  }
}

/// Where a page's dots go on loaded media: a label drawn larger is cut to it (centred:
/// the printer's unprintable margins), and an image larger is refused.
public struct PageArea: Sendable, Equatable, CustomStringConvertible {
  /// Dots across that print; nil when the media's width is not known.
  public var width: Int?
  /// Dots along a label of fixed length (die-cut labels); nil on continuous or unknown
  /// media.
  public var length: Int?
  /// The most dots along a page on continuous media; nil when the driver knows no limit.
  public var maxLength: Int?
  /// The area in words, for messages: "62 mm roll prints 696 dots across and at most
  /// 11811 lines at 300 dpi".
  public var description: String
  /// The media is tape (P-touch, LabelManager): a label reads along it. The page a driver
  /// takes is still across the head (`width` dots, row 0 printed first, as the vendor's
  /// CUPS filter gets a page), and the renderer turns a label into it a quarter turn
  /// counter-clockwise, as a CUPS landscape page is turned: the label's top edge along
  /// the page's column 0, its right-hand end printed first.
  public var tape: Bool

  public init(
    width: Int?, length: Int?, maxLength: Int?, description: String, tape: Bool = false
  ) {
    self.width = width
    self.length = length
    self.maxLength = maxLength
    self.description = description
    self.tape = tape
  }

  /// Whether an image of `width` x `height` dots fits.
  public func fits(width w: Int, height h: Int) -> Bool {
    if let width, w > width { return false }
    if let limit = length ?? maxLength, h > limit { return false }
    return true
  }
}

/// "62", "50.8": millimetres as a person writes them.
func millimetres(_ mm: Double) -> String {
  mm == mm.rounded() && abs(mm) < 1e9 ? String(Int(mm)) : String(mm)
}
