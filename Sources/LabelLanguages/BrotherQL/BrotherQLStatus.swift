import LabelCore

/// A Brother QL 32-byte status reply (to `ESC i S`, or sent unasked while printing): the
/// layout `BrotherStatusBlock` reads (the P-touch's too), the QL's error bits and media.
public struct BrotherQLStatus: Sendable, Equatable {
  /// The status request, `ESC i S`. Send `invalidate` NULs and `ESC @` first if the printer
  /// may be mid-command.
  public static let request = BrotherStatusBlock.request
  /// Size of a reply.
  public static let length = BrotherStatusBlock.length
  /// The fixed first three bytes of a reply.
  public static let header = BrotherStatusBlock.header

  /// Error information 1 (low byte, reply byte 8) and 2 (high byte, byte 9).
  public struct Errors: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let noMedia = Errors(rawValue: 0x0001)
    public static let endOfMedia = Errors(rawValue: 0x0002)
    public static let cutterJam = Errors(rawValue: 0x0004)
    public static let printerInUse = Errors(rawValue: 0x0010)
    public static let printerTurnedOff = Errors(rawValue: 0x0020)
    public static let highVoltageAdapter = Errors(rawValue: 0x0040)
    public static let fanMotor = Errors(rawValue: 0x0080)
    public static let replaceMedia = Errors(rawValue: 0x0100)
    public static let expansionBufferFull = Errors(rawValue: 0x0200)
    public static let communication = Errors(rawValue: 0x0400)
    public static let communicationBufferFull = Errors(rawValue: 0x0800)
    public static let coverOpen = Errors(rawValue: 0x1000)
    public static let cancelKey = Errors(rawValue: 0x2000)
    public static let feedError = Errors(rawValue: 0x4000)
    public static let systemError = Errors(rawValue: 0x8000)

    /// Each error bit and the fault it means: the one table for Brother QL status.
    public static let reasonTable: [(Errors, Reason)] = [
      // No roll, or a die-cut roll ran out: either way there is nothing to print on.
      (.noMedia, .mediaEmpty),
      (.endOfMedia, .mediaEmpty),
      (.cutterJam, .cutterError),
      // "Main unit in use" (QL-560/650TD/1050: the keyboard or another host holds it).
      (.printerInUse, .busy),
      // The printer reports it is being switched off: it will stop answering.
      (.printerTurnedOff, .offline),
      // Documented as unused on QL; a set bit is still a fault we cannot name.
      (.highVoltageAdapter, .unknown),
      // Fan motor (QL-1050/1060N): a mechanical fault, not the head; no closer reason.
      (.fanMotor, .unknown),
      // Raised when the loaded roll differs from the one `ESC i z` asked for.
      (.replaceMedia, .mediaMismatch),
      // The job's data did not fit the printer's buffer: this job cannot print as sent.
      (.expansionBufferFull, .jobRejected),
      (.communication, .communication),
      (.communicationBufferFull, .communication),
      (.coverOpen, .coverOpen),
      // Documented as unused on QL (overheating on some PT models): unnamed fault.
      (.cancelKey, .unknown),
      // The media could not be fed: stuck or misloaded.
      (.feedError, .mediaJam),
      // Internal failure; Brother says only "system error", so no narrower reason.
      (.systemError, .unknown),
    ]
  }

  /// Reply byte 18 (the shared layout's).
  public typealias StatusType = BrotherStatusBlock.StatusType
  /// Reply byte 19 (the shared layout's).
  public typealias Phase = BrotherStatusBlock.Phase

  /// Byte 3: `0x34` ('4') on QL printers, `0x30` ('0') on PT.
  public let series: UInt8
  /// Byte 4: Brother's model code.
  public let modelCode: UInt8
  public let errors: Errors
  public let mediaWidthMM: Int
  /// Byte 11: 0x0A continuous, 0x0B die-cut, 0x00 none.
  public let mediaType: UInt8
  /// Byte 17; 0 for continuous tape.
  public let mediaLengthMM: Int
  public let statusType: StatusType
  public let phase: Phase
  /// Byte 22: 0x03 cooling started, 0x04 cooling finished.
  public let notification: UInt8

  /// Parses a reply; anything but 32 bytes starting `80 20 42` throws `badStatus`.
  public init(_ reply: some Collection<UInt8>) throws(BrotherQLError) {
    let block: BrotherStatusBlock
    do {
      block = try BrotherStatusBlock(reply)
    } catch {
      throw BrotherQLError(.badStatus, error.message)
    }
    series = block.series
    modelCode = block.modelCode
    errors = Errors(rawValue: block.errorBits)
    mediaWidthMM = block.mediaWidthMM
    mediaType = block.mediaType
    mediaLengthMM = block.mediaLengthMM
    statusType = block.statusType
    phase = block.phase
    notification = block.notification
  }

  /// The model the reply's model code names, if known.
  public var model: BrotherQLModel? { BrotherQLModel.statusModelCode(modelCode) }

  /// A roll is in (the printer reports its width).
  public var mediaLoaded: Bool { mediaWidthMM != 0 && !errors.contains(.noMedia) }

  /// The known roll the printer reports, if any.
  public var media: BrotherQLMedia? {
    guard mediaLoaded, let kind = BrotherQLMedia.Kind(rawValue: mediaType) else { return nil }
    return BrotherQLMedia.matching(widthMM: mediaWidthMM, lengthMM: mediaLengthMM, kind: kind)
  }

  /// Faults in the reply, in table order without repeats; an error status with no error
  /// bit set is `unknown` (the printer says something failed without saying what).
  public var reasons: [Reason] {
    var out: [Reason] = []
    for (bit, reason) in Errors.reasonTable where errors.contains(bit) && !out.contains(reason) {
      out.append(reason)
    }
    let known = Errors.reasonTable.reduce(Errors()) { $0.union($1.0) }
    if !errors.subtracting(known).isEmpty, !out.contains(.unknown) { out.append(.unknown) }
    if out.isEmpty, statusType == .errorOccurred { out.append(.unknown) }
    return out
  }
}
