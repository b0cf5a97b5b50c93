/// A Global Trade Item Number, taken in the way GS1 defines it: the one place labeld parses
/// and checks GTINs (product barcodes, template literal data, `${barcode}` values filled at
/// render time, the ZPL encoder and the rasteriser all come through here).
///
/// GS1 General Specifications:
/// - §3.3.2 (GTIN formats): a GTIN has 8, 12, 13 or 14 digits (GTIN-8, GTIN-12, GTIN-13,
///   GTIN-14), the last one its check digit; a shorter GTIN sits right-justified in a
///   14-digit field with leading zeros and stays the same GTIN.
/// - §7.9.1 (standard check digit calculation): digits weighted 3, 1, 3, … from the right
///   of the digits before the check digit, which brings the sum up to a multiple of ten.
/// - §5.2 (EAN/UPC): an EAN-13 symbol carries a GTIN-13, or a GTIN-12 as 0 + its 12
///   digits (a UPC-A symbol's bars are those of an EAN-13 whose first digit is 0); a
///   UPC-A symbol carries a GTIN-12. GTIN-8 is carried by EAN-8 and GTIN-14 by ITF-14 or
///   GS1-128, never by these two.
///
/// A check digit is verified, never computed for the caller: a 12-digit value **is** a
/// GTIN-12 with its own check digit, and a wrong one is an error, not something to fix.
public struct GTIN: Sendable, Equatable, Hashable, CustomStringConvertible {
  /// The GTIN's digits as given: 8, 12, 13 or 14 of them, the last a correct check digit.
  public let digits: String

  /// Parses `code`; throws why it is not a GTIN (digits only, a GTIN length, its check
  /// digit).
  public init(_ code: String) throws(GTINError) {
    if let problem = Self.problem(code) { throw GTINError(reason: problem) }
    digits = code
  }

  public var description: String { digits }

  /// GTIN-8, GTIN-12, GTIN-13 or GTIN-14.
  public var length: Int { digits.count }

  /// The 13 digits an EAN-13 symbol carries for this GTIN: a GTIN-13 as it is, a GTIN-12
  /// as 0 + its 12 digits (§5.2); nil for a GTIN-8 or GTIN-14, which EAN-13 does not carry.
  public var ean13: String? {
    switch length {
    case 13: return digits
    case 12: return "0" + digits
    default: return nil
    }
  }

  /// The 12 digits a UPC-A symbol carries: a GTIN-12, or a GTIN-13 whose first digit is 0
  /// (the same GTIN-12 in a 13-digit field, §3.3.2); nil for every other GTIN.
  public var upca: String? {
    switch length {
    case 12: return digits
    case 13 where digits.first == "0": return String(digits.dropFirst())
    default: return nil
    }
  }

  /// Nil when `code` is a valid GTIN, else why not.
  public static func problem(_ code: String) -> String? {
    guard code.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
      return "must contain digits only"
    }
    guard [8, 12, 13, 14].contains(code.count) else {
      return
        "a GTIN has 8 (EAN-8), 12 (UPC-A), 13 (EAN-13) or 14 (GTIN-14) digits, got \(code.count)"
    }
    let digits = code.unicodeScalars.map { Int($0.value) - 48 }
    let expected = checkDigit(digits.dropLast())
    if let last = digits.last, last != expected {
      return "check digit is \(last), expected \(expected) (GS1 mod-10)"
    }
    return nil
  }

  /// The GS1 mod-10 check digit for the digits before it (§7.9.1): from the right, the
  /// digits are weighted 3, 1, 3, …; the check digit brings the sum to a multiple of ten.
  /// Leading zeros add nothing, so a GTIN-12 has the same check digit as 0 + it.
  public static func checkDigit<C: Collection>(_ body: C) -> Int where C.Element == Int {
    var sum = 0
    for (i, d) in body.reversed().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
    return (10 - sum % 10) % 10
  }
}

/// Why a value is not a GTIN.
public struct GTINError: Error, Sendable, Equatable {
  public var reason: String
  public init(reason: String) { self.reason = reason }
}
