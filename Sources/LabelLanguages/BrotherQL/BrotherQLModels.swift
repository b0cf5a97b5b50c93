/// Brother QL printer models as data rows.
///
/// Sources: raster capabilities from brother_ql (pklaus/brother_ql `models.py`, and the
/// brother_ql_next fork, which adds the QL-600/11xx rows and the 400-byte invalidate on the
/// QL-8xx); USB product ids agreed by two independent peer drivers, one citing the USB ID
/// repository (a third source gives 0x2013 for the QL-500; both others say 0x2015).
public struct BrotherQLModel: Sendable, Hashable, CustomStringConvertible {
  /// Brother's USB vendor id.
  public static let usbVendorID: UInt16 = 0x04F9

  /// Model name as the IEEE-1284 device id's MDL field spells it ("QL-820NWB").
  public let name: String
  public let usbProductID: UInt16?
  /// Byte 4 of a status reply. One source (a peer Java driver), matching Brother's QL-800
  /// reference for 0x38/0x39/0x41; the QL-500 and QL-550 share 0x4F.
  public let statusModelCode: UInt8
  /// Bytes per raster line: 90 (720 head pins) or 162 (1296 pins on the wide QL-10xx/11xx).
  public let bytesPerLine: Int
  /// Can print black and red on DK-22251 (the raster's two-colour mode).
  public let twoColor: Bool
  /// NUL bytes that clear the command buffer before `ESC @` (400 on the QL-8xx).
  public let invalidateCount: Int
  /// Has an automatic cutter (`ESC i M`, `ESC i A`).
  public let hasCutter: Bool
  /// Accepts `ESC i K` (expanded mode: cut at end, 600-dpi high resolution).
  public let hasExpandedMode: Bool
  /// Accepts `ESC i a` (switch to raster mode); older USB-only models are always in it.
  public let hasModeSwitch: Bool
  /// Accepts `M 02` (PackBits lines); some USB-only models take only raw lines.
  public let hasCompression: Bool
  /// Extra dots between the line's first pin and the media's margin (brother_ql's
  /// `additional_offset_r`: the wide head is offset by 44 dots).
  public let extraMargin: Int
  /// Raster lines a page may have (brother_ql's `min_max_length_dots`, at 300 dpi). The
  /// encoder enforces only the maximum; brother_ql refuses shorter continuous pages, so a
  /// caller printing short labels pads them to `lineRange.lowerBound`.
  public let lineRange: ClosedRange<Int>

  /// Dots per raster line.
  public var dotsPerLine: Int { bytesPerLine * 8 }
  /// The wide (162-byte) head of the QL-10xx/11xx.
  public var isWide: Bool { bytesPerLine == 162 }
  /// 600-dpi (vertical) printing is set through expanded mode.
  public var hasHighResolution: Bool { hasExpandedMode }
  public var description: String { name }

  init(
    _ name: String, code: UInt8, usb: UInt16?, lines: ClosedRange<Int>, wide: Bool = false,
    twoColor: Bool = false, invalidate: Int = 200, cutter: Bool = true, expanded: Bool = true,
    modeSwitch: Bool = true, compression: Bool = true
  ) {
    self.name = name
    self.statusModelCode = code
    self.usbProductID = usb
    self.bytesPerLine = wide ? 162 : 90
    self.twoColor = twoColor
    self.invalidateCount = invalidate
    self.hasCutter = cutter
    self.hasExpandedMode = expanded
    self.hasModeSwitch = modeSwitch
    self.hasCompression = compression
    self.extraMargin = wide ? 44 : 0
    self.lineRange = lines
  }

