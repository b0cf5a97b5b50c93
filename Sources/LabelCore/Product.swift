#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A product as stored: what an inventory app's Add/Edit Product flow saves.
public struct Product: Codable, Sendable, Equatable {
  public var sku: String
  public var name: String
  public var price: Decimal?
  public var currency: String?
  public var barcode: String?
  public var fields: [String: String]?
  /// Starts at 1 and increases on every successful save.
  public var version: Int
  public var updatedAt: Date

  public init(
    sku: String, name: String, price: Decimal? = nil, currency: String? = nil,
    barcode: String? = nil, fields: [String: String]? = nil, version: Int, updatedAt: Date
  ) {
    self.sku = sku
    self.name = name
    self.price = price
    self.currency = currency
    self.barcode = barcode
    self.fields = fields
    self.version = version
    self.updatedAt = updatedAt
  }

  /// The values a template's `${field}` placeholders can name: sku, name, price, currency,
  /// barcode, and every entry of `fields` (which cannot shadow the built-in ones).
  public var templateData: [String: String] {
    var data = fields ?? [:]
    data["sku"] = sku
    data["name"] = name
    if let price { data["price"] = Self.priceText(price) }
    if let currency { data["currency"] = currency }
    if let barcode { data["barcode"] = barcode }
    return data
  }
}

extension Product {
  /// A price as printed on a label: at least two decimals ("3.2" → "3.20").
  static func priceText(_ price: Decimal) -> String {
    var text = "\(price)"
    guard let dot = text.firstIndex(of: ".") else { return text + ".00" }
    let decimals = text.distance(from: dot, to: text.endIndex) - 1
    if decimals < 2 { text += String(repeating: "0", count: 2 - decimals) }
    return text
  }
}

/// What a client sends to `products.save`: a product without its bookkeeping.
/// `version` and `updatedAt`, if a client echoes them back, are ignored.
public struct ProductInput: Codable, Sendable, Equatable {
  public var sku: String
  public var name: String
  public var price: Decimal?
  public var currency: String?
  public var barcode: String?
  public var fields: [String: String]?

  public init(
    sku: String, name: String, price: Decimal? = nil, currency: String? = nil,
    barcode: String? = nil, fields: [String: String]? = nil
  ) {
    self.sku = sku
    self.name = name
    self.price = price
    self.currency = currency
    self.barcode = barcode
    self.fields = fields
  }

  /// Checks what JSON typing cannot: non-empty keys, a valid GTIN barcode, a sane currency.
  /// Field names are relative to the product object ("barcode").
  public func validate() throws(FieldError) {
    let trimmedSKU = sku.trimmingSpaces
    if trimmedSKU.isEmpty { throw FieldError(field: "sku", reason: "must not be empty") }
    if sku.count > 128 { throw FieldError(field: "sku", reason: "longer than 128 characters") }
    if sku.contains(where: { $0.isNewline }) {
      throw FieldError(field: "sku", reason: "must not contain line breaks")
    }
    if name.trimmingSpaces.isEmpty {
      throw FieldError(field: "name", reason: "must not be empty")
    }
    if let price, price < 0 { throw FieldError(field: "price", reason: "must not be negative") }
    if let currency, currency.count != 3 || !currency.allSatisfy({ $0.isASCII && $0.isUppercase }) {
      throw FieldError(field: "currency", reason: "must be a three-letter ISO 4217 code (EUR, USD)")
    }
    // GS1 rules for every GTIN labeld takes in: see `GTIN`.
    if let barcode, let problem = GTIN.problem(barcode) {
      throw FieldError(field: "barcode", reason: problem)
    }
  }
}
