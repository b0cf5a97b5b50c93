import LabelCore

/// How a Zebra printer should finish each label.
public enum ZPLPrintMode: String, Sendable {
  case tear = "T", cut = "C", peel = "P"
}

/// The media a Zebra printer has loaded, in its dots: what `^PW` and `^LL` say.
public struct ZPLMedia: Sendable, Equatable {
  /// `^PW`: the print width, the whole width of the media.
  public var widthDots: Int
  /// `^LL` for labels (die-cut, gap or black-mark media); nil for continuous media, whose
  /// label length each job gives.
  public var lengthDots: Int?

  public init(widthDots: Int, lengthDots: Int?) {
    self.widthDots = widthDots
    self.lengthDots = lengthDots
  }

  /// `media` at `dpi`; nil when its width is not known (0).
  public init?(_ media: Media, dpi: Int) {
    guard media.widthMM > 0 else { return nil }
    widthDots = dots(media.widthMM, dpi)
    lengthDots = media.lengthMM > 0 ? dots(media.lengthMM, dpi) : nil
  }
}

/// Per-job settings that are not part of the template.
public struct ZPLOptions: Sendable, Equatable {
  public var dpi: Int
  /// `~SD` darkness, 0–30; nil leaves the printer's setting.
  public var darkness: Int?
  public var mode: ZPLPrintMode?
  /// `^PQ` quantity of this label in one document.
  public var quantity: Int
  /// The printer's loaded media; nil when it is not known.
  public var media: ZPLMedia?

  public init(
    dpi: Int, darkness: Int? = nil, mode: ZPLPrintMode? = nil, quantity: Int = 1,
    media: ZPLMedia? = nil
  ) {
    self.dpi = dpi
    self.darkness = darkness
    self.mode = mode
    self.quantity = quantity
    self.media = media
  }

  /// `^PW` and `^LL` for a label `length` dots long, and `^LH0,0`. Zebra's ZPL II
  /// Programming Guide: `^PW`'s default is the "last permanently saved value" and `^LL`
  /// is "retained until you turn off the printer or send a new ^LL command" — both outlive
  /// the job (and are saved for good by `^JUS`, which labeld never sends). So they state
  /// the media, never the size of what is printed: `^PW` is the loaded media's width, and
  /// is left out when the media is not known, so the printer's configured width stands
  /// for the next job; `^LL` is the media's label length, or the label's own length on
  /// continuous or unknown media, where every job has to give its own.
  func mediaCommands(length: Int) -> String {
    var z = ""
    if let media { z += "^PW\(media.widthDots)" }
    z += "^LL\(media?.lengthDots ?? length)^LH0,0"
    return z
  }
}

/// Templates to native ZPL II: text in the scalable font `^A0` (UTF-8 via `^CI28`, field
/// data escaped with `^FH`), barcodes drawn by the printer itself (`^BE`, `^BU`, `^BC`,
/// `^BQ`) so bars land on whole dots, boxes and lines as `^GB`/`^GD`.
public enum ZPLEncoder {
  /// One label (`^XA` … `^XZ`) for `template` filled with `data`.
  /// Image elements cannot be drawn by the printer: `images` holds each one rasterised at
  /// `options.dpi`, by element index, and it is sent as a `^GFA` graphic.
  public static func label(
    _ template: Template, data: [String: String], options: ZPLOptions, images: [Int: Bitmap] = [:]
  ) throws(DrawingError) -> String {
    let dpi = options.dpi
    var z = ""
    if let darkness = options.darkness { z += "~SD\(String(format2: max(0, min(30, darkness))))" }
    z += "^XA^CI28"
    z += options.mediaCommands(length: dots(template.media.lengthMM, dpi))
    if let mode = options.mode { z += "^MM\(mode.rawValue)" }
    for (index, element) in template.elements.enumerated() {
      if case .image(let image) = element {
        guard let bitmap = images[index] else {
          throw DrawingError(
            field: "elements[\(index)].png", reason: "the image was not rasterised")
        }
        z += graphic(bitmap, x: dots(image.x, dpi), y: dots(image.y, dpi))
        continue
      }
      z += try encode(
        element, data: data, dpi: dpi, labelWidth: dots(template.media.widthMM, dpi),
        path: "elements[\(index)]")
    }
    z += "^PQ\(max(1, options.quantity))^XZ"
    return z
  }

