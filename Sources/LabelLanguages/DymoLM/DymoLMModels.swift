/// A DYMO D1 tape width, with the page DYMO's CUPS driver gives it. D1 cassettes are
/// continuous tape: `Media(widthMM: W, lengthMM: 0, kind: "tape")`.
public enum DymoLMTape: Int, Sendable, CaseIterable, Comparable {
  case mm6 = 6, mm9 = 9, mm12 = 12, mm19 = 19, mm24 = 24

  public var widthMM: Int { rawValue }

  /// The tape of `widthMM` (within half a millimetre), if it is a D1 width.
  public init?(widthMM: Double) {
    guard let tape = Self.allCases.first(where: { abs(Double($0.rawValue) - widthMM) < 0.5 })
    else { return nil }
    self = tape
  }

  /// DYMO's number for it (`tape_width_t` in `LabelManagerDriver.h`, the PPDs'
  /// `cupsMediaType` 0–4).
  public var code: Int { Self.allCases.firstIndex(of: self) ?? 0 }

  /// The page width DYMO's PPDs give the tape, in points (`*PageSize w18h252` … `w68h252`:
  /// 18, 26, 35, 55, 68; lm400/lm450/lmpc/lmpc2/lmpnp.ppd from printer-driver-dymo 1.4.0).
  public var pagePoints: Int {
    switch self {
    case .mm6: 18
    case .mm9: 26
    case .mm12: 35
    case .mm19: 55
    case .mm24: 68
    }
  }

  /// Dots across the CUPS raster page for the tape at `dpi` (CUPS rounds the page's points
  /// to the nearest dot: 45, 65, 88, 138 and 170 at 180 dpi).
  public func rasterDots(dpi: Int = 180) -> Int { (pagePoints * dpi * 2 + 72) / 144 }

  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One LabelManager model as DYMO's CUPS filter drives it: the data row behind its
/// `ModelEntry`. Head and feed values are DYMO's (`CDriverInitializerLabelManager::
/// ProcessPPDOptions` in `CupsFilterLabelManager.cpp`, dymo-cups-drivers 1.4.0, the
/// source of Debian's printer-driver-dymo); tapes from the model's PPD; USB product ids
/// where two sources agree.
public struct DymoLMModel: Sendable, Equatable {
  /// "LabelManager PnP": the row is "DYMO " + name.
  public var name: String
  /// The printer-mode product id (vendor 0x0922), where two sources agree.
  public var productID: UInt16?
  /// The id the device has before it is switched to printer mode (the PnP, 280, 420P
  /// enumerate as a USB disk holding DYMO's Windows software; usb-modeswitch-data's udev
  /// rule sends `ESC Z 1` and the device comes back as `productID`).
  public var storageProductID: UInt16?
  /// Dots across the head at 180 dpi (DYMO's `MaxPrintableWidth`).
  public var headDots: Int
  /// The tape fed before and after a label, in lines (`NormalLeader`, 10.6 mm).
  public var normalLeader: Int
  /// The lines from the head to the cutter (`MinLeader`): fed at the end of a job so that
  /// the label's end reaches the cutter.
  public var cutterLines: Int
  /// A label shorter than this many lines is fed to it (`MinPageLines`).
  public var minPageLines: Int
  /// An automatic cutter (`ESC E` cuts); without one the labels of a job are divided by
  /// chain marks and the person cuts the tape (DYMO's `SupportAutoCut`).
  public var autoCut: Bool
  /// The tapes the model takes.
  public var tapes: [DymoLMTape]
  /// DYMO's per-tape correction of where the page sits on the head, in dots
  /// (`TapeAlignmentOffset`, set for the PC II only among these models).
  public var alignment: [DymoLMTape: Int]
  /// Whether the second byte of its `ESC A` answer names the loaded tape (DYMO's
  /// `CheckTapeSize` reads it for the PnP, 420P and 450).
  public var reportsTape: Bool

  public var headBytes: Int { headDots / 8 }
  public var rowName: String { "DYMO \(name)" }

