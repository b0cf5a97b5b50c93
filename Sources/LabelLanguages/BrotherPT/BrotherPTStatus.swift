import LabelCore

/// A P-touch 32-byte status reply: the layout `BrotherStatusBlock` reads (the QL's), the
/// P-touch's error bits, tapes and colours (Raster Command References PT-E550W/P750W/
/// P710BT and PT-P900/P900W/P950NW/P910BT, "Status information request", tables (1)–(9)
/// and (11)).
public struct BrotherPTStatus: Sendable, Equatable {
  /// Error information 1 (low byte, reply byte 8) and 2 (high byte, byte 9).
  public struct Errors: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let noMedia = Errors(rawValue: 0x0001)
    /// The PT-P900 family's "end of media" (not used on the PT-E550W's).
    public static let endOfMedia = Errors(rawValue: 0x0002)
    public static let cutterJam = Errors(rawValue: 0x0004)
    public static let weakBatteries = Errors(rawValue: 0x0008)
    /// "Printer in use" (listed, not supported, on the PT-P900 family).
    public static let printerInUse = Errors(rawValue: 0x0010)
    public static let highVoltageAdapter = Errors(rawValue: 0x0040)
    /// "Replace media" error / wrong media: the tape differs from `ESC i z`'s.
    public static let replaceMedia = Errors(rawValue: 0x0100)
    public static let expansionBufferFull = Errors(rawValue: 0x0200)
    public static let communication = Errors(rawValue: 0x0400)
    public static let communicationBufferFull = Errors(rawValue: 0x0800)
    public static let coverOpen = Errors(rawValue: 0x1000)
    public static let overheating = Errors(rawValue: 0x2000)
    public static let blackMarkNotDetected = Errors(rawValue: 0x4000)
    public static let systemError = Errors(rawValue: 0x8000)