  private static func encode(
    _ element: Element, data: [String: String], dpi: Int, labelWidth: Int, path: String
  ) throws(DrawingError) -> String {
    switch element {
    case .text(let t):
      let text = try t.filledText(data)
      return TextField(t, text: text, dpi: dpi).zpl
    case .barcode(let b):
      let value = try b.filledData(data, path: path)
      let field = BarcodeField(b, data: value, dpi: dpi)
      if let width = field.widthDots, dots(b.x, dpi) + width > labelWidth {
        throw DrawingError(
          field: "\(path).x",
          reason:
            "the \(b.symbology.rawValue) symbol is \(width) dots wide at \(dpi) dpi and runs past "
            + "the label's right edge (\(labelWidth) dots); move it left or use a smaller moduleWidth"
        )
      }
      return field.zpl
    case .box(let b):
      let w = max(1, dots(b.width, dpi))
      let h = max(1, dots(b.height, dpi))
      let t = (b.fill ?? false) ? min(w, h) : max(1, dots(b.thickness ?? 0.3, dpi))
      return "^FO\(dots(b.x, dpi)),\(dots(b.y, dpi))^GB\(w),\(h),\(min(t, min(w, h))),B,0^FS"
    case .line(let l):
      let t = max(1, dots(l.thickness ?? 0.3, dpi))
      let x1 = dots(l.x1, dpi)
      let y1 = dots(l.y1, dpi)
      let x2 = dots(l.x2, dpi)
      let y2 = dots(l.y2, dpi)
      let w = abs(x2 - x1)
      let h = abs(y2 - y1)
      if w == 0 || h == 0 {
        return "^FO\(min(x1, x2)),\(min(y1, y2))^GB\(max(w, t)),\(max(h, t)),\(t),B,0^FS"
      }
      // Diagonal: ^GD leans right ("/", rising) or left ("\").
      let leaning = (x2 > x1) == (y2 < y1) ? "R" : "L"
      return "^FO\(min(x1, x2)),\(min(y1, y2))^GD\(w),\(h),\(t),B,\(leaning)^FS"
    case .image:
      return ""  // placed by the caller from its rasterised bitmap
    }
  }

  /// A bitmap placed at (`x`, `y`) dots as `^GFA` with Zebra's ASCII compression:
  /// `^GFA,<total bytes>,<total bytes>,<bytes per row>,<data>`.
  public static func graphic(_ bitmap: Bitmap, x: Int, y: Int) -> String {
    let total = bitmap.bytesPerRow * bitmap.height
    return "^FO\(x),\(y)^GFA,\(total),\(total),\(bitmap.bytesPerRow),\(ZebraHex.encode(bitmap))^FS"
  }

  /// A whole label that prints `bitmap` (a rasterised label or a PNG document) at its
  /// top-left corner. `^PW`/`^LL` describe the media (`ZPLOptions.mediaCommands`), not the
  /// bitmap: a PNG smaller than the label must not leave the printer narrower.
  public static func label(_ bitmap: Bitmap, options: ZPLOptions) -> String {
    var z = ""
    if let darkness = options.darkness { z += "~SD\(String(format2: max(0, min(30, darkness))))" }
    z += "^XA" + options.mediaCommands(length: bitmap.height)
    if let mode = options.mode { z += "^MM\(mode.rawValue)" }
    z += graphic(bitmap, x: 0, y: 0)
    z += "^PQ\(max(1, options.quantity))^XZ"
    return z
  }

  /// Field data for `^FH_^FD…^FS`: `^`, `~`, `_`, `\` and control bytes as `_xx` hex, so
  /// no product name can end a field or start a command. UTF-8 passes as is (`^CI28`).
  public static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "^", "~", "_", "\\":
        out += "_" + hex(UInt8(scalar.value))
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        out += "_" + hex(UInt8(scalar.value))
      default:
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  static func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
  }

  /// The ZPL orientation letter for a rotation in degrees clockwise.
  static func orientation(_ rotation: Int?) -> String {
    switch rotation ?? 0 {
    case 90: return "R"
    case 180: return "I"
    case 270: return "B"
    default: return "N"
    }
  }
}

extension String {
  /// Two-digit zero-padded decimal (`~SD` wants 00–30).
  fileprivate init(format2 n: Int) {
    self = n < 10 ? "0\(n)" : "\(n)"
  }
}
