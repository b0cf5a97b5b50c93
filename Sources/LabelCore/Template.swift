/// A label template: media size and elements placed in millimetres from the top-left corner.
/// `${field}` in text and barcode data is filled from product data at render time.
public struct Template: Codable, Sendable, Equatable {
  public var name: String
  public var media: TemplateMedia
  public var elements: [Element]

  public init(name: String, media: TemplateMedia, elements: [Element]) {
    self.name = name
    self.media = media
    self.elements = elements
  }
}

/// The label size a template is drawn for. `lengthMM` 0 is not allowed: a template has a size.
///
/// On tape (Brother P-touch, DYMO LabelManager) a label reads along the tape: the tape is
/// its height, so the template is drawn scaled to the tape's printable height, and its
/// width runs along the tape. A template that `grow`s is as long as its content there:
/// each text keeps its size on one line (its box widened to the text, pushing what lies
/// beyond it along), and the label ends `marginMM` after the last dot, never shorter than
/// `minWidthMM`. On a roll or die-cut labels it prints at its own size, as any template.
public struct TemplateMedia: Codable, Sendable, Equatable {
  public var widthMM: Double
  public var lengthMM: Double
  /// On tape, the label's length follows its content. Default false: `widthMM` long.
  public var grow: Bool?
  /// The shortest a growing label gets, in the template's millimetres. Default `widthMM`.
  public var minWidthMM: Double?
  /// Blank tape after a growing label's last dot, in the template's millimetres. Default 2.
  public var marginMM: Double?

  public init(
    widthMM: Double, lengthMM: Double, grow: Bool? = nil, minWidthMM: Double? = nil,
    marginMM: Double? = nil
  ) {
    self.widthMM = widthMM
    self.lengthMM = lengthMM
    self.grow = grow
    self.minWidthMM = minWidthMM
    self.marginMM = marginMM
  }

  /// Whether the label grows with its content on tape.
  public var grows: Bool { grow ?? false }
  /// A growing label's trailing margin, in mm.
  public var margin: Double { marginMM ?? 2 }
  /// A growing label's shortest length, in mm.
  public var minimumWidth: Double { minWidthMM ?? widthMM }
}

/// Text alignment inside a text element's box.
public enum TextAlign: String, Codable, Sendable { case left, center, right }
/// Font weight.
public enum FontWeight: String, Codable, Sendable { case regular, bold }
/// What a text element does when its text does not fit its box.
public enum TextOverflow: String, Codable, Sendable { case shrink, wrap, clip }
/// The ink an element is drawn in. Red prints red only on a printer with a red/black roll
/// (Brother QL-800/810W/820NWB with DK-22251); everywhere else it prints black.
public enum InkColor: String, Codable, Sendable { case black, red }
/// Barcode symbologies every printer language supports.
public enum Symbology: String, Codable, Sendable, CaseIterable { case ean13, upca, code128, qr }

/// One element of a template. The JSON form carries `"type"`: text, barcode, box, line or
/// image. Positions are millimetres from the label's top-left corner; a rotated element's
/// `x`/`y` is the top-left corner of the area it covers once rotated.
public enum Element: Sendable, Equatable {
  case text(TextElement)
  case barcode(BarcodeElement)
  case box(BoxElement)
  case line(LineElement)
  case image(ImageElement)
}

/// Text from a literal with `${field}` substitution, laid out in a box.
public struct TextElement: Codable, Sendable, Equatable {
  /// Black by default; red prints red only on a red/black roll.
  public var color: InkColor?
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double
  public var text: String
  /// Font size in points (1 pt = 0.3528 mm). Default 10; at most `maxPoints`.
  public var size: Double?
  /// The largest font size a template may ask for: 1,000 pt is 35 cm, taller than any
  /// label's text box.
  public static let maxPoints = 1000.0
  public var weight: FontWeight?
  public var align: TextAlign?
  public var overflow: TextOverflow?
  /// Degrees clockwise: 0, 90, 180 or 270. `width` runs along the text either way.
  public var rotation: Int?
  /// A fontconfig family name for rasterised labels. Default "DejaVu Sans". ZPL printers
  /// draw text in their own scalable font.
  public var font: String?

  public init(
    x: Double, y: Double, width: Double, height: Double, text: String, size: Double? = nil,
    weight: FontWeight? = nil, align: TextAlign? = nil, overflow: TextOverflow? = nil,
    rotation: Int? = nil, font: String? = nil
  ) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
    self.text = text
    self.size = size
    self.weight = weight
    self.align = align
    self.overflow = overflow
    self.rotation = rotation
    self.font = font
  }
}