    /// Each error bit, the fault it means and its name for messages: the one table for
    /// P-touch status. Bits the references mark "not used" are not listed: a set one is
    /// `unknown`.
    public static let reasonTable: [(Errors, Reason, String)] = [
      (.noMedia, .mediaEmpty, "no media"),
      (.endOfMedia, .mediaEmpty, "end of media"),
      (.cutterJam, .cutterError, "cutter jam"),
      // No protocol reason is about power: the printer stops until the batteries are
      // changed or the adapter plugged in, and the detail names it.
      (.weakBatteries, .unknown, "weak batteries"),
      (.printerInUse, .busy, "printer in use"),
      // A wrong (high-voltage) adapter: a power fault, named in the detail.
      (.highVoltageAdapter, .unknown, "high-voltage adapter"),
      (.replaceMedia, .mediaMismatch, "wrong media"),
      // The job's data did not fit the printer's buffer: this job cannot print as sent.
      (.expansionBufferFull, .jobRejected, "expansion buffer full"),
      (.communication, .communication, "communication error"),
      (.communicationBufferFull, .communication, "communication buffer full"),
      (.coverOpen, .coverOpen, "cover open"),
      // The head is too hot to print: the closest named fault is the head's.
      (.overheating, .headError, "overheating"),
      // Marked tape whose mark the sensor did not find: no narrower reason.
      (.blackMarkNotDetected, .unknown, "black mark not detected"),
      (.systemError, .unknown, "system error"),
    ]
  }

  /// Reply byte 11: the tape in the cassette.
  public enum MediaType: UInt8, Sendable, CaseIterable {
    case none = 0x00
    case laminated = 0x01
    case nonLaminated = 0x03
    /// PT-P900 family.
    case fabric = 0x04
    case heatShrink2to1 = 0x11
    /// PT-P900 family: "File tape" in its reference (its FLe die-cut labels report a
    /// length, 21 x 45 mm).
    case fileTape = 0x13
    case flexibleID = 0x14
    case satin = 0x15
    case heatShrink3to1 = 0x17
    case incompatible = 0xFF

    /// The type in words: "laminated tape".
    public var name: String {
      switch self {
      case .none: "no tape"
      case .laminated: "laminated tape"
      case .nonLaminated: "non-laminated tape"
      case .fabric: "fabric tape"
      case .heatShrink2to1: "heat-shrink tube 2:1"
      case .fileTape: "file tape"
      case .flexibleID: "flexible ID tape"
      case .satin: "satin tape"
      case .heatShrink3to1: "heat-shrink tube 3:1"
      case .incompatible: "incompatible tape"
      }
    }
  }

  /// Tape colours (reply byte 24, table (8)).
  public static let tapeColours: [UInt8: String] = [
    0x01: "white", 0x02: "other", 0x03: "clear", 0x04: "red", 0x05: "blue", 0x06: "yellow",
    0x07: "green", 0x08: "black", 0x09: "clear (white text)", 0x20: "matte white",
    0x21: "matte clear", 0x22: "matte silver", 0x23: "satin gold", 0x24: "satin silver",
    0x30: "blue (D)", 0x31: "red (D)", 0x40: "fluorescent orange", 0x41: "fluorescent yellow",
    0x50: "berry pink (S)", 0x51: "light grey (S)", 0x52: "lime green (S)", 0x60: "yellow (F)",
    0x61: "pink (F)", 0x62: "blue (F)", 0x70: "white (heat-shrink tube)",
    0x90: "white (flex. ID)", 0x91: "yellow (flex. ID)", 0xF0: "cleaning", 0xF1: "stencil",
    0xFF: "incompatible",
  ]

  /// Text colours (reply byte 25, table (9)).
  public static let textColours: [UInt8: String] = [
    0x01: "white", 0x02: "other", 0x04: "red", 0x05: "blue", 0x08: "black", 0x0A: "gold",
    0x62: "blue (F)", 0xF0: "cleaning", 0xF1: "stencil", 0xFF: "incompatible",
  ]

  /// Extended errors of the PT-P900 family (reply byte 7, table (11)) and their faults.
  public static let extendedErrors: [UInt8: (Reason, String)] = [
    0x10: (.mediaEmpty, "file tape end"),
    0x1D: (.jobRejected, "high-resolution/draft printing error"),
    0x1E: (.unknown, "adapter pull/insert error"),
    0x21: (.mediaMismatch, "incompatible media"),
  ]

  public let block: BrotherStatusBlock
  public var errors: Errors { Errors(rawValue: block.errorBits) }

  /// Reads a reply; anything but 32 bytes starting `80 20 42` throws `badStatus`.
  public init(_ reply: some Collection<UInt8>) throws(BrotherPTError) {
    do {
      block = try BrotherStatusBlock(reply)
    } catch {
      throw BrotherPTError(.badStatus, error.message)
    }
  }

  /// The model the reply's model code names, if known.
  public var model: BrotherPTModel? { BrotherPTModel.statusModelCode(block.modelCode) }
  /// Byte 11 as a known type; nil for a value no reference lists.
  public var mediaType: MediaType? { MediaType(rawValue: block.mediaType) }

  /// A tape is in (the printer reports its width).
  public var mediaLoaded: Bool { block.mediaWidthMM != 0 && !errors.contains(.noMedia) }

  /// The loaded tape as the protocol shows it (`kind` "tape", 3.5 mm for the width byte
  /// 4); nil when none is in.
  public var loadedMedia: Media? {
    guard mediaLoaded else { return nil }
    let width = block.mediaWidthMM == 4 ? 3.5 : Double(block.mediaWidthMM)
    return Media(widthMM: width, lengthMM: 0, kind: "tape")
  }

  /// Faults in the reply, in table order without repeats: the error bits, an
  /// incompatible tape (media type FF), the PT-P900 family's extended error; an unknown
  /// bit or an error status with no error named is `unknown`.
  public var reasons: [Reason] {
    var out: [Reason] = []
    func add(_ r: Reason) { if !out.contains(r) { out.append(r) } }
    for (bit, reason, _) in Errors.reasonTable where errors.contains(bit) { add(reason) }
    let known = Errors.reasonTable.reduce(Errors()) { $0.union($1.0) }
    if !errors.subtracting(known).isEmpty { add(.unknown) }
    if mediaType == .incompatible { add(.mediaMismatch) }
    if block.extendedError != 0 { add(Self.extendedErrors[block.extendedError]?.0 ?? .unknown) }
    if out.isEmpty, block.statusType == .errorOccurred { add(.unknown) }
    return out
  }

  /// The reply in words, for messages: the errors by name, the tape and its colours,
  /// then the raw error bits ("cover open; 12 mm laminated tape, black on white; error
  /// bits 00 10").
  public var detail: String {
    var parts: [String] = []
    let named = Errors.reasonTable.filter { errors.contains($0.0) }.map(\.2)
    let extended =
      block.extendedError == 0
      ? []
      : [
        Self.extendedErrors[block.extendedError]?.1
          ?? "extended error \(hexByte(block.extendedError))"
      ]
    if !(named + extended).isEmpty { parts.append((named + extended).joined(separator: ", ")) }
    if let media = loadedMedia {
      let type = mediaType?.name ?? "tape of type \(hexByte(block.mediaType))"
      var tape = "\(millimetres(media.widthMM)) mm \(type)"
      if let text = Self.textColours[block.textColour],
        let colour = Self.tapeColours[block.tapeColour]
      {
        tape += ", \(text) on \(colour)"
      }
      parts.append(tape)
    }
    parts.append(block.errorText)
    return parts.joined(separator: "; ")
  }

  /// This reply as drivers report status.
  public var deviceStatus: DeviceStatus {
    DeviceStatus(kind: block.statusType.kind, faults: reasons, media: loadedMedia, detail: detail)
  }
}
