/// How a document's page is placed on a label: IPP's print-scaling (PWG 5100.13 §6.2.x;
/// PAPPL's reading of it for `auto`).
public enum PrintScaling: String, Sendable, CaseIterable {
  /// `none` if the page fits at its own size, else `fill` (labels are borderless).
  case auto
  /// `none` if the page fits at its own size, else `fit`.
  case autoFit = "auto-fit"
  /// The whole page, as large as it fits, centred.
  case fit
  /// The whole label covered, the page centred and cut.
  case fill
  /// The page at its own size (from its resolution), centred and cut.
  case none
}

/// IPP orientation-requested (RFC 8011 §5.2.10): how the page turns onto the label.
public enum PageOrientation: Int, Sendable, CaseIterable {
  case portrait = 3
  /// Turned 90° counter-clockwise.
  case landscape = 4
  /// Turned 90° clockwise.
  case reverseLandscape = 5
  case reversePortrait = 6

  /// Quarter turns clockwise.
  var quarterTurns: Int {
    switch self {
    case .portrait: 0
    case .landscape: 3
    case .reverseLandscape: 1
    case .reversePortrait: 2
    }
  }
}

/// Where a page is printed: the label's printable area in dots at `dpi`; `length` nil on
/// continuous media, whose label is as long as the page placed on it, up to `maxLength`.
public struct LabelArea: Sendable, Equatable {
  public var width: Int
  public var length: Int?
  public var maxLength: Int
  public var dpi: Int

  public init(width: Int, length: Int?, maxLength: Int, dpi: Int) {
    self.width = width
    self.length = length
    self.maxLength = maxLength
    self.dpi = dpi
  }
}

/// A page placed: turned `quarterTurns` clockwise, then scaled by `scale` (dots per source
/// unit) and moved so its turned top-left lands at (`x`, `y`) on a label of
/// `width` x `height` dots.
public struct PagePlacement: Sendable, Equatable {
  public var quarterTurns: Int
  public var scale: Double
  public var x: Double
  public var y: Double
  public var width: Int
  public var height: Int
}

public enum PageLayout {
  /// Places a page `sourceWidth` x `sourceHeight` units large, `unitsPerInch` of them an
  /// inch (nil when its size is not known: an image without a resolution, which is then
  /// scaled to the label whatever `scaling` says, as PAPPL does).
  public static func place(
    sourceWidth: Double, sourceHeight: Double, unitsPerInch: Double?, on area: LabelArea,
    scaling: PrintScaling, orientation: PageOrientation?
  ) -> PagePlacement {
    let turns =
      orientation?.quarterTurns ?? autoTurns(sourceWidth, sourceHeight, unitsPerInch, area)
    let (w, h) = turns % 2 == 0 ? (sourceWidth, sourceHeight) : (sourceHeight, sourceWidth)
    let natural = unitsPerInch.map { Double(area.dpi) / $0 }
    let across = Double(area.width)
    var mode = scaling
    if mode == .auto || mode == .autoFit {
      if let natural, w * natural <= across + 0.5,
        area.length.map({ h * natural <= Double($0) + 0.5 }) ?? true
      {
        mode = .none
      } else {
        mode = scaling == .auto ? .fill : .fit
      }
    }
    if mode == .none && natural == nil { mode = .fit }
    let scale: Double
    switch (mode, area.length) {
    case (.none, _): scale = natural ?? 1
    case (_, nil): scale = across / w
    case (.fit, let length?): scale = min(across / w, Double(length) / h)
    default: scale = max(across / w, Double(area.length ?? 1) / h)
    }
    let height: Int
    if let length = area.length {
      height = length
    } else {
      // A page of no size (or an absurd one, a PDF's MediaBox says what it likes) must not
      // trap the conversion: its length is clamped before it is made an Int.
      let length = (h * scale).rounded()
      height = length.isFinite ? max(1, min(area.maxLength, Int(min(length, 1e9)))) : 1
    }
    return PagePlacement(
      quarterTurns: turns, scale: scale, x: (across - w * scale) / 2,
      y: (Double(height) - h * scale) / 2, width: area.width, height: height)
  }

  /// Without orientation-requested: on a die-cut label, a landscape page on a portrait
  /// label (or the other way) is turned (PAPPL turns it counter-clockwise); on continuous
  /// media, the page's side nearer the roll's width goes across it.
  static func autoTurns(_ w: Double, _ h: Double, _ unitsPerInch: Double?, _ area: LabelArea)
    -> Int
  {
    guard let length = area.length else {
      guard let unitsPerInch, w > h else { return 0 }
      let across = Double(area.width) / Double(area.dpi) * unitsPerInch
      return abs(h - across) < abs(w - across) ? 3 : 0
    }
    let labelLandscape = area.width > length
    let pageLandscape = w > h
    return labelLandscape != pageLandscape && w != h ? 3 : 0
  }
}
