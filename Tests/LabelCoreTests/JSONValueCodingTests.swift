import Foundation
import LabelCore
import LabelWire
import Testing

/// `JSONValueDecoder` and `LabelJSON.value` (params decoded straight from the parsed tree,
/// error data built through the writer) against Foundation's `JSONDecoder`/`JSONEncoder` with the
/// protocol's settings: the same values, and the same field and reason for every bad input.
@Suite struct JSONValueCodingTests {
  static func tree(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

  /// Decodes `text` both ways; both must agree on the value or on the field error.
  static func decodeBothWays<T: Decodable & Equatable>(_ type: T.Type, _ text: String) throws
    -> Result<T, FieldError>
  {
    func outcome(_ body: () throws -> T) -> Result<T, FieldError> {
      do { return .success(try body()) } catch let e as DecodingError {
        return .failure(FieldError(e))
      } catch {
        return .failure(FieldError(field: "?", reason: "\(error)"))
      }
    }
    let viaText = outcome { try LabelJSON.decoder().decode(type, from: Data(text.utf8)) }
    let direct = outcome { try JSONValueDecoder().decode(type, from: tree(text)) }
    if case .failure(let textError) = viaText, textError.field.isEmpty,
      case .failure(let directError) = direct, !directError.field.isEmpty
    {
      // JSONDecoder (swift-corelibs-foundation) reports a number out of its type's range
      // ("The given data was not valid JSON.") and a bad date without the member's path;
      // the tree decoder names the member: more precise, never less.
      #expect(!directError.reason.isEmpty, "\(text): \(directError)")
    } else {
      #expect(direct == viaText, "\(text)")
    }
    return direct
  }

  @Test func products_decodeAsJSONDecoderDoes() throws {
    let good = try Self.decodeBothWays(
      ProductInput.self,
      #"{"sku":"A-1","name":"Tea","price":19.99,"currency":"EUR","barcode":"4006381333931","fields":{"origin":"Assam"}}"#
    )
    #expect(try good.get().price == Decimal(string: "19.99"))
    _ = try Self.decodeBothWays(ProductInput.self, #"{"sku":"A-1","name":"Tea","price":3}"#)
    // Each wrong member is named with the same reason both ways.
    for bad in [
      #"{"name":"Tea"}"#, #"{"sku":5,"name":"Tea"}"#, #"{"sku":null,"name":"Tea"}"#,
      #"{"sku":"A","name":"Tea","price":"1.00"}"#, #"{"sku":"A","name":"Tea","fields":{"a":1}}"#,
      #"{"sku":"A","name":"Tea","fields":[]}"#, #"[1]"#,
    ] {
      let result = try Self.decodeBothWays(ProductInput.self, bad)
      guard case .failure = result else {
        Issue.record("\(bad) decoded")
        continue
      }
    }
  }

  /// The demo data in seeds/: every template and product decodes to the same values.
  @Test func seeds_decodeAsJSONDecoderDoes() throws {
    let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("seeds")
    let templates = try String(
      contentsOf: seeds.appendingPathComponent("templates.json"), encoding: .utf8)
    let decoded = try Self.decodeBothWays([Template].self, templates).get()
    #expect(decoded.count >= 2)
    let products = try String(
      contentsOf: seeds.appendingPathComponent("products.json"), encoding: .utf8)
    #expect(try Self.decodeBothWays([ProductInput].self, products).get().count >= 2)
  }

  @Test func templatesAndJobs_decodeAsJSONDecoderDoes() throws {
    let bad = try Self.decodeBothWays(
      Template.self,
      #"{"name":"t","media":{"widthMM":62,"lengthMM":29},"elements":[{"type":"text","x":"1"}]}"#)
    guard case .failure(let error) = bad else {
      Issue.record("a text element with x \"1\" decoded")
      return
    }
    #expect(error.field.hasPrefix("elements[0]"), "\(error)")
    _ = try Self.decodeBothWays(
      Job.self,
      #"{"id":7,"printer":"sim:zebra","state":"completed","copies":2,"printed":2,"owner":{"uid":1000},"createdAt":"2026-12-01T09:30:00Z","updatedAt":"2026-12-01T09:30:01Z"}"#
    )
    _ = try Self.decodeBothWays(
      Job.self,
      #"{"id":7,"printer":"p","state":"done","copies":2,"printed":2,"owner":{"uid":1},"createdAt":"2026-12-01T09:30:00Z","updatedAt":"2026-12-01T09:30:01Z"}"#
    )
    _ = try Self.decodeBothWays(
      Job.self,
      #"{"id":7,"printer":"p","state":"pending","copies":2,"printed":2,"owner":{"uid":1},"createdAt":"yesterday","updatedAt":"2026-12-01T09:30:01Z"}"#
    )
  }

  /// Numbers: whole numbers fit, fractions and out-of-range values are errors, never traps.
  @Test func numbers_fitOrFail_neverTrap() throws {
    struct N: Codable, Equatable {
      var i: Int?
      var u: UInt32?
      var d: Double?
    }
    for text in [
      #"{"i":1}"#, #"{"i":-9223372036854775808}"#, #"{"u":4294967295}"#, #"{"u":4294967296}"#,
      #"{"u":-1}"#, #"{"i":1.5}"#, #"{"d":1}"#, #"{"d":2.5e300}"#, #"{"i":true}"#,
    ] {
      _ = try Self.decodeBothWays(N.self, text)
    }
    #expect(try JSONValueDecoder().decode(N.self, from: Self.tree(#"{"i":2.0}"#)).i == 2)
  }

  /// What the encoder builds is what JSONEncoder writes, parsed.
  @Test func encoder_buildsTheTreeJSONEncoderWrites() throws {
    func same<T: Encodable>(_ value: T) throws {
      let viaText = try JSONValue.parse([UInt8](LabelJSON.encoder().encode(value)))
      #expect(try LabelJSON.value(value) == viaText, "\(value)")
    }
    let when = Date(timeIntervalSince1970: 1_796_117_400)
    try same(
      Product(
        sku: "A-1", name: "Tea", price: Decimal(string: "19.99"), currency: "EUR",
        barcode: "4006381333931", fields: ["origin": "Assam"], version: 3, updatedAt: when))
    try same(
      AlertEvent(
        seq: 42, state: .active, time: when,
        alert: .printerError(
          PrinterErrorDetails(
            printer: "sim:zebra", reason: .mediaEmpty, job: 7, message: "out of labels"))))
    try same(
      AlertEvent(
        seq: 43, state: .cleared, time: when,
        alert: .saveError(
          SaveErrorDetails(entity: .product, key: "A-1", reason: .storageFull, message: "full"))))
    try same(RPCError.invalidParams(field: "product.sku", reason: "is required"))
    try same(["a": [1, 2], "b": []])
    try same([Double.infinity, -.infinity, 0.5])
    try same(UInt64.max)
  }
}