  /// Every known model. Flags are brother_ql's: `compression: false` and `modeSwitch: false`
  /// where it found the USB-only models reject those commands.
  public static let all: [BrotherQLModel] = [
    .init(
      "QL-500", code: 0x4F, usb: 0x2015, lines: 295...11811, cutter: false, expanded: false,
      modeSwitch: false, compression: false),
    .init(
      "QL-550", code: 0x4F, usb: 0x2016, lines: 295...11811, modeSwitch: false, compression: false),
    .init(
      "QL-560", code: 0x31, usb: 0x2027, lines: 295...11811, modeSwitch: false, compression: false),
    .init(
      "QL-570", code: 0x32, usb: 0x2028, lines: 150...11811, modeSwitch: false, compression: false),
    .init("QL-580N", code: 0x33, usb: 0x2029, lines: 150...11811),
    .init("QL-600", code: 0x47, usb: 0x20C0, lines: 150...11811),
    .init("QL-650TD", code: 0x51, usb: 0x201B, lines: 295...11811),
    .init(
      "QL-700", code: 0x35, usb: 0x2042, lines: 150...11811, modeSwitch: false, compression: false),
    .init("QL-710W", code: 0x36, usb: 0x2043, lines: 150...11811),
    .init("QL-720NW", code: 0x37, usb: 0x2044, lines: 150...11811),
    .init(
      "QL-800", code: 0x38, usb: 0x209B, lines: 150...11811, twoColor: true, invalidate: 400,
      compression: false),
    .init("QL-810W", code: 0x39, usb: 0x209C, lines: 150...11811, twoColor: true, invalidate: 400),
    .init(
      "QL-820NWB", code: 0x41, usb: 0x209D, lines: 150...11811, twoColor: true, invalidate: 400),
    .init("QL-1050", code: 0x50, usb: 0x2020, lines: 295...35433, wide: true),
    .init("QL-1060N", code: 0x34, usb: 0x202A, lines: 295...35433, wide: true),
    .init("QL-1100", code: 0x43, usb: 0x20A7, lines: 301...35434, wide: true),
    .init("QL-1110NWB", code: 0x44, usb: 0x20A8, lines: 301...35434, wide: true),
    .init("QL-1115NWB", code: 0x45, usb: 0x20AB, lines: 301...35434, wide: true),
  ]

  /// The model named `name` (case-insensitive, "QL-820NWB").
  public static func named(_ name: String) -> BrotherQLModel? {
    let key = name.uppercased()
    return all.first { $0.name == key }
  }

  /// The model a status reply's model code names (the first of models sharing a code).
  public static func statusModelCode(_ code: UInt8) -> BrotherQLModel? {
    all.first { $0.statusModelCode == code }
  }

  /// The model with USB product id `productID` (vendor `usbVendorID`).
  public static func usb(productID: UInt16) -> BrotherQLModel? {
    all.first { $0.usbProductID == productID }
  }
}

/// A DK roll: continuous tape or die-cut labels, with where its printable area sits on
/// the head.
///
/// Geometry is brother_ql's label table (300 dpi): `printableWidth` is its
/// `dots_printable` width and `leftMargin` its `offset_r` — named "right" there because
/// it is counted before the image is mirrored; on the wire it is the first dots of the line.
public struct BrotherQLMedia: Sendable, Hashable, CustomStringConvertible {
  public enum Kind: UInt8, Sendable {
    /// Continuous-length tape (the `ESC i z` and status media-type byte 0x0A).
    case continuous = 0x0A
    /// Die-cut labels, round ones included (0x0B).
    case dieCut = 0x0B
  }

  /// brother_ql's identifier ("62", "29x90", "d24").
  public let id: String
  public let kind: Kind
  public let widthMM: Int
  /// Label length in mm; 0 for continuous tape.
  public let lengthMM: Int
  /// Printable dots across (300 dpi).
  public let printableWidth: Int
  /// Printable dots along a die-cut label (300 dpi); 0 for continuous tape.
  public let printableLength: Int
  /// Head dots left blank before the printable area, on a standard head.
  public let leftMargin: Int
  /// Feed amount for `ESC i d`, in dots (35 for continuous tape and the small round label).
  public let feedMargin: Int
  /// Only the wide-head models take this roll (102–104 mm).
  public let needsWideHead: Bool
  /// The roll prints red as well as black (DK-22251, brother_ql's "62red"): only the
  /// two-colour models take it, and every job on it is sent in two-colour mode.
  public let redBlack: Bool

  public var description: String { id }

  init(
    _ id: String, _ kind: Kind, mm: (Int, Int), printable: (Int, Int), margin: Int,
    feed: Int = 0, wide: Bool = false, red: Bool = false
  ) {
    self.id = id
    self.kind = kind
    self.widthMM = mm.0
    self.lengthMM = mm.1
    self.printableWidth = printable.0
    self.printableLength = printable.1
    self.leftMargin = margin
    self.feedMargin = feed
    self.needsWideHead = wide
    self.redBlack = red
  }

