import FoundationEssentials
import LabelCore
import LabelEvents
import LabelSQLite

/// Products by sku, in the database. A save answers only after its commit, or throws why
/// nothing was saved.
package final class ProductStore: Sendable {
  private let store: StateStore

  package init(store: StateStore) { self.store = store }

  /// Saves `input`, bumping its version. With `expectedVersion`, the stored version must
  /// match (0 meaning "must not exist yet"), else the save fails with `conflict` and
  /// nothing is written.
  package func save(_ input: ProductInput, expectedVersion: Int?) async throws(SaveFailure)
    -> Product
  {
    let outcome = try await store.run { db throws(SQLiteError) -> Result<Product, SaveFailure> in
      try db.transaction { () throws(SQLiteError) -> Result<Product, SaveFailure> in
        let find = try db.statement("SELECT version FROM products WHERE sku = ?").bind(input.sku)
        let current = try find.first { $0.int(0) } ?? 0
        if let expectedVersion, expectedVersion != current {
          let stored = current == 0 ? "no such product" : "version \(current)"
          return .failure(
            SaveFailure(
              reason: .conflict,
              message: "product \(input.sku) was changed by someone else: expected version "
                + "\(expectedVersion), stored is \(stored)",
              versions: (expectedVersion, current)))
        }
        guard current < Int.max else {
          return .failure(
            SaveFailure(
              reason: .conflict, message: "product \(input.sku) has no version after \(current)"))
        }
        let product = Product(
          sku: input.sku, name: input.name, price: input.price, currency: input.currency,
          barcode: input.barcode, fields: input.fields, version: current + 1, updatedAt: Date())
        let json = RowCoding.encode(product)
        try db.statement(
          "INSERT OR REPLACE INTO products (sku, version, json, digest) VALUES (?, ?, ?, ?)"
        )
        .bind(product.sku, product.version, json, RowDigest.of(json)).run()
        return .success(product)
      }
    }
    return try outcome.get()
  }

  /// The stored product (or why its row cannot be read); nil when there is none.
  package func get(_ sku: String) async throws(SaveFailure) -> StoredRow<Product>? {
    try await store.run { db throws(SQLiteError) in
      let s = try db.statement("SELECT json FROM products WHERE sku = ?").bind(sku)
      return try s.first { RowCoding.row(Product.self, key: sku, $0.blob(0)) }
    }
  }

  /// Removes the product; false when there was none.
  package func delete(_ sku: String) async throws(SaveFailure) -> Bool {
    try await store.run { db throws(SQLiteError) in
      try db.statement("DELETE FROM products WHERE sku = ?").bind(sku).run()
      return db.changes > 0
    }
  }

  /// Products in sku order after `after` (a page of at most `limit`, and the next page's
  /// cursor when more remain; no limit: all of them), through the primary key's index.
  /// A row whose digest matches its bytes is handed on as those bytes (`ProductRow`).
  package func page(after: String?, limit: Int?) async throws(SaveFailure) -> (
    rows: [ProductRow], next: String?
  ) {
    try await store.run { db throws(SQLiteError) in
      try Self.page(db, Self.pageSQL(limited: limit != nil), after: after, limit: limit) {
        key, row in
        let json = row.blob(1)
        if !row.isNull(2), Int64(row.int(2)) == RowDigest.of(json) { return .written(json) }
        return .stored(RowCoding.row(Product.self, key: key, json))
      }
    }
  }

  package static func pageSQL(limited: Bool) -> String {
    "SELECT sku, json, digest FROM products WHERE sku > ? ORDER BY sku"
      + (limited ? " LIMIT ?" : "")
  }

  /// One page of a table keyed by text: `sql` takes the cursor and, when limited, the
  /// limit, and selects the key first; `decode` reads the rest of each row. A row more
  /// than asked says whether there is a next page.
  package static func page<T>(
    _ db: Database, _ sql: String, after: String?, limit: Int?,
    _ decode: (String, Statement) -> T
  ) throws(SQLiteError) -> (rows: [T], next: String?) {
    let s = try db.statement(sql)
    if let limit { try s.bind(after ?? "", limit + 1) } else { try s.bind(after ?? "") }
    var keys: [String] = []
    var rows: [T] = []
    while try s.step() {
      let key = s.string(0) ?? ""
      keys.append(key)
      rows.append(decode(key, s))
    }
    guard let limit, rows.count > limit else { return (rows, nil) }
    return (Array(rows.prefix(limit)), keys[limit - 1])
  }

  package func count() async throws(SaveFailure) -> Int {
    try await store.run { db throws(SQLiteError) in
      let s = try db.statement("SELECT count(*) FROM products")
      return try s.first { $0.int(0) } ?? 0
    }
  }
}
