/// A TZe tape on one P-touch head: where its print area lies on the head's raster line.
///
/// From Brother's Raster Command References, section 2.3: 2.3.2 "Page size" (the tape's
/// width in dots and its width offset, the dots between the tape's edge and the print
/// area) and 2.3.5 "Raster line" (pins for the left margin, print area pins). The left
/// margin is counted from the first bit of the raster line (the most significant bit of
/// its first byte), as the P-touch drivers that read these tables count it.
public struct BrotherPTTape: Sendable, Hashable, CustomStringConvertible {
  /// The tape's nominal width: 3.5, 6, 9, 12, 18, 24 or 36 mm.
  public let widthMM: Double
  /// The width byte of `ESC i z` and of the status reply (4 for 3.5 mm tape).
  public let widthByte: UInt8
  /// Print area pins: the dots a page has across.
  public let printableDots: Int
  /// Pins before the print area, from the raster line's first bit.
  public let leftPins: Int
  /// The tape's width in dots (2.3.2 column 1).
  public let tapeDots: Int
  /// Dots between the tape's edge and its print area (2.3.2 column 5): where the print
  /// area starts on the page a CUPS filter is given for the tape.
  public let widthOffset: Int

  public var description: String { "\(millimetres(widthMM)) mm tape" }

  init(_ mm: Double, byte: UInt8, print: Int, left: Int, tape: Int, offset: Int) {
    widthMM = mm
    widthByte = byte
    printableDots = print
    leftPins = left
    tapeDots = tape
    widthOffset = offset
  }
}

/// A P-touch print head: resolution, pins, the tapes it takes and the page lengths it
/// prints (Raster Command References, 2.3.1, 2.3.4 and 2.3.5, laminated TZe tape at
/// normal resolution).
public struct BrotherPTHead: Sendable, Hashable {
  public let dpi: Int
  /// Bytes of a raster line, whatever the tape (16 or 70).
  public let bytesPerLine: Int
  public let tapes: [BrotherPTTape]
  /// The shortest and longest page in raster lines (4.4 mm and 1000 mm at 180 dpi, 4 mm
  /// and 1000 mm at 360 dpi).
  public let lineRange: ClosedRange<Int>
  /// The smallest feed amount `ESC i d` takes, in dots (2.3.3 "Feed amount": 2 mm at
  /// 180 dpi, 1 mm at 360 dpi; both 14 dots), which Brother's own driver sends.
  public let minimumFeed: Int

  /// Pins on the head's raster line.
  public var pins: Int { bytesPerLine * 8 }
  /// The widest tape it takes, in mm.
  public var widestTapeMM: Double { tapes.map(\.widthMM).max() ?? 0 }

  /// 128 pins at 180 dpi: PT-E550W, PT-P750W, PT-P710BT (Raster Command Reference
  /// PT-E550W/P750W/P710BT v1.01, 2.3.2 "TZe tape" and 2.3.5 "TZe tape" tables); the
  /// PT-P700 has the same head and the same print areas (its Windows driver's 12 mm
  /// output, in printer-driver-ptouch's examples, inks pins 29–98 as the 12 mm row says).
  public static let pins128 = BrotherPTHead(
    dpi: 180, bytesPerLine: 16,
    tapes: [
      .init(3.5, byte: 4, print: 24, left: 52, tape: 24, offset: 0),
      .init(6, byte: 6, print: 32, left: 48, tape: 42, offset: 5),
      .init(9, byte: 9, print: 50, left: 39, tape: 64, offset: 7),
      .init(12, byte: 12, print: 70, left: 29, tape: 84, offset: 7),
      .init(18, byte: 18, print: 112, left: 8, tape: 128, offset: 8),
      .init(24, byte: 24, print: 128, left: 0, tape: 170, offset: 21),
    ], lineRange: 31...7086, minimumFeed: 14)

  /// 560 pins at 360 dpi: PT-P900W, PT-P950NW (Raster Command Reference
  /// PT-P900/P900W/P950NW/P910BT v1.02, 2.3.2 and 2.3.5 "TZe tape" tables). Its print
  /// areas are not centred on the line: 45 pins before the 36 mm area, 61 after.
  public static let pins560 = BrotherPTHead(
    dpi: 360, bytesPerLine: 70,
    tapes: [
      .init(3.5, byte: 4, print: 48, left: 248, tape: 48, offset: 0),
      .init(6, byte: 6, print: 64, left: 240, tape: 84, offset: 10),
      .init(9, byte: 9, print: 106, left: 219, tape: 128, offset: 11),
      .init(12, byte: 12, print: 150, left: 197, tape: 170, offset: 10),
      .init(18, byte: 18, print: 234, left: 155, tape: 256, offset: 11),
      .init(24, byte: 24, print: 320, left: 112, tape: 340, offset: 10),
      .init(36, byte: 36, print: 454, left: 45, tape: 512, offset: 29),
    ], lineRange: 57...14173, minimumFeed: 14)

