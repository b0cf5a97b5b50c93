import LabelCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// JSON being written, in the one form labeld writes everywhere (answers, notifications,
/// the store's rows, the alert journal): compact; object keys in the order of their UTF-8
/// bytes; strings escaped as RFC 8259 requires (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// other control characters as `\u00xx`; `/` and everything else as it is); numbers in
/// the shortest form that reads back as the same double (`2.49`, `1e-07`, `100`), a
/// `Decimal` as its own digits; times RFC 3339 in UTC to the second, floored. It is the
/// form Foundation's `JSONEncoder` wrote with `.sortedKeys` and `.withoutEscapingSlashes`,
/// which labeld used before; the golden tests hold the two byte for byte.
public struct JSONOutput: Sendable {
  public var bytes: [UInt8]

  public init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  /// Bytes that are JSON already (a key with its quotes and colon, punctuation, a value
  /// written before).
  @inline(__always)
  public mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  @inline(__always)
  public mutating func raw(_ more: [UInt8]) { bytes.append(contentsOf: more) }

  @inline(__always)
  public mutating func byte(_ b: UInt8) { bytes.append(b) }

  public mutating func null() { raw("null") }

  public mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

  public mutating func int<T: BinaryInteger>(_ value: T) {
    if value == 0 {
      bytes.append(0x30)
      return
    }
    // Digits from the end, in a small stack buffer: no String made.
    var magnitude = value.magnitude
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in
      var n = 0
      while magnitude > 0 {
        let (q, r) = magnitude.quotientAndRemainder(dividingBy: 10)
        digits[n] = 0x30 + UInt8(truncatingIfNeeded: r)
        n += 1
        magnitude = q
      }
      if value < 0 { bytes.append(0x2D) }
      while n > 0 {
        n -= 1
        bytes.append(digits[n])
      }
    }
  }

  /// A double: its shortest round-trip digits (Swift's `description`, which is that),
  /// without a trailing `.0`; JSON has no infinity or NaN, so those are written as the
  /// strings `"Infinity"`, `"-Infinity"` and `"NaN"` (inputs are checked so that none
  /// reaches a value labeld writes; should one slip through, it is not a crash).
  public mutating func double(_ value: Double) {
    guard value.isFinite else {
      string(value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity")
      return
    }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    bytes.append(contentsOf: text.utf8)
  }

  /// A decimal as its own digits (`2.49`, `0.0000000001`), never through a double.
  /// A decimal as its own digits (`2.49`, `0.0000000001`), never through a double: the
  /// text of `Decimal.description`. That divides the 128-bit mantissa by ten a digit at a
  /// time and builds a String (a sixth of a page of products' time); a mantissa of up to
  /// 64 bits, any price's, is written from a `UInt64` instead.
  public mutating func decimal(_ value: Decimal) {
    guard DecimalBytes.layoutHolds, let parts = DecimalBytes.parts(value) else {
      bytes.append(contentsOf: value.description.utf8)
      return
    }
    DecimalBytes.write(parts, into: &bytes)
  }

  /// A time, RFC 3339 in UTC to the second (floored): `"2026-12-02T10:00:00Z"`.
  public mutating func date(_ value: Date) {
    bytes.append(0x22)
    RFC3339.write(value, into: &bytes)
    bytes.append(0x22)
  }

  /// A string, quoted and escaped.
  public mutating func string(_ value: String) {
    bytes.append(0x22)
    var value = value
    value.withUTF8 { utf8 in
      var start = 0
      for i in 0..<utf8.count {
        let b = utf8[i]
        guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
        if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i])) }
        start = i + 1
        switch b {
        case 0x22: raw(#"\""#)
        case 0x5C: raw(#"\\"#)
        case 0x08: raw(#"\b"#)
        case 0x0C: raw(#"\f"#)
        case 0x0A: raw(#"\n"#)
        case 0x0D: raw(#"\r"#)
        case 0x09: raw(#"\t"#)
        default:
          raw(#"\u00"#)
          bytes.append(Self.hex[Int(b >> 4)])
          bytes.append(Self.hex[Int(b & 0xF)])
        }
      }
      if start < utf8.count {
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
      }
    }
    bytes.append(0x22)
  }

  private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}

/// RFC 3339 times in UTC to the second, written and read without a formatter object:
/// labeld writes one for every job and product it answers with.
public enum RFC3339 {
  /// Writes `YYYY-MM-DDTHH:MM:SSZ` (seconds floored). Years outside 0...9999 are written
  /// by Foundation's ISO 8601 style, as before.
  public static func write(_ date: Date, into bytes: inout [UInt8]) {
    let t = date.timeIntervalSince1970
    guard t.isFinite, t >= -62_167_219_200, t < 253_402_300_800 else {
      bytes.append(contentsOf: date.formatted(Date.ISO8601FormatStyle()).utf8)
      return
    }
    let seconds = Int(t.rounded(.down))
    let (days, secondOfDay) = floorDivision(seconds, 86_400)
    let (year, month, day) = civil(fromDays: days)
    // Twenty bytes made room for once and filled in place: an append each was a large
    // part of writing a job.
    let start = bytes.count
    bytes.append(contentsOf: "0000-00-00T00:00:00Z".utf8)
    bytes.withUnsafeMutableBufferPointer { b in
      func two(_ n: Int, at i: Int) {
        b[start + i] = 0x30 + UInt8(truncatingIfNeeded: n / 10)
        b[start + i + 1] = 0x30 + UInt8(truncatingIfNeeded: n % 10)
      }
      two(year / 100, at: 0)
      two(year % 100, at: 2)
      two(month, at: 5)
      two(day, at: 8)
      two(secondOfDay / 3600, at: 11)
      two(secondOfDay / 60 % 60, at: 14)
      two(secondOfDay % 60, at: 17)
    }
  }

  /// The time `text` names when it is exactly `YYYY-MM-DDTHH:MM:SSZ`, else nil (the caller
  /// then asks Foundation, for the forms this does not read).
  public static func parse(_ text: String) -> Date? {
    var text = text
    return text.withUTF8 { b -> Date? in
      guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A,
        b[16] == 0x3A, b[19] == 0x5A
      else { return nil }
      func number(_ at: Int, _ count: Int) -> Int? {
        var n = 0
        for i in at..<(at + count) {
          let d = Int(b[i]) - 0x30
          guard d >= 0, d <= 9 else { return nil }
          n = n * 10 + d
        }
        return n
      }
      guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
        let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
        (1...12).contains(month), (1...daysIn(month, year)).contains(day), hour < 24,
        minute < 60, second < 60
      else { return nil }
      let days = Self.days(year: year, month: month, day: day)
      return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
  }

  private static func floorDivision(_ a: Int, _ b: Int) -> (Int, Int) {
    let q = a / b
    let r = a % b
    return r < 0 ? (q - 1, r + b) : (q, r)
  }

  private static func daysIn(_ month: Int, _ year: Int) -> Int {
    switch month {
    case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `civil_from_days`).
  private static func civil(fromDays z0: Int) -> (Int, Int, Int) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  /// The inverse: a date to days since 1970-01-01 (`days_from_civil`).
  private static func days(year y0: Int, month m: Int, day d: Int) -> Int {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }
}
