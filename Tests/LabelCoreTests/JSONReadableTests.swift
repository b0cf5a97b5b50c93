import Foundation
import LabelCore
import LabelWire
import Testing

/// Types that read themselves from a parsed value do what their `Decodable` conformance
/// does through `JSONValueDecoder`: the same values from good rows, a refusal of the same
/// damaged ones.
@Suite struct JSONReadableTests {
  @Test func decimalsFromDoubles_areTheDigitsFoundationReadFromTheirText() {
    var v = JSONWriterTests.Values(state: 11)
    for _ in 0..<20_000 {
      let d = v.double()
      guard d.isFinite else { continue }
      let ours = DecimalText.decimal(d)
      let theirs = Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX"))
      #expect(ours == theirs, "\(d)")
    }
  }

  @Test func products_readAsDecodableReadsThem_goodOrDamaged() throws {
    var v = JSONWriterTests.Values(state: 12)
    var refused = 0
    for round in 0..<5000 {
      var fields: [String: String]?
      if v.bool() {
        fields = [:]
        for _ in 0..<v.int(0...3) { fields?[v.string()] = v.string() }
      }
      let price: Decimal? = v.bool() ? DecimalText.decimal(Double(v.int(0...99999)) / 100) : nil
      let product = Product(
        sku: v.string(), name: v.string(), price: price, currency: v.optional { $0.string() },
        barcode: v.optional { $0.string() }, fields: fields, version: v.int(1...Int.max),
        updatedAt: Date(timeIntervalSince1970: Double(v.int(0...4_000_000_000))))
      var row = try JSONValue.parse(try JSONWriter.write(product))
      if round % 2 == 1, case .object(var members) = row {
        // Damage it: a member removed, nulled, of another type, or one more.
        let keys = [
          "sku", "name", "price", "currency", "barcode", "fields", "version", "updatedAt",
        ]
        let key = keys[v.int(0...(keys.count - 1))]
        let damage: [JSONValue?] = [
          nil, .null, .int(1), .double(2.5), .string("x"), .bool(true), ["a": 1], [1], ["k": .null],
          .double(1e300), .string("2026-02-30T00:00:00Z"),
        ]
        members[key] = damage[v.int(0...(damage.count - 1))]
        if v.bool() { members[v.string()] = .int(v.int(0...9)) }
        row = .object(members)
      }
      let ours = try? Product(json: row)
      let theirs = try? LabelJSON.decode(Product.self, from: row)
      #expect(ours == theirs, "\(row)")
      if theirs == nil { refused += 1 }
      if round % 2 == 0 { #expect(ours == product) }
    }
    #expect(refused > 500, "enough damaged rows refused to compare: \(refused)")
  }
}
