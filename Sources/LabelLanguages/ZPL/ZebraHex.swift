/// Zebra's ASCII compression for `^GFA` graphic data: each row as hex digits, shortened
/// with run counts and row shortcuts.
///
/// - A hex digit repeated n times is written as a count then the digit: G…Y = 1…19,
///   g…z = 20, 40, … 400 (counts add up: `gH` = 21).
/// - `,` ends a row early: the rest of it is 0.
/// - `!` ends a row early: the rest of it is F (all black).
/// - `:` repeats the previous row.
public enum ZebraHex {
  private static let hexDigits = Array("0123456789ABCDEF".utf8)

  /// The compressed data of `bitmap` (rows of `bitmap.bytesPerRow` bytes).
  public static func encode(_ bitmap: Bitmap) -> String {
    var out: [UInt8] = []
    var previous: ArraySlice<UInt8>?
    for y in 0..<bitmap.height {
      let row = bitmap.row(y)
      if let previous, previous.elementsEqual(row) {
        out.append(UInt8(ascii: ":"))
        continue
      }
      previous = row
      var digits: [UInt8] = []
      digits.reserveCapacity(row.count * 2)
      for byte in row {
        digits.append(hexDigits[Int(byte >> 4)])
        digits.append(hexDigits[Int(byte & 15)])
      }
      // Trailing zeros (or F's) collapse to ',' (or '!').
      var end = digits.count
      if let last = digits.last, last == UInt8(ascii: "0") || last == UInt8(ascii: "F") {
        while end > 0 && digits[end - 1] == last { end -= 1 }
        if digits.count - end > 2 || end == 0 {
          appendRuns(digits[0..<end], to: &out)
          out.append(last == UInt8(ascii: "0") ? UInt8(ascii: ",") : UInt8(ascii: "!"))
          continue
        }
        end = digits.count
      }
      appendRuns(digits[0..<end], to: &out)
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func appendRuns(_ digits: ArraySlice<UInt8>, to out: inout [UInt8]) {
    var i = digits.startIndex
    while i < digits.endIndex {
      var run = 1
      while i + run < digits.endIndex && digits[i + run] == digits[i] { run += 1 }
      if run > 1 { out.append(contentsOf: count(run)) }
      out.append(digits[i])
      i += run
    }
  }

  /// The count letters for `n` repeats (n >= 2).
  static func count(_ n: Int) -> [UInt8] {
    var rest = n
    var out: [UInt8] = []
    while rest >= 400 {
      out.append(UInt8(ascii: "z"))
      rest -= 400
    }
    if rest >= 20 {
      out.append(UInt8(ascii: "g") + UInt8(rest / 20 - 1))
      rest %= 20
    }
    if rest > 0 { out.append(UInt8(ascii: "G") + UInt8(rest - 1)) }
    return out
  }

  /// Decodes compressed (or plain hex) data into rows of `bytesPerRow` bytes; nil on
  /// malformed input.
  public static func decode(_ text: String, bytesPerRow: Int, rows: Int) -> [UInt8]? {
    let digitsPerRow = bytesPerRow * 2
    var out: [UInt8] = []
    var row: [UInt8] = []
    var lastRow: [UInt8] = Array(repeating: UInt8(ascii: "0"), count: digitsPerRow)
    var pending = 0
    func finish(_ fill: UInt8) {
      while row.count < digitsPerRow { row.append(fill) }
      out.append(contentsOf: row)
      lastRow = row
      row = []
    }
    for c in text.utf8 {
      switch c {
      case UInt8(ascii: "G")...UInt8(ascii: "Y"): pending += Int(c - UInt8(ascii: "G")) + 1
      case UInt8(ascii: "g")...UInt8(ascii: "y"): pending += (Int(c - UInt8(ascii: "g")) + 1) * 20
      case UInt8(ascii: "z"): pending += 400
      case UInt8(ascii: ","):
        finish(UInt8(ascii: "0"))
      case UInt8(ascii: "!"):
        finish(UInt8(ascii: "F"))
      case UInt8(ascii: ":"):
        guard row.isEmpty else { return nil }
        out.append(contentsOf: lastRow)
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"):
        row.append(contentsOf: repeatElement(c, count: max(1, pending)))
        pending = 0
        if row.count > digitsPerRow { return nil }
        if row.count == digitsPerRow { finish(UInt8(ascii: "0")) }
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: " "): continue
      default: return nil
      }
    }
    guard row.isEmpty, out.count == rows * digitsPerRow else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(rows * bytesPerRow)
    var i = 0
    while i < out.count {
      guard let hi = hexValue(out[i]), let lo = hexValue(out[i + 1]) else { return nil }
      bytes.append(hi << 4 | lo)
      i += 2
    }
    return bytes
  }

  private static func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
