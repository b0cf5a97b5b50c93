import Foundation
import LabelCore
import LabelSQLite
import LabelWire
import Testing

@testable import LabelLog
@testable import LabelServer
@testable import LabelStore

/// A page of products answers the bytes labeld stored when the row's digest says they are
/// its own, unchanged: the answer is byte for byte the one decoding and writing each row
/// gives, and a row changed since, or from before digests, is decoded as it always was.
@Suite struct ProductPageTests {
  static let log = Logger(level: .error, sink: MemorySink())

  static func store() throws -> (StateStore, ProductStore, String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-page-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let store = StateStore(directory: dir, log: log)
    try store.open()
    return (store, ProductStore(store: store), dir)
  }

  /// The answer's bytes for a page, as labeld writes it and as a `ProductsResult` of the
  /// decoded products.
  static func both(_ products: ProductStore, limit: Int? = nil) async throws -> (
    [UInt8], [UInt8], [ProductRow]
  ) {
    let page = try await products.page(after: nil, limit: limit)
    let items = page.rows.map { row -> ProductPage.Item in
      switch row {
      case .written(let json): return .written(json)
      case .stored(.value(let product)): return .product(product)
      case .stored(.unreadable(let key, let reason)):
        Issue.record("\(key): \(reason)")
        return .product(Product(sku: key, name: "", version: 0, updatedAt: Date()))
      }
    }
    let decoded = try items.map { item throws -> Product in
      switch item {
      case .written(let json): try RowCoding.decoded(Product.self, json)
      case .product(let p): p
      }
    }
    let fast = try JSONWriter.write(ProductPage(items: items, next: page.next))
    let slow = try JSONWriter.write(ProductsResult(products: decoded, next: page.next))
    return (fast, slow, page.rows)
  }

  @Test func savedProducts_areAnsweredAsStored_byteForByteTheDecodedAnswer() async throws {
    let (store, products, dir) = try Self.store()
    defer {
      store.close()
      try? FileManager.default.removeItem(atPath: dir)
    }
    var rng = SystemRandomNumberGenerator()
    for i in 0..<300 {
      let fields = Dictionary(
        uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &rng)).map {
          ("f\($0)\u{e9}", "v \"\(i)\"\n\u{1}/")
        })
      let input = ProductInput(
        sku: "SKU-\(i)", name: "Product \(i) ☃ \\", price: i % 3 == 0 ? nil : Decimal(i) / 100,
        currency: i % 2 == 0 ? "EUR" : nil, barcode: i % 5 == 0 ? "4006381333931" : nil,
        fields: fields.isEmpty ? nil : fields)
      _ = try await products.save(input, expectedVersion: nil)
    }
    let (fast, slow, rows) = try await Self.both(products)
    #expect(fast == slow)
    #expect(rows.allSatisfy { if case .written = $0 { true } else { false } })
    let (page, slowPage, _) = try await Self.both(products, limit: 7)
    #expect(page == slowPage)
    #expect(String(decoding: page, as: UTF8.self).contains(#""next":"SKU-103""#))
  }

  @Test func rowsChangedByHand_orFromBeforeDigests_areDecoded() async throws {
    let (store, products, dir) = try Self.store()
    defer {
      store.close()
      try? FileManager.default.removeItem(atPath: dir)
    }
    for sku in ["A", "B", "C"] {
      _ = try await products.save(ProductInput(sku: sku, name: "n"), expectedVersion: nil)
    }
    try store.runSync { db throws(SQLiteError) in
      // B edited by hand (its digest now stale); C as a labeld before digests left it.
      try db.execute(
        """
        UPDATE products SET json = CAST('{"name": "by hand", "sku": "B", "version": 1, "updatedAt": "2026-01-01T00:00:00Z"}' AS BLOB)
        WHERE sku = 'B';
        UPDATE products SET digest = NULL WHERE sku = 'C';
        """)
    }
    let (fast, slow, rows) = try await Self.both(products)
    #expect(fast == slow)
    #expect(String(decoding: fast, as: UTF8.self).contains(#""name":"by hand""#))
    let kinds = rows.map { if case .written = $0 { "written" } else { "decoded" } }
    #expect(kinds == ["written", "decoded", "decoded"])
  }

  /// The form the digest vouches for. When this fails, `JSONWriter`'s form of a stored
  /// product changed: bump `RowDigest.form` (rows in the old form are then decoded and
  /// written afresh instead of answered as they are), then update the bytes here.
  @Test func theStoredForm_isPinned() throws {
    let product = Product(
      sku: "PEN-HB-12", name: "Pencil \"HB\"", price: Decimal(string: "2.49"), currency: "EUR",
      barcode: "4006381333931", fields: ["b": "2", "a": "1"], version: 3,
      updatedAt: Date(timeIntervalSince1970: 1_764_000_000))
    let json = RowCoding.encode(product)
    #expect(
      String(decoding: json, as: UTF8.self)
        == #"{"barcode":"4006381333931","currency":"EUR","fields":{"a":"1","b":"2"},"name":"Pencil \"HB\"","price":2.49,"sku":"PEN-HB-12","updatedAt":"2025-11-24T16:00:00Z","version":3}"#
    )
    #expect(RowDigest.form == 1)
    // Any one byte changed, or one more or fewer, changes the digest.
    let digest = RowDigest.of(json)
    for i in json.indices {
      var changed = json
      changed[i] ^= UInt8(1 << (i % 8))
      #expect(RowDigest.of(changed) != digest, "byte \(i)")
    }
    #expect(RowDigest.of(json + [0]) != digest)
    #expect(RowDigest.of(Array(json.dropLast())) != digest)
  }

  @Test func aDatabaseFromBeforeDigests_gainsTheColumn_andKeepsItsRows() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-page-\(UUID())")
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let db = try Database(path: dir.appendingPathComponent("labeld.db").path)
    try Schema.migrate(db)
    #expect(try db.userVersion == Schema.version)
    let columns = try db.statement("PRAGMA table_info(products)").all { $0.string(1) ?? "" }
    #expect(columns == ["sku", "version", "json", "digest"])
  }
}