  /// The tape `mm` wide (3.5 also as 4, the width byte Brother reports for it).
  public func tape(widthMM mm: Double) -> BrotherPTTape? {
    tapes.first { abs($0.widthMM - mm) < 0.01 || Double($0.widthByte) == mm }
  }

  /// The tape whose width byte is `byte`.
  public func tape(widthByte byte: UInt8) -> BrotherPTTape? {
    tapes.first { $0.widthByte == byte }
  }
}

/// Brother P-touch raster models as data rows.
///
/// USB product ids (vendor 0x04F9) only where two sources agree: Brother's Raster Command
/// References (Appendix A: PT-E550W 0x2060, PT-P750W 0x2062, PT-P710BT 0x20AF; PT-P900W
/// 0x2085, PT-P950NW 0x2086), the Linux USB ID repository (PT-E550W, PT-P700 0x2061),
/// ptouch-print's device table (PT-E550W, PT-P700, PT-P750W 0x2062, PT-P710BT) and the
/// nbuchwitz/ptouch driver (PT-P900W, PT-P950NW). The USB ID repository gives 0x2065 for
/// the PT-P750W; ptouch-print names 0x2065 the P750W in P-Lite (mass storage) mode, beside
/// the P700's P-Lite 0x2064, and Brother's reference says 0x2062: the row has 0x2062.
/// Status model codes from the same references (byte 4: 'f' PT-E550W, 'h' PT-P750W, 'p'
/// PT-P950NW; the PT-P900W's is printed "o" (69h) there: 'o' is 0x6F, which another
/// status reader uses too).
public struct BrotherPTModel: Sendable, Hashable, CustomStringConvertible {
  /// Brother's USB vendor id.
  public static let usbVendorID: UInt16 = 0x04F9

  /// Model name as the IEEE-1284 device id's MDL field spells it ("PT-P700").
  public let name: String
  public let usbProductID: UInt16?
  /// Byte 4 of a status reply, where a reference gives it.
  public let statusModelCode: UInt8?
  public let head: BrotherPTHead
  /// NUL bytes that clear the command buffer before `ESC @` (100 in the PT-E550W
  /// reference and in the PT-P700 driver's output, 200 in the PT-P900 reference).
  public let invalidateCount: Int
  /// Has a half cutter (`ESC i K` bit 2): not the PT-P710BT ("not used", its reference),
  /// nor the PT-P700 (no half cut in its reference row or its PPD).
  public let hasHalfCutter: Bool
  /// Takes `ESC i A` (cut every n labels): not the PT-P710BT (its reference).
  public let hasCutEvery: Bool
  /// Marks the last page with 2 in `ESC i z` (the PT-P900 reference's "last page: 2";
  /// the PT-E550W reference knows only 0 and 1).
  public let marksLastPage: Bool

  public var description: String { name }

  init(
    _ name: String, usb: UInt16?, code: UInt8?, head: BrotherPTHead, halfCut: Bool,
    cutEvery: Bool = true
  ) {
    self.name = name
    self.usbProductID = usb
    self.statusModelCode = code
    self.head = head
    self.invalidateCount = head == .pins560 ? 200 : 100
    self.hasHalfCutter = halfCut
    self.hasCutEvery = cutEvery
    self.marksLastPage = head == .pins560
  }

  /// Every known model. All have an automatic full cutter and chain printing.
  public static let all: [BrotherPTModel] = [
    .init("PT-P700", usb: 0x2061, code: nil, head: .pins128, halfCut: false),
    .init("PT-P750W", usb: 0x2062, code: 0x68, head: .pins128, halfCut: true),
    .init("PT-E550W", usb: 0x2060, code: 0x66, head: .pins128, halfCut: true),
    .init(
      "PT-P710BT", usb: 0x20AF, code: nil, head: .pins128, halfCut: false, cutEvery: false),
    .init("PT-P900W", usb: 0x2085, code: 0x6F, head: .pins560, halfCut: true),
    .init("PT-P950NW", usb: 0x2086, code: 0x70, head: .pins560, halfCut: true),
  ]

  /// The model named `name` (case-insensitive, "PT-P700").
  public static func named(_ name: String) -> BrotherPTModel? {
    let key = name.uppercased()
    return all.first { $0.name == key }
  }

  /// The model a status reply's model code names.
  public static func statusModelCode(_ code: UInt8) -> BrotherPTModel? {
    all.first { $0.statusModelCode == code }
  }
}
