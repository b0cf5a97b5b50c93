import LabelCore
import LabelStore
import LabelWire

/// `products.list`'s result as labeld answers it: `ProductsResult`'s JSON byte for byte,
/// with each product labeld wrote carried as the bytes it stored (a page of 100 need not
/// parse and write 100 products again: ProductPageTests hold the two forms equal).
package struct ProductPage: JSONWritable, Sendable {
  package enum Item: Sendable {
    /// A stored row in labeld's own form, unchanged since it was written.
    case written([UInt8])
    case product(Product)
  }

  package var items: [Item]
  package var next: String?

  package func write(to out: inout JSONOutput) {
    out.byte(0x7B)
    if let next {
      out.raw(#""next":"#)
      out.string(next)
      out.byte(0x2C)
    }
    out.raw(#""products":["#)
    for (index, item) in items.enumerated() {
      if index > 0 { out.byte(0x2C) }
      switch item {
      case .written(let json): out.raw(json)
      case .product(let product): product.write(to: &out)
      }
    }
    out.raw("]}")
  }

  /// The same page as a `ProductsResult` (through `Encodable`, for anything but labeld's
  /// writer): each written row decoded.
  package func encode(to encoder: any Encoder) throws {
    let products = try items.map { item throws -> Product in
      switch item {
      case .written(let json): try RowCoding.decoded(Product.self, json)
      case .product(let product): product
      }
    }
    try ProductsResult(products: products, next: next).encode(to: encoder)
  }
}
