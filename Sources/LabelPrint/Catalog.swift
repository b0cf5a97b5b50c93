import LabelCore
import LabelEvents
import LabelLog
import LabelStore

/// The stored products and templates as a label is made from them: a row that is stored
/// but cannot be read is a failure to keep data, raised as a `saveError` (it stays active
/// until the key is saved again) and answered as 1004; a read the store cannot do is -32603.
package struct Catalog: Sendable {
  package let products: ProductStore
  package let templates: TemplateStore
  package let saveErrors: SaveErrors
  package let log: Logger

  package init(
    products: ProductStore, templates: TemplateStore, saveErrors: SaveErrors, log: Logger
  ) {
    self.products = products
    self.templates = templates
    self.saveErrors = saveErrors
    self.log = log
  }

  package func product(_ sku: String) async throws(RPCError) -> Product? {
    let row = try await read { () async throws(SaveFailure) in try await products.get(sku) }
    return try row.map { row throws(RPCError) in try readable(row, .product) }
  }

  package func template(_ name: String) async throws(RPCError) -> Template? {
    let row = try await read { () async throws(SaveFailure) in try await templates.get(name) }
    return try row.map { row throws(RPCError) in try readable(row, .template) }
  }

  /// The template `name`, or 1006.
  package func templateNamed(_ name: String) async throws(RPCError) -> Template {
    guard let template = try await template(name) else {
      throw .notFound(entity: "template", key: name)
    }
    return template
  }

  /// The product `sku`'s fields for a template, or 1006.
  package func productData(_ sku: String) async throws(RPCError) -> [String: String] {
    guard let product = try await product(sku) else {
      throw .notFound(entity: "product", key: sku)
    }
    return product.templateData
  }

  /// The row's value. A row that is stored but does not decode is logged, raised as a
  /// `saveError` for its entity and key, and answered as 1004 carrying that alert.
  package func readable<T>(_ row: StoredRow<T>, _ entity: SaveEntity) throws(RPCError) -> T {
    switch row {
    case .value(let value): return value
    case .unreadable(let key, let reason):
      log.error("store: \(entity.rawValue) \(key) is stored but cannot be read: \(reason)")
      throw saveErrors.failed(
        SaveFailure(
          reason: .io,
          message:
            "\(entity.rawValue) \(key) is stored but cannot be read (\(reason)); save it again to replace it"
        ), entity: entity, key: key)
    }
  }

  /// Runs a read of stored state; a storage failure is answered as -32603 with the reason
  /// (a read cannot fail as a save, and raises no alert).
  package func read<T>(_ body: () async throws(SaveFailure) -> T) async throws(RPCError) -> T {
    do {
      return try await body()
    } catch {
      log.error("cannot read stored state: \(error.message)")
      throw .internalError("cannot read labeld's state: \(error.message)")
    }
  }
}