/// A barcode. `height` is the bar height for linear codes and the symbol size for QR.
public struct BarcodeElement: Codable, Sendable, Equatable {
  /// Black by default; red prints red only on a red/black roll.
  public var color: InkColor?
  public var x: Double
  public var y: Double
  public var symbology: Symbology
  public var data: String
  public var height: Double
  /// Narrow bar (or QR module) width in mm; rounded to whole device dots. Default 0.33;
  /// at most `maxModuleMM`.
  public var moduleWidth: Double?
  /// The widest module a template may ask for (linear codes are drawn with at most 10
  /// dots a module anyway; a 10 mm QR module is already 21 cm a side).
  public static let maxModuleMM = 10.0
  /// Print the human-readable digits under a linear code. Default true.
  public var humanReadable: Bool?
  public var rotation: Int?

  public init(
    x: Double, y: Double, symbology: Symbology, data: String, height: Double,
    moduleWidth: Double? = nil, humanReadable: Bool? = nil, rotation: Int? = nil
  ) {
    self.x = x
    self.y = y
    self.symbology = symbology
    self.data = data
    self.height = height
    self.moduleWidth = moduleWidth
    self.humanReadable = humanReadable
    self.rotation = rotation
  }
}

/// A rectangle outline (or filled when `fill`).
public struct BoxElement: Codable, Sendable, Equatable {
  /// Black by default; red prints red only on a red/black roll.
  public var color: InkColor?
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double
  /// Line thickness in mm. Default 0.3.
  public var thickness: Double?
  public var fill: Bool?

  public init(
    x: Double, y: Double, width: Double, height: Double, thickness: Double? = nil,
    fill: Bool? = nil
  ) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
    self.thickness = thickness
    self.fill = fill
  }
}

/// A PNG image scaled into its box, keeping its aspect ratio, and turned into black and
/// white dots by a 50% threshold (transparent parts are white).
public struct ImageElement: Codable, Sendable, Equatable {
  /// Black by default; red prints red only on a red/black roll.
  public var color: InkColor?
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double
  /// The PNG file, base64. At most 512 KiB decoded.
  public var png: String
  public var rotation: Int?

  public init(
    x: Double, y: Double, width: Double, height: Double, png: String, rotation: Int? = nil
  ) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
    self.png = png
    self.rotation = rotation
  }

  /// The largest PNG an image element may carry.
  public static let maxBytes = 512 * 1024
}

/// A straight line between two points.
public struct LineElement: Codable, Sendable, Equatable {
  /// Black by default; red prints red only on a red/black roll.
  public var color: InkColor?
  public var x1: Double
  public var y1: Double
  public var x2: Double
  public var y2: Double
  public var thickness: Double?

  public init(x1: Double, y1: Double, x2: Double, y2: Double, thickness: Double? = nil) {
    self.x1 = x1
    self.y1 = y1
    self.x2 = x2
    self.y2 = y2
    self.thickness = thickness
  }
}

extension Element {
  /// The element's ink (black unless it says red).
  public var color: InkColor {
    let c: InkColor? =
      switch self {
      case .text(let e): e.color
      case .barcode(let e): e.color
      case .box(let e): e.color
      case .line(let e): e.color
      case .image(let e): e.color
      }
    return c ?? .black
  }
}

extension Element: Codable {
  private enum TypeKey: String, CodingKey { case type }
  private enum Kind: String, Codable { case text, barcode, box, line, image }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: TypeKey.self)
    let raw = try c.decode(String.self, forKey: .type)
    guard let kind = Kind(rawValue: raw) else {
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: c,
        debugDescription: "unknown element type \"\(raw)\" (text, barcode, box, line, image)")
    }
    switch kind {
    case .text: self = .text(try TextElement(from: decoder))
    case .barcode: self = .barcode(try BarcodeElement(from: decoder))
    case .box: self = .box(try BoxElement(from: decoder))
    case .line: self = .line(try LineElement(from: decoder))
    case .image: self = .image(try ImageElement(from: decoder))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: TypeKey.self)
    switch self {
    case .text(let e):
      try c.encode(Kind.text, forKey: .type)
      try e.encode(to: encoder)
    case .barcode(let e):
      try c.encode(Kind.barcode, forKey: .type)
      try e.encode(to: encoder)
    case .box(let e):
      try c.encode(Kind.box, forKey: .type)
      try e.encode(to: encoder)
    case .line(let e):
      try c.encode(Kind.line, forKey: .type)
      try e.encode(to: encoder)
    case .image(let e):
      try c.encode(Kind.image, forKey: .type)
      try e.encode(to: encoder)
    }
  }
}