  /// Every known roll. brother_ql keys the 38 × 90 mm label "39x90"; the id here is the
  /// real size. P-touch tapes are left out: this encoder does not produce their raster.
  public static let all: [BrotherQLMedia] = [
    .init("12", .continuous, mm: (12, 0), printable: (106, 0), margin: 29, feed: 35),
    .init("29", .continuous, mm: (29, 0), printable: (306, 0), margin: 6, feed: 35),
    .init("38", .continuous, mm: (38, 0), printable: (413, 0), margin: 12, feed: 35),
    .init("50", .continuous, mm: (50, 0), printable: (554, 0), margin: 12, feed: 35),
    .init("54", .continuous, mm: (54, 0), printable: (590, 0), margin: 0, feed: 35),
    .init("62", .continuous, mm: (62, 0), printable: (696, 0), margin: 12, feed: 35),
    // DK-22251: the 62 mm roll's geometry; its status says 62 mm continuous like DK-22205.
    .init("62red", .continuous, mm: (62, 0), printable: (696, 0), margin: 12, feed: 35, red: true),
    .init(
      "102", .continuous, mm: (102, 0), printable: (1164, 0), margin: 12, feed: 35, wide: true),
    .init(
      "104", .continuous, mm: (104, 0), printable: (1200, 0), margin: 12, feed: 35, wide: true),
    .init("17x54", .dieCut, mm: (17, 54), printable: (165, 566), margin: 0),
    .init("17x87", .dieCut, mm: (17, 87), printable: (165, 956), margin: 0),
    .init("23x23", .dieCut, mm: (23, 23), printable: (202, 202), margin: 42),
    .init("29x42", .dieCut, mm: (29, 42), printable: (306, 425), margin: 6),
    .init("29x90", .dieCut, mm: (29, 90), printable: (306, 991), margin: 6),
    .init("38x90", .dieCut, mm: (38, 90), printable: (413, 991), margin: 12),
    .init("39x48", .dieCut, mm: (39, 48), printable: (425, 495), margin: 6),
    .init("52x29", .dieCut, mm: (52, 29), printable: (578, 271), margin: 0),
    .init("54x29", .dieCut, mm: (54, 29), printable: (598, 271), margin: 60),
    .init("60x87", .dieCut, mm: (60, 87), printable: (672, 954), margin: 18),
    .init("62x29", .dieCut, mm: (62, 29), printable: (696, 271), margin: 12),
    .init("62x100", .dieCut, mm: (62, 100), printable: (696, 1109), margin: 12),
    .init("102x51", .dieCut, mm: (102, 51), printable: (1164, 526), margin: 12, wide: true),
    .init("102x153", .dieCut, mm: (102, 153), printable: (1164, 1660), margin: 12, wide: true),
    .init("104x164", .dieCut, mm: (104, 164), printable: (1200, 1822), margin: 12, wide: true),
    .init("d12", .dieCut, mm: (12, 12), printable: (94, 94), margin: 113, feed: 35),
    .init("d24", .dieCut, mm: (24, 24), printable: (236, 236), margin: 42),
    .init("d58", .dieCut, mm: (58, 58), printable: (618, 618), margin: 51),
  ]

  /// The roll with identifier `id` ("62", "29x90"); brother_ql's aliases "39x90",
  /// "102x152", "103" and "103x164" are accepted too.
  public static func named(_ id: String) -> BrotherQLMedia? {
    let aliases = ["39x90": "38x90", "102x152": "102x153", "103": "104", "103x164": "104x164"]
    let key = aliases[id.lowercased()] ?? id.lowercased()
    return all.first { $0.id == key }
  }

  /// The roll a status reply reports (width and length in mm, kind). Round labels report
  /// as die-cut; no round and square roll share a size, so the answer is unique.
  /// A red/black roll reports as the black one of its size: the black roll is returned.
  public static func matching(widthMM: Int, lengthMM: Int, kind: Kind) -> BrotherQLMedia? {
    let length = kind == .continuous ? 0 : lengthMM
    return all.first {
      $0.kind == kind && $0.widthMM == widthMM && $0.lengthMM == length && !$0.redBlack
    }
  }

  /// The continuous roll of width `mm`.
  public static func continuous(widthMM mm: Int) -> BrotherQLMedia? {
    matching(widthMM: mm, lengthMM: 0, kind: .continuous)
  }

  /// Head dots before the printable area on `model` (its own offset included).
  public func leftMargin(on model: BrotherQLModel) -> Int { leftMargin + model.extraMargin }

  /// Whether `model`'s head covers this roll's printable area.
  public func fits(_ model: BrotherQLModel) -> Bool {
    (!needsWideHead || model.isWide) && (!redBlack || model.twoColor)
      && leftMargin(on: model) + printableWidth <= model.dotsPerLine
  }
}
