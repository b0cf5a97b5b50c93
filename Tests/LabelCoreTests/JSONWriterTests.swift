import Foundation
import LabelCore
import LabelWire
import Testing

/// labeld's JSON writer against the reference it replaced: Foundation's `JSONEncoder` as
/// labeld configured it (`.sortedKeys`, `.withoutEscapingSlashes`, RFC 3339 dates,
/// non-finite numbers as strings). Every answer, notification and stored row stays byte
/// for byte what it was.
@Suite struct JSONWriterTests {
  static func reference() -> JSONEncoder {
    let e = JSONEncoder()
    e.dateEncodingStrategy = .iso8601
    e.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    e.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    return e
  }

  static func same<T: Encodable>(_ value: T, _ note: @autoclosure () -> String = "") throws {
    let ours = String(decoding: try JSONWriter.write(value), as: UTF8.self)
    let theirs = String(decoding: try reference().encode(value), as: UTF8.self)
    #expect(ours == theirs, "\(T.self) \(note())")
  }

  /// A small, seeded generator of awkward values.
  struct Values {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
      let width = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
      return width == 0 ? Int(bitPattern: UInt(next())) : range.lowerBound &+ Int(next() % width)
    }
    mutating func bool() -> Bool { next() % 2 == 0 }

    static let pieces = [
      "a", "Z", "0", " ", "/", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{8}", "\u{c}", "\u{1f}",
      "\u{7f}", "é", "e\u{301}", "Ω", "\u{2028}", "😀", "ｆ", "\u{fffd}", "%", "{}", "[1]",
    ]
    mutating func string() -> String {
      (0..<int(0...12)).map { _ in Self.pieces[int(0...(Self.pieces.count - 1))] }.joined()
    }
    mutating func double() -> Double {
      switch next() % 6 {
      case 0: return Double(bitPattern: next())
      case 1: return Double(int(-1_000_000...1_000_000)) / 100
      case 2:
        return [
          0, -0.0, 1e-7, 1e21, 1e22, Double.leastNonzeroMagnitude, 1.7976931348623157e308, 1e16,
          9_007_199_254_740_992, 123_456_789_012_345_680,
        ][int(0...9)]
      case 3: return Double(int(0...Int(Int32.max))) * 1e10
      case 4: return Double(int(-50...50)) / 8
      default: return [Double.infinity, -.infinity, .nan, 0.1, 2.49][int(0...4)]
      }
    }
    mutating func decimal() -> Decimal {
      Decimal(string: "\(int(0...99999)).\(int(0...999))e\(int(-12...12))") ?? 0
    }
    mutating func date() -> Date {
      Date(
        timeIntervalSince1970: Double(int(-2_000_000_000...4_000_000_000)) + Double(int(0...999))
          / 1000)
    }
    mutating func optional<T>(_ make: (inout Values) -> T) -> T? { bool() ? make(&self) : nil }
  }

  @Test func scalars_areWrittenAsFoundationWroteThem() throws {
    var v = Values(state: 1)
    for _ in 0..<3000 {
      let d = v.double()
      try Self.same([d], "\(d)")
      try Self.same(["k": v.string()])
      try Self.same([v.decimal()])
      try Self.same([v.date()])
      try Self.same([v.int(Int.min...Int.max)])
    }
    try Self.same([Int.min, Int.max, 0, -1])
    try Self.same([UInt64.max, 0])
  }

  /// The 64-bit path of `JSONOutput.decimal` against `Decimal.description`, which it
  /// replaces: signs, trailing zeros, fractions below one, mantissas of every length.
  @Test func decimals_areWrittenAsTheirDescription() {
    // On this platform the fast path is taken (else every price goes through description).
    #expect(DecimalBytes.layoutHolds)
    var v = Values(state: 7)
    var cases: [Decimal] = [0, 1, -1, 10, 100, 0.5, -0.5, 2.49, 1.10, 0.001, .nan]
    cases += [Decimal(string: "1.000")!, Decimal(string: "-0.0100")!, Decimal(string: "5E+3")!]
    cases += [Decimal(UInt64.max), Decimal(UInt64.max) + 1, Decimal(UInt64.max) * 1000]
    cases += [Decimal(string: "12345678901234567890123456789.5")!, .greatestFiniteMagnitude]
    for _ in 0..<5000 {
      let digits = String((0..<v.int(1...24)).map { _ in Character("\(v.int(0...9))") })
      let sign = v.bool() ? "-" : ""
      cases.append(Decimal(string: "\(sign)\(digits)e\(v.int(-30...30))") ?? 0)
      cases.append(
        Decimal(
          sign: v.bool() ? .minus : .plus, exponent: v.int(-20...20),
          significand:
            Decimal(v.int(0...Int.max))))
    }
    for d in cases {
      var out = JSONOutput()
      out.decimal(d)
      #expect(String(decoding: out.bytes, as: UTF8.self) == d.description, "\(d)")
    }
  }

  @Test func keys_areSortedByTheirUTF8Bytes() throws {
    var v = Values(state: 2)
    for _ in 0..<500 {
      var fields: [String: String] = [:]
      for _ in 0..<v.int(0...8) { fields[v.string()] = v.string() }
      try Self.same(fields)
    }
  }

  @Test func theProtocolsObjects_writeThemselvesAsTheyEncode() throws {
    var v = Values(state: 3)
    let reasons = Reason.allCases
    for _ in 0..<2000 {
      let job = Job(
        id: v.int(1...Int.max), printer: v.string(), state: JobState.allCases[v.int(0...5)],
        copies: v.int(1...999), printed: v.int(0...999), createdAt: v.date(), updatedAt: v.date(),
        owner: JobOwner(uid: UInt32(v.int(0...Int(UInt32.max)))),
        error: v.optional {
          JobError(
            reason: reasons[$0.int(0...(reasons.count - 1))], message: $0.string(),
            document: $0.optional { DocumentFault.allCases[$0.int(0...1)] })
        },
        origin: v.optional {
          JobOrigin(
            kind: JobOrigin.Kind.allCases[$0.int(0...2)], user: $0.optional { $0.string() },
            name: $0.optional { $0.string() })
        })
      try Self.same(job)
      var fields: [String: String]?
      if v.bool() {
        fields = [:]
        for _ in 0..<v.int(0...4) { fields?[v.string()] = v.string() }
      }
      let product = Product(
        sku: v.string(), name: v.string(), price: v.optional { $0.decimal() },
        currency: v.optional { $0.string() }, barcode: v.optional { $0.string() }, fields: fields,
        version: v.int(1...Int.max), updatedAt: v.date())
      try Self.same(product)
      var printer = Printer(
        id: v.string(), name: v.string(), transport: [.usb, .cups, .sim, .net][v.int(0...3)],
        model: v.string(), language: v.optional { _ in PrinterLanguage.allCases[0] },
        dpi: v.int(0...1200), state: [.idle, .processing, .stopped][v.int(0...2)],
        reasons: (0..<v.int(0...3)).map { _ in reasons[v.int(0...(reasons.count - 1))] },
        media: v.optional {
          Media(
            widthMM: $0.double(), lengthMM: $0.double(), kind: $0.optional { $0.string() },
            redBlack: $0.optional { $0.bool() })
        }, uri: v.optional { $0.string() }, accepting: v.bool())
      printer.labelsRemaining = v.optional { $0.int(0...1000) }
      try Self.same(printer)
      let alert: Alert =
        v.bool()
        ? .printerError(
          PrinterErrorDetails(
            printer: v.string(), reason: reasons[v.int(0...(reasons.count - 1))],
            job: v.optional { $0.int(1...Int.max) }, message: v.string()))
        : .saveError(
          SaveErrorDetails(
            entity: SaveEntity.allCases[v.int(0...3)], key: v.string(),
            reason: SaveReason.allCases[v.int(0...5)], message: v.string(),
            expectedVersion: v.optional { $0.int(0...99) },
            storedVersion: v.optional { $0.int(0...99) }))
      let event = AlertEvent(
        seq: UInt64(v.int(0...Int.max)), state: [.active, .cleared, .dismissed][v.int(0...2)],
        time: v.date(), alert: alert)
      try Self.same(event)
      try Self.same(JobsResult(jobs: [job, job], next: v.optional { $0.int(1...99) }))
      try Self.same(ProductsResult(products: [product], next: v.optional { $0.string() }))
      try Self.same(PrintersResult(printers: [printer]))
      try Self.same(AlertsResult(alerts: [event]))
      try Self.same(ProductSaveResult(product: product, job: v.optional { _ in job }))
      try Self.same(SubscribeResult(seq: UInt64(v.int(0...Int.max)), gap: v.optional { $0.bool() }))
      try Self.same(
        RPCError(
          code: v.int(-32700...1007), message: v.string(),
          data: v.optional { _ in ["field": .string("x"), "n": .double(1.5)] }))
    }
    try Self.same(HelloResult(server: "labeld", version: "0.1.0", protocol: 1))
    try Self.same(OverflowParams(seq: 57))
  }

  /// Types that do not write themselves go through the tree: a template with every kind
  /// of element, an error with nested data.
  @Test func anythingElse_goesThroughTheTree_withTheSameResult() throws {
    let text = """
      {"name":"t","media":{"widthMM":62,"lengthMM":29},"elements":[
        {"type":"text","x":1,"y":2.5,"width":40,"height":8,"text":"${name} \\"q\\"","weight":"bold","align":"center","overflow":"wrap","rotation":90,"font":"DejaVu Serif","color":"red","size":12},
        {"type":"barcode","x":1,"y":10,"height":10,"symbology":"ean13","data":"${barcode}","humanReadable":false,"moduleWidth":0.33},
        {"type":"box","x":0.5,"y":0.5,"width":61,"height":28,"thickness":0.3},
        {"type":"line","x1":0,"y1":1,"x2":60,"y2":1}
      ]}
      """
    let template = try LabelJSON.decode(Template.self, from: try JSONValue.parse(Array(text.utf8)))
    try Self.same(template)
    try Self.same(TemplatesResult(templates: [template], next: "t"))
    let nested: JSONValue = [
      "b": [1, 2.5, "x", nil, true, ["z": [], "a": [:]]], "a": .double(1e300),
    ]
    try Self.same(nested)
  }

  @Test func rfc3339_readsWhatItWrites_andRefusesTheRest() {
    var v = Values(state: 4)
    for _ in 0..<2000 {
      let date = v.date()
      var bytes: [UInt8] = []
      RFC3339.write(date, into: &bytes)
      let text = String(decoding: bytes, as: UTF8.self)
      #expect(
        RFC3339.parse(text)
          == Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
      #expect(InternetDate.date(text) == RFC3339.parse(text), "\(text)")
    }
    for bad in [
      "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-12-02T24:00:00Z",
      "2026-12-02 10:00:00Z", "2026-12-02T10:00:00+01:00", "",
    ] {
      #expect(RFC3339.parse(bad) == nil, "\(bad)")
    }
  }

  /// Everything the parser accepts, written and parsed again, is the same value.
  @Test func whatTheParserReads_writtenAndReadAgain_isEqual() throws {
    var v = Values(state: 5)
    func value(_ depth: Int) -> JSONValue {
      switch v.int(0...(depth > 3 ? 4 : 6)) {
      case 0: return .null
      case 1: return .bool(v.bool())
      case 2: return .int(v.int(Int.min...Int.max))
      case 3: return .string(v.string())
      case 4:
        let d = v.double()
        return d.isFinite ? .double(d) : .int(0)
      case 5: return .array((0..<v.int(0...4)).map { _ in value(depth + 1) })
      default:
        var o: [String: JSONValue] = [:]
        for _ in 0..<v.int(0...4) { o[v.string()] = value(depth + 1) }
        return .object(o)
      }
    }
    for _ in 0..<2000 {
      let original = value(0)
      let written = try JSONWriter.write(original)
      let again = try JSONValue.parse(written)
      #expect(
        again == original || Self.numericallyEqual(again, original),
        "\(String(decoding: written, as: UTF8.self))")
    }
  }

  /// A double that holds a whole number is read back as an integer: the same number.
  static func numericallyEqual(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.int(let i), .double(let d)), (.double(let d), .int(let i)): return Double(i) == d
    case (.array(let x), .array(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0 == $1 || numericallyEqual($0, $1) }
    case (.object(let x), .object(let y)):
      return x.count == y.count
        && x.allSatisfy { k, v in y[k].map { $0 == v || numericallyEqual($0, v) } ?? false }
    default: return a == b
    }
  }
}
