import FoundationEssentials
import LabelCUPS
import LabelCore

/// A printer's real media as IPP names it: PWG 5101.1 self-describing names
/// (`class_name_WxHunit`) and media-col collections in hundredths of millimetres. A label
/// printer has one medium loaded: a die-cut label or a continuous roll, whose labels are
/// as long as each page printed on it.
struct PWGMedia: Sendable, Equatable {
  /// The loaded medium's name, as media-ready and media-default say it.
  var name: String
  /// Hundredths of millimetres.
  var width: Int
  /// The label's length; on a continuous roll, the length a page of no other size gets.
  var length: Int
  /// On a continuous roll: the shortest and longest label.
  var lengthRange: ClosedRange<Int>?
  /// `labels` or `continuous` (PWG 5100.7 media-type).
  var type: String

  /// The length a continuous roll's default page has (100 mm, as LPrint's 3.9 in).
  static let continuousDefaultLength = 10_000
  static let continuousShortest = 1_000

  /// Names well known for their size (LPrint's and PWG's): a 4 x 6 in shipping label is
  /// `na_index-4x6_4x6in` everywhere.
  private static let known: [(w: Int, h: Int, name: String)] = [
    (10160, 15240, "na_index-4x6_4x6in"),
    (5080, 2540, "oe_2x1-label_2x1in"),
    (3600, 8900, "oe_lg-address-label_1.4x3.5in"),
    (2860, 8890, "oe_address-label_1.125x3.5in"),
    (5400, 2500, "om_54x25mm-label_54x25mm"),
  ]

  init(_ media: Media, maxLength: Int?) {
    width = Self.hundredths(media.widthMM)
    if media.lengthMM <= 0 {
      length = Self.continuousDefaultLength
      lengthRange = Self.continuousShortest...max(Self.continuousShortest, maxLength ?? 100_000)
      type = "continuous"
      name = "roll_continuous_\(Self.number(width))x\(Self.number(length))mm"
    } else {
      length = Self.hundredths(media.lengthMM)
      lengthRange = nil
      type = "labels"
      let (w, h) = (width, length)
      name =
        Self.known.first { abs($0.w - w) <= 10 && abs($0.h - h) <= 10 }?.name
        ?? Self.name(width: w, length: h)
    }
  }

  /// media-supported: the loaded medium and, for a roll, its longest and shortest labels.
  var supported: [String] {
    guard let range = lengthRange else { return [name] }
    return [
      name, "roll_max_\(Self.number(width))x\(Self.number(range.upperBound))mm",
      "roll_min_\(Self.number(width))x\(Self.number(range.lowerBound))mm",
    ]
  }

  /// media-col of the loaded medium (media-col-ready, -default), margins 0.
  var collection: [IPPAttribute] {
    Self.collection(x: .integer(Int32(width)), y: .integer(Int32(length)), name: name, type: type)
  }

  /// media-col-database: the loaded medium and, for a roll, every length it prints.
  ///
  /// The loaded medium is listed twice, borderless and with margins of 0.01 mm (as LPrint
  /// lists its media): CUPS 2.4.2's PPD maker (`_ppdCreateFromIPP`, cups/ppd-cache.c) names
  /// a size whose margins are all 0 `NAME.Borderless` but writes `*DefaultPageSize: NAME`,
  /// so with borderless sizes only the default names none and pdftopdf lays every page on
  /// Letter (seen in IPPCUPSTests). Labels print to the edge either way.
  var database: [IPPValue] {
    var out: [IPPValue] = [
      .collection(collection),
      .collection(
        Self.collection(
          x: .integer(Int32(width)), y: .integer(Int32(length)), name: name, type: type,
          margin: 1)),
    ]
    if let range = lengthRange {
      out.append(
        .collection(
          Self.collection(
            x: .integer(Int32(width)),
            y: .range(Int32(range.lowerBound), Int32(clamping: range.upperBound)), name: nil,
            type: type)))
    }
    return out
  }

  /// media-size-supported.
  var sizes: [IPPValue] {
    var out: [IPPValue] = [
      .collection([
        IPPAttribute("x-dimension", .integer(Int32(width))),
        IPPAttribute("y-dimension", .integer(Int32(length))),
      ])
    ]
    if let range = lengthRange {
      out.append(
        .collection([
          IPPAttribute("x-dimension", .integer(Int32(width))),
          IPPAttribute(
            "y-dimension", .range(Int32(range.lowerBound), Int32(clamping: range.upperBound))),
        ]))
    }
    return out
  }

  private static func collection(
    x: IPPValue, y: IPPValue, name: String?, type: String, margin: Int32 = 0
  ) -> [IPPAttribute] {
    var out = [
      IPPAttribute("media-bottom-margin", .integer(margin)),
      IPPAttribute("media-left-margin", .integer(margin)),
      IPPAttribute("media-right-margin", .integer(margin)),
      IPPAttribute(
        "media-size",
        .collection([IPPAttribute("x-dimension", x), IPPAttribute("y-dimension", y)])),
    ]
    if let name { out.append(IPPAttribute("media-size-name", .keyword(name))) }
    out += [
      IPPAttribute("media-source", .keyword("main-roll")),
      IPPAttribute("media-top-margin", .integer(margin)),
      IPPAttribute("media-type", .keyword(type)),
    ]
    return out
  }

  /// A name for a die-cut label of no well-known size: in inches when both sides are whole
  /// eighths of an inch, else in millimetres. The name part carries no dots (PWG 5101.1:
  /// `[a-z0-9-]`), so a decimal point is written `p` there.
  static func name(width: Int, length: Int) -> String {
    func eighths(_ h: Int) -> Int? {
      let e = (Double(h) / 2540 * 8).rounded()
      return abs(e * 2540 / 8 - Double(h)) <= 5 && e > 0 ? Int(e) : nil
    }
    if let w = eighths(width), let l = eighths(length) {
      let size = "\(inches(w))x\(inches(l))"
      return "oe_\(size.replacing(".", with: "p"))-label_\(size)in"
    }
    let size = "\(number(width))x\(number(length))"
    return "om_\(size.replacing(".", with: "p"))mm-label_\(size)mm"
  }

  /// Eighths of an inch, as PWG writes a dimension: no trailing zeros.
  private static func inches(_ eighths: Int) -> String {
    let whole = eighths / 8
    let part = eighths % 8
    guard part != 0 else { return String(whole) }
    var fraction = String(part * 125)  // thousandths: 125, 250, …, 875
    while fraction.count < 3 { fraction = "0" + fraction }
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(whole).\(fraction)"
  }

  /// Hundredths of a millimetre as millimetres, no trailing zeros ("62", "28.6").
  static func number(_ hundredths: Int) -> String {
    let whole = hundredths / 100
    let part = hundredths % 100
    guard part != 0 else { return String(whole) }
    return part % 10 == 0 ? "\(whole).\(part / 10)" : "\(whole).\(part < 10 ? "0" : "")\(part)"
  }

  static func hundredths(_ mm: Double) -> Int {
    guard mm.isFinite, mm > 0, mm < 100_000 else { return 0 }
    return Int((mm * 100).rounded())
  }
}
