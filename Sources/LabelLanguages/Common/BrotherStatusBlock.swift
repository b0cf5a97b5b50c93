/// Brother's 32-byte status reply, as the QL and the P-touch raster printers send it (to
/// `ESC i S`, unasked while printing, and over SNMP as one OCTET STRING): the layout is
/// read here once; each family maps the bits to faults in its own table
/// (`BrotherQLStatus`, `BrotherPTStatus`).
///
/// Layout (Brother's Raster Command References: QL-800/810W/820NWB, PT-E550W/P750W/P710BT
/// and PT-P900/P900W/P950NW/P910BT, "Status information request"): bytes 0–2 `80 20 42`,
/// 3 series ('4' QL, '0' P-touch), 4 model code, 6 battery level and 7 extended error (the
/// PT-P900 family; reserved elsewhere), 8 error information 1, 9 error information 2, 10
/// media width mm, 11 media type, 15 mode (the last `ESC i M`), 17 media length mm, 18
/// status type, 19 phase type, 20–21 phase number (high byte first), 22 notification
/// number, 24 tape colour, 25 text colour.
public struct BrotherStatusBlock: Sendable, Equatable {
  /// The status request, `ESC i S`.
  public static let request: [UInt8] = [0x1B, 0x69, 0x53]
  /// Size of a reply.
  public static let length = 32
  /// The fixed first three bytes of a reply.
  public static let header: [UInt8] = [0x80, 0x20, 0x42]

  /// Byte 18.
  public enum StatusType: Sendable, Equatable {
    case reply, printingCompleted, errorOccurred, exitedIFMode, turnedOff, notification
    case phaseChange
    case other(UInt8)

    init(_ b: UInt8) {
      switch b {
      case 0x00: self = .reply
      case 0x01: self = .printingCompleted
      case 0x02: self = .errorOccurred
      case 0x03: self = .exitedIFMode
      case 0x04: self = .turnedOff
      case 0x05: self = .notification
      case 0x06: self = .phaseChange
      default: self = .other(b)
      }
    }

    /// What the reply is, as drivers report status.
    public var kind: DeviceStatus.Kind {
      switch self {
      case .reply: .reply
      case .printingCompleted: .pagePrinted
      case .errorOccurred: .error
      case .turnedOff: .turnedOff
      default: .other
      }
    }
  }

  /// Byte 19.
  public enum Phase: Sendable, Equatable {
    /// Waiting for or receiving data ("editing state").
    case receiving
    case printing
    case other(UInt8)

    init(_ b: UInt8) {
      switch b {
      case 0x00: self = .receiving
      case 0x01: self = .printing
      default: self = .other(b)
      }
    }
  }

  /// Byte 3: `0x34` ('4') on QL printers, `0x30` ('0') on P-touch.
  public let series: UInt8
  /// Byte 4: Brother's model code.
  public let modelCode: UInt8
  /// Byte 6: battery level on the PT-P900 family (00 full … 04 AC adapter, FF unknown).
  public let batteryLevel: UInt8
  /// Byte 7: extended error on the PT-P900 family (0x21 incompatible media…); 0 elsewhere.
  public let extendedError: UInt8
  /// Byte 8.
  public let errorInformation1: UInt8
  /// Byte 9.
  public let errorInformation2: UInt8
  /// Byte 10.
  public let mediaWidthMM: Int
  /// Byte 11.
  public let mediaType: UInt8
  /// Byte 15: the mode the last `ESC i M` set.
  public let mode: UInt8
  /// Byte 17; 0 for continuous media.
  public let mediaLengthMM: Int
  public let statusType: StatusType
  public let phase: Phase
  /// Bytes 20–21, high byte first.
  public let phaseNumber: Int
  /// Byte 22.
  public let notification: UInt8
  /// Byte 24.
  public let tapeColour: UInt8
  /// Byte 25.
  public let textColour: UInt8

  /// Reads a reply; anything but 32 bytes starting `80 20 42` throws, saying why.
  public init(_ reply: some Collection<UInt8>) throws(DriverError) {
    let b = Array(reply)
    guard b.count == Self.length else {
      throw DriverError("status reply of \(b.count) bytes; expected 32")
    }
    guard Array(b[0..<3]) == Self.header else {
      throw DriverError(
        "status reply starts \(b[0..<3].map(hexByte).joined(separator: " ")); expected 80 20 42")
    }
    series = b[3]
    modelCode = b[4]
    batteryLevel = b[6]
    extendedError = b[7]
    errorInformation1 = b[8]
    errorInformation2 = b[9]
    mediaWidthMM = Int(b[10])
    mediaType = b[11]
    mode = b[15]
    mediaLengthMM = Int(b[17])
    statusType = StatusType(b[18])
    phase = Phase(b[19])
    phaseNumber = Int(b[20]) << 8 | Int(b[21])
    notification = b[22]
    tapeColour = b[24]
    textColour = b[25]
  }

  /// Error information 1 (low byte) and 2 (high byte) as one value.
  public var errorBits: UInt16 { UInt16(errorInformation1) | UInt16(errorInformation2) << 8 }

  /// The error bits in hex, for messages: "error bits 00 10".
  public var errorText: String {
    "error bits \(hexByte(errorInformation1)) \(hexByte(errorInformation2))"
  }

  /// The first status at the front of `input`: one reply starting `80 20 42` that
  /// `status` reads; anything else is skipped a byte at a time, to find the next header.
  static func scan(
    _ input: ArraySlice<UInt8>, _ status: (ArraySlice<UInt8>) -> DeviceStatus?
  ) -> StatusScan {
    guard input.count >= length else { return .needMore }
    let head = input.startIndex
    if input[head..<head + 3].elementsEqual(header),
      let read = status(input[head..<head + length])
    {
      return .status(read, consumed: length)
    }
    return .skip(1)
  }
}
