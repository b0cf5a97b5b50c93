import Foundation
import LabelCore
import LabelWire
import Testing

struct JSONParserTests {
  @Test(arguments: [
    (#"{}"#, JSONValue.object([:])),
    (#" [ ] "#, .array([])),
    (
      #"{"a":[1,-2,3.5,-0.5e3,1E2],"b":{"c":null,"d":true,"e":false}}"#,
      JSONValue.object([
        "a": .array([1, -2, 3.5, -500.0, 100.0]), "b": .object(["c": nil, "d": true, "e": false]),
      ])
    ),
    (#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#, .string("a\"\\/\u{8}\u{c}\n\r\té😀")),
    (#""grüße ☃""#, .string("grüße ☃")),
    (#"9223372036854775807"#, .int(Int.max)),
    (#"92233720368547758080"#, .double(92_233_720_368_547_758_080)),
    // Around the parser's 18-character integer path and Int's ends.
    (#"-0"#, .int(0)),
    (#"999999999999999999"#, .int(999_999_999_999_999_999)),
    (#"-99999999999999999"#, .int(-99_999_999_999_999_999)),
    (#"-999999999999999999"#, .int(-999_999_999_999_999_999)),
    (#"1000000000000000000"#, .int(1_000_000_000_000_000_000)),
    (#"-9223372036854775808"#, .int(Int.min)),
    (#"-9223372036854775809"#, .double(-9_223_372_036_854_775_808.0)),
    (#"[7,-12,0]"#, .array([7, -12, 0])),
  ])
  func parses(text: String, expected: JSONValue) throws {
    #expect(try JSONValue.parse(Array(text.utf8)) == expected)
  }

  @Test(arguments: [
    #"{"a":1,}"#, "[1,]", "01", "-", "1.", "1e", ".5", "\"\u{01}\"", "tru", "nul", #"{"a" 1}"#,
    #"{a:1}"#,
    #""\ud800""#, #""\udc00x""#, #""\x""#, "1 2", "", "   ", "[", #"{"a":"#, #""abc"#, "+1", "NaN",
  ])
  func rejects(text: String) {
    #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(text.utf8)) }
  }

  /// The string scanner's word test against a byte at a time: every byte value at every
  /// place of an otherwise plain word, and random words.
  @Test func plainWordTest_agreesWithEachByte() {
    func plain(_ w: UInt64) -> Bool {
      (0..<8).allSatisfy { k in
        let b = UInt8(truncatingIfNeeded: w >> (8 * UInt64(k)))
        return b >= 0x20 && b < 0x80 && b != 0x22 && b != 0x5C
      }
    }
    let filler = UInt64(0x6161_6161_6161_6161)  // "aaaaaaaa"
    for place in 0..<8 {
      for value in 0...255 {
        let shift = UInt64(8 * place)
        let w = (filler & ~(0xFF << shift)) | (UInt64(value) << shift)
        #expect(JSONStringScan.isPlain(w) == plain(w), "byte \(value) at \(place)")
      }
    }
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<100_000 {
      let w = UInt64.random(in: .min ... .max, using: &rng)
      #expect(JSONStringScan.isPlain(w) == plain(w))
    }
  }

  /// Long strings, read a word at a time, with one byte that is not plain at each place
  /// around the words' edges: the same string as Foundation reads, or the same refusal.
  @Test func longStrings_withOneSpecialByteAnywhere_readAsFoundationReads() throws {
    let specials: [[UInt8]] = [
      Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8),
      Array("é".utf8), Array("€".utf8), Array("😀".utf8), [0x1F], [0x00], [0x7F],
    ]
    for special in specials {
      for place in 0..<40 {
        let text: [UInt8] =
          Array(#"{"data":""#.utf8) + Array(repeating: 0x41, count: place) + special
          + Array(repeating: 0x42, count: 45 - place) + Array(#""}"#.utf8)
        let ours = try? JSONValue.parse(text)
        let theirs = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: String]
        #expect(ours?["data"]?.stringValue == theirs?["data"], "\(special) at \(place)")
        #expect((ours == nil) == (theirs == nil), "\(special) at \(place)")
      }
    }
  }

  @Test func rejectsInvalidUTF8_andDeepNesting() {
    #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
    let deep =
      Array(repeating: UInt8(ascii: "["), count: 600)
      + Array(repeating: UInt8(ascii: "]"), count: 600)
    #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    let ok =
      Array(repeating: UInt8(ascii: "["), count: 500)
      + Array(repeating: UInt8(ascii: "]"), count: 500)
    #expect(throws: Never.self) { try JSONValue.parse(ok) }
  }

  /// Random trees: serialize → parse is the identity, and Foundation reads our output the same.
  @Test func randomTrees_roundTrip_andAgreeWithFoundation() throws {
    func tree(_ depth: Int) -> JSONValue {
      var rng = SystemRandomNumberGenerator()
      switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &rng) {
      case 0: return .null
      case 1: return .bool(Bool.random(using: &rng))
      case 2: return .int(Int.random(in: -1_000_000_000_000...1_000_000_000_000, using: &rng))
      case 3: return .double(Double.random(in: -1e6...1e6, using: &rng))
      case 4:
        let alphabet = Array("aZ09 \"\\\n\t\u{1}é😀/")
        return .string(String((0..<Int.random(in: 0...8)).map { _ in alphabet.randomElement()! }))
      case 5: return .array((0..<Int.random(in: 0...4)).map { _ in tree(depth + 1) })
      default:
        var o: [String: JSONValue] = [:]
        for k in 0..<Int.random(in: 0...4, using: &rng) { o["k\(k)"] = tree(depth + 1) }
        return .object(o)
      }
    }
    for _ in 0..<300 {
      let v = tree(0)
      let bytes = v.serialized()
      #expect(try JSONValue.parse(bytes) == v)
      #expect(try LabelJSON.decoder().decode(JSONValue.self, from: Data(bytes)) == v)
    }
  }
}
