import Foundation
import LabelCore
import Synchronization

/// Products by sku. In memory until the durable store lands; the API is the final one:
/// every save answers only once the product is kept, or throws why it was not.
final class ProductStore: Sendable {
  private let products = Mutex<[String: Product]>([:])

  init() {}

  /// Saves `input`, bumping its version. With `expectedVersion`, the stored version must
  /// match (0 meaning "must not exist yet"), else the save fails with `conflict`.
  func save(_ input: ProductInput, expectedVersion: Int?) async throws(SaveFailure) -> Product {
    let result: Result<Product, SaveFailure> = products.withLock { all in
      let current = all[input.sku]
      if let expectedVersion, expectedVersion != (current?.version ?? 0) {
        let stored = current.map { "version \($0.version)" } ?? "no such product"
        return .failure(
          SaveFailure(
            reason: .conflict,
            message: "product \(input.sku) was changed by someone else: expected version "
              + "\(expectedVersion), stored is \(stored)"))
      }
      let product = Product(
        sku: input.sku, name: input.name, price: input.price, currency: input.currency,
        barcode: input.barcode, fields: input.fields, version: (current?.version ?? 0) + 1,
        updatedAt: Date())
      all[input.sku] = product
      return .success(product)
    }
    return try result.get()
  }

  func get(_ sku: String) async -> Product? { products.withLock { $0[sku] } }

  /// Removes the product; false when there was none.
  func delete(_ sku: String) async throws(SaveFailure) -> Bool {
    products.withLock { $0.removeValue(forKey: sku) != nil }
  }

  func list() async -> [Product] {
    products.withLock { Array($0.values) }.sorted { $0.sku < $1.sku }
  }

  var count: Int { products.withLock { $0.count } }
}
