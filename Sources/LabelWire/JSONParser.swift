import LabelCore

/// Why a line is not JSON, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
  public var offset: Int
  public var reason: String
  public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
  /// Parses one JSON text (RFC 8259): strict about syntax and UTF-8, nesting at most 512
  /// deep. The protocol's hot path: not `JSONDecoder`, which reports each alternative it
  /// tries as a thrown error (the costs are in docs/benchmarks.md, "JSON per product").
  public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    try parse(bytes, keepingRawMember: nil).value
  }

  /// Parses like `parse`, and also returns the exact text of the top-level object's member
  /// `name` (the last one, as for the value), as the client wrote it: a request `id` must
  /// come back exactly as sent, `1e400` and `12345678901234567890123` included, which no
  /// Swift number holds.
  public static func parse(_ bytes: [UInt8], keepingRawMember name: String?)
    throws(JSONParseError) -> (value: JSONValue, raw: [UInt8]?)
  {
    try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
      var p = Parser(bytes: buffer)
      p.rawMember = name
      p.skipWhitespace()
      let value = try p.value(depth: 0)
      p.skipWhitespace()
      guard p.i == buffer.count else { throw p.fail("unexpected data after the JSON value") }
      return (value, p.rawRange.map { Array(buffer[$0]) })
    }
  }

  /// The compact JSON text of this value, in `JSONOutput`'s form (object keys in UTF-8
  /// order), without a newline.
  public func serialized() -> [UInt8] {
    var out = JSONOutput(capacity: 128)
    write(to: &out)
    return out.bytes
  }
}

private struct Parser {
  let bytes: UnsafeBufferPointer<UInt8>
  var i = 0
  /// A member of the top-level object whose text to keep, and where it was found.
  var rawMember: String?
  var rawRange: Range<Int>?

  init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

  mutating func skipWhitespace() {
    while i < bytes.count {
      switch bytes[i] {
      case 0x20, 0x09, 0x0A, 0x0D: i += 1
      default: return
      }
    }
  }

  mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth < 512 else { throw fail("nested too deeply") }
    guard i < bytes.count else { throw fail("unexpected end of input") }
    switch bytes[i] {
    case UInt8(ascii: "{"): return try object(depth: depth)
    case UInt8(ascii: "["): return try array(depth: depth)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): try literal("true"); return .bool(true)
    case UInt8(ascii: "f"): try literal("false"); return .bool(false)
    case UInt8(ascii: "n"): try literal("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw fail("unexpected character")
    }
  }

  mutating func literal(_ word: StaticString) throws(JSONParseError) {
    let n = word.utf8CodeUnitCount
    guard i + n <= bytes.count else { throw fail("unexpected end of input") }
    for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw fail("invalid literal") }
    i += n
  }

  mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
    i += 1
    // Room for a protocol object's members (a product has eight): no rehash as it fills.
    var members: [String: JSONValue] = Dictionary(minimumCapacity: 8)
    skipWhitespace()
    if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
      i += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
        throw fail("expected a member name")
      }
      let key = try string()
      skipWhitespace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
      i += 1
      skipWhitespace()
      let start = i
      members[key] = try value(depth: depth + 1)
      if depth == 0, key == rawMember { rawRange = start..<i }
      skipWhitespace()
      guard i < bytes.count else { throw fail("unexpected end of input") }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      guard bytes[i] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
      i += 1
      return .object(members)
    }
  }

  mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
    i += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
      i += 1
      return .array(items)
    }
    while true {
      skipWhitespace()
      items.append(try value(depth: depth + 1))
      skipWhitespace()
      guard i < bytes.count else { throw fail("unexpected end of input") }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      guard bytes[i] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
      i += 1
      return .array(items)
    }
  }

  /// Moves `i` over whole 8-byte words of plain ASCII: no quote, backslash or control
  /// character (RFC 8259 §7) and no byte at or above 0x80. The bulk of a long string, a
  /// label's base64 of 100 KB and more, is looked at a word at a time; the byte after the
  /// words is left to the caller, which reads every byte that is not plain itself.
  private mutating func skipPlainWords() {
    guard let base = bytes.baseAddress else { return }
    let raw = UnsafeRawPointer(base)
    while bytes.count - i >= 8 {
      let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      guard JSONStringScan.isPlain(w) else { return }
      i += 8
    }
  }

  mutating func string() throws(JSONParseError) -> String {
    i += 1
    let start = i
    // Fast path: no escapes. Text that is all ASCII is valid UTF-8 as it stands, and is
    // made a String without the validating initialiser (a generic call, its metadata
    // looked up each time: a fifth of a page's parse).
    var high: UInt8 = 0
    while i < bytes.count {
      skipPlainWords()
      guard i < bytes.count else { break }
      let b = bytes[i]
      if b == UInt8(ascii: "\"") {
        let text = UnsafeBufferPointer(rebasing: bytes[start..<i])
        i += 1
        if high < 0x80 { return String(decoding: text, as: UTF8.self) }
        guard let s = String(validating: text, as: UTF8.self) else {
          i -= 1
          throw fail("invalid UTF-8 in string")
        }
        return s
      }
      if b == UInt8(ascii: "\\") { break }
      if b < 0x20 { throw fail("control character in string") }
      high |= b
      i += 1
    }
    var raw = Array(bytes[start..<i])
    while i < bytes.count {
      let b = bytes[i]
      switch b {
      case UInt8(ascii: "\""):
        guard let s = String(validating: raw, as: UTF8.self) else {
          throw fail("invalid UTF-8 in string")
        }
        i += 1
        return s
      case UInt8(ascii: "\\"):
        i += 1
        guard i < bytes.count else { throw fail("unexpected end of input") }
        let e = bytes[i]
        i += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): raw.append(e)
        case UInt8(ascii: "b"): raw.append(0x08)
        case UInt8(ascii: "f"): raw.append(0x0C)
        case UInt8(ascii: "n"): raw.append(0x0A)
        case UInt8(ascii: "r"): raw.append(0x0D)
        case UInt8(ascii: "t"): raw.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar) {
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"),
              bytes[i + 1] == UInt8(ascii: "u")
            else { throw fail("unpaired surrogate") }
            i += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00..<0xE000).contains(scalar) {
            throw fail("unpaired surrogate")
          }
          guard let decoded = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
          raw += Array(String(Character(decoded)).utf8)
        default: throw fail("invalid escape")
        }
      default:
        if b < 0x20 { throw fail("control character in string") }
        raw.append(b)
        i += 1
      }
    }
    throw fail("unterminated string")
  }

  mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard i + 4 <= bytes.count else { throw fail("unexpected end of input") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[i]
      let d: UInt8
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
      default: throw fail("invalid \\u escape")
      }
      v = v << 4 | UInt32(d)
      i += 1
    }
    return v
  }

  mutating func number() throws(JSONParseError) -> JSONValue {
    let start = i
    var isInteger = true
    if bytes[i] == UInt8(ascii: "-") { i += 1 }
    guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
    if bytes[i] == UInt8(ascii: "0") {
      i += 1
      if i < bytes.count, isDigit(bytes[i]) { throw fail("leading zero in number") }
    } else {
      while i < bytes.count, isDigit(bytes[i]) { i += 1 }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      isInteger = false
      i += 1
      guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
      while i < bytes.count, isDigit(bytes[i]) { i += 1 }
    }
    if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      isInteger = false
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
      guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
      while i < bytes.count, isDigit(bytes[i]) { i += 1 }
    }
    // An integer of up to 18 digits is read from its digits: no text made for it.
    if isInteger, i - start <= 18 {
      var n = 0
      var k = start
      let negative = bytes[k] == UInt8(ascii: "-")
      if negative { k += 1 }
      while k < i {
        n = n * 10 + Int(bytes[k] - UInt8(ascii: "0"))
        k += 1
      }
      return .int(negative ? -n : n)
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    if isInteger, let n = Int(text) { return .int(n) }
    guard let d = Double(text) else { throw fail("invalid number") }
    return .double(d)
  }

  func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}

/// The string scanner's word test, on its own for tests.
package enum JSONStringScan {
  /// Whether none of the eight bytes of `w` is a quote, a backslash, below 0x20 or at or
  /// above 0x80. Each test is exact for whether some byte matches (the classic "has a zero
  /// byte" and "has a byte less than n" tricks, n at most 128).
  package static func isPlain(_ w: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let quote = w ^ (ones &* 0x22)
    let backslash = w ^ (ones &* 0x5C)
    let hasQuote = (quote &- ones) & ~quote
    let hasBackslash = (backslash &- ones) & ~backslash
    let hasControl = (w &- ones &* 0x20) & ~w
    return (hasQuote | hasBackslash | hasControl | w) & highs == 0
  }
}
