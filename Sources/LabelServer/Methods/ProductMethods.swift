import LabelCore
import LabelInterfaces
import LabelPrint
import LabelScheduler
import LabelStore

extension Dispatcher {
  /// Saves a product; with `print`, also submits a label of it once the save is kept.
  /// Everything is checked before anything is saved: a request that cannot print saves
  /// nothing, and a failed save submits nothing.
  package func productsSave(_ p: Params, _ context: RequestContext) async throws(RPCError) -> Reply
  {
    let input = try p.decode("product", as: ProductInput.self)
    do throws(FieldError) { try input.validate() } catch {
      throw .invalidParams(error.nested(under: "product"))
    }
    let expected = try p.optionalInt("expectedVersion", in: 0...Int.max)
    var plan: PreparedJob?
    if p.has("print") {
      let pp = try p.object("print")
      let printer = try pp.string("printer")
      let templateName = try pp.string("template")
      let copies = try pp.optionalInt("copies", in: 1...999) ?? 1
      let data = Product(
        sku: input.sku, name: input.name, price: input.price, currency: input.currency,
        barcode: input.barcode, fields: input.fields, version: 0, updatedAt: .distantPast
      ).templateData
      plan = try await services.print.prepare(
        PrintRequest(
          printer: printer, copies: copies,
          content: .template(name: templateName, data: .fields(data)),
          owner: JobOwner(uid: context.caller.uid), origin: context.caller.origin))
    }
    let product: Product
    do {
      product = try await services.products.save(input, expectedVersion: expected)
    } catch {
      throw services.saveErrors.failed(error, entity: .product, key: input.sku)
    }
    services.saveErrors.succeeded(entity: .product, key: input.sku)
    guard let plan else { return .result(ProductSaveResult(product: product)) }
    let job = try await services.print.submit(plan)
    return .result(ProductSaveResult(product: product, job: job))
  }

  package func productsGet(_ p: Params) async throws(RPCError) -> Reply {
    let sku = try p.string("sku")
    guard let product = try await services.product(sku) else {
      throw .notFound(entity: "product", key: sku)
    }
    return .result(ProductResult(product: product))
  }

  package func productsDelete(_ p: Params) async throws(RPCError) -> Reply {
    let sku = try p.string("sku")
    let deleted: Bool
    do {
      deleted = try await services.products.delete(sku)
    } catch {
      throw services.saveErrors.failed(error, entity: .product, key: sku)
    }
    guard deleted else { throw .notFound(entity: "product", key: sku) }
    services.saveErrors.succeeded(entity: .product, key: sku)
    return .result(DeletedResult(deleted: true))
  }
}