  /// The models, longer names first (so that "LabelManager PC II" is not taken for the PC).
  ///
  /// - PnP: 64-dot head, 6–12 mm (lmpnp.ppd); ids 0x1001 → 0x1002 in usb-modeswitch-data,
  ///   labelle's table and Linux's usb.ids (0x1001).
  /// - 280: DYMO's filter has no row for it; labelle drives it as a PnP (64 dots, 12 mm
  ///   at most). Ids 0x1005 → 0x1006 in labelle's table and two other drivers' tables.
  /// - 420P: 128 dots, 6–19 mm; ids 0x1003 → 0x1004 in usb-modeswitch-data and labelle.
  /// - 400: 96 dots, cutter; id 0x0013 in usb.ids and a WebUSB driver's table.
  /// - 450: 128 dots, cutter; no product id from two sources (matched by its device id).
  /// - PC: 96 dots; id 0x0011 in labelle's table and two other drivers' tables.
  /// - PC II: 128 dots, DYMO's +2/−4 dot correction for 12/19 mm; only labelle lists an
  ///   id (0x001C), so it is matched by its device id.
  ///
  /// The lm400/lm450/lmpc/lmpc2 PPDs offer 6–24 mm; on the 96-dot heads a 19 or 24 mm page
  /// prints its first 96 columns (13.5 mm). Not in the table: the LabelManager 500TS
  /// (DYMO's filter gives it 256 dots and wraps its stream in `ESC Y` blocks, but there is
  /// no PPD and no USB id from two sources), the Wireless PnP (a community fork of DYMO's
  /// driver gives it 256 dots at 300 dpi, labelle drives it as a 180 dpi PnP: the sources
  /// disagree) and the LabelWriter 450 DUO's tape half (its device id says "LabelWriter").
  public static let all: [DymoLMModel] = [
    DymoLMModel(
      name: "LabelManager PC II", productID: nil, storageProductID: nil, headDots: 128,
      normalLeader: 75, cutterLines: 55, minPageLines: 133, autoCut: false,
      tapes: DymoLMTape.allCases, alignment: [.mm12: 2, .mm19: -4], reportsTape: false),
    DymoLMModel(
      name: "LabelManager PnP", productID: 0x1002, storageProductID: 0x1001, headDots: 64,
      normalLeader: 75, cutterLines: 58, minPageLines: 30, autoCut: false,
      tapes: [.mm6, .mm9, .mm12], alignment: [:], reportsTape: true),
    DymoLMModel(
      name: "LabelManager 420P", productID: 0x1004, storageProductID: 0x1003, headDots: 128,
      normalLeader: 75, cutterLines: 58, minPageLines: 63, autoCut: false,
      tapes: [.mm6, .mm9, .mm12, .mm19], alignment: [:], reportsTape: true),
    DymoLMModel(
      name: "LabelManager 280", productID: 0x1006, storageProductID: 0x1005, headDots: 64,
      normalLeader: 75, cutterLines: 58, minPageLines: 30, autoCut: false,
      tapes: [.mm6, .mm9, .mm12], alignment: [:], reportsTape: false),
    DymoLMModel(
      name: "LabelManager 400", productID: 0x0013, storageProductID: nil, headDots: 96,
      normalLeader: 75, cutterLines: 55, minPageLines: 133, autoCut: true,
      tapes: DymoLMTape.allCases, alignment: [:], reportsTape: false),
    DymoLMModel(
      name: "LabelManager 450", productID: nil, storageProductID: nil, headDots: 128,
      normalLeader: 75, cutterLines: 55, minPageLines: 133, autoCut: true,
      tapes: DymoLMTape.allCases, alignment: [:], reportsTape: true),
    DymoLMModel(
      name: "LabelManager PC", productID: 0x0011, storageProductID: nil, headDots: 96,
      normalLeader: 75, cutterLines: 55, minPageLines: 133, autoCut: false,
      tapes: DymoLMTape.allCases, alignment: [:], reportsTape: false),
  ]

  /// The model of a `DriverTable` row ("DYMO LabelManager PnP").
  public static func named(_ rowName: String) -> DymoLMModel? {
    all.first { $0.rowName == rowName }
  }

  /// Where DYMO's filter puts a page for `tape` on this head: the page's column 0 lands
  /// on head dot `shift`, and `columns` columns are sent (the raster page's width, or the
  /// head's when the page is wider: DYMO cuts a raster line to the head's bytes before
  /// centring it, so a wider page keeps its first columns).
  public func placement(for tape: DymoLMTape, dpi: Int = 180) -> (shift: Int, columns: Int) {
    let dots = tape.rasterDots(dpi: dpi)
    let bytes = min((dots + 7) / 8, headBytes)
    // `GetShiftValue`: (head − line) / 2, plus the model's correction.
    let shift = (headDots - bytes * 8) / 2 + (alignment[tape] ?? 0)
    return (shift, min(dots, bytes * 8))
  }

  /// The widest tape it takes, in mm.
  public var widestTapeMM: Int { tapes.map(\.widthMM).max() ?? 12 }
}
