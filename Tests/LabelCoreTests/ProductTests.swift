import Foundation
import LabelCore
import Testing

struct GTINTests {
  @Test(arguments: ["4006381333931", "036000291452", "96385074", "10012345678902"])
  func validCodes_haveNoProblem(code: String) {
    #expect(GTIN.problem(code) == nil)
  }

  @Test(arguments: [
    ("4006381333932", "check digit"), ("03600029145", "digits, got 11"),
    ("40063813339A1", "digits only"),
    ("", "got 0"), ("４００６３８１３３３９３１", "digits only"),
  ])
  func invalidCodes_sayWhy(code: String, fragment: String) throws {
    let problem = try #require(GTIN.problem(code))
    #expect(problem.contains(fragment))
  }

  /// What EAN-13 and UPC-A symbols carry for each GTIN (GS1 General Specifications §5.2).
  @Test func symbolForms() throws {
    #expect(try GTIN("4006381333931").ean13 == "4006381333931")
    #expect(try GTIN("4006381333931").upca == nil)
    #expect(try GTIN("036000291452").ean13 == "0036000291452")
    #expect(try GTIN("036000291452").upca == "036000291452")
    #expect(try GTIN("0036000291452").upca == "036000291452")
    #expect(try GTIN("96385074").ean13 == nil && GTIN("96385074").upca == nil)
    #expect(try GTIN("10012345678902").ean13 == nil)
    #expect(throws: GTINError.self) { try GTIN("036000291453") }
  }

  /// The symbologies' data rules: a check digit is verified, never computed.
  @Test func symbologyData_followsGS1() throws {
    #expect(try Symbology.ean13.symbolData("036000291452") == "0036000291452")
    #expect(try Symbology.upca.symbolData("0036000291452") == "036000291452")
    let refused: [(Symbology, String, String)] = [
      (.ean13, "590123412345", "not a valid GTIN-12: check digit is 5, expected 2"),
      (.ean13, "4006381333932", "not a valid GTIN-13: check digit is 2, expected 1"),
      (.ean13, "96385074", "got 8 characters"),
      (.upca, "03600029145", "got 11 characters"),
      (.upca, "4006381333931", "does not start with 0"),
      (.upca, "0036000291453", "check digit is 3, expected 2"),
    ]
    for (symbology, data, fragment) in refused {
      let problem = try #require(symbology.problem(data), "\(symbology) \(data)")
      #expect(problem.contains(fragment), "\(problem)")
    }
  }
}

struct ProductInputTests {
  @Test func validate_namesTheField() {
    let cases: [(ProductInput, String)] = [
      (ProductInput(sku: " ", name: "x"), "sku"),
      (ProductInput(sku: "a\nb", name: "x"), "sku"),
      (ProductInput(sku: "a", name: ""), "name"),
      (ProductInput(sku: "a", name: "x", price: -1), "price"),
      (ProductInput(sku: "a", name: "x", currency: "eur"), "currency"),
      (ProductInput(sku: "a", name: "x", barcode: "123"), "barcode"),
    ]
    for (input, field) in cases {
      #expect(throws: FieldError.self) { try input.validate() }
      do { try input.validate() } catch { #expect(error.field == field) }
    }
    #expect(throws: Never.self) {
      try ProductInput(sku: "a", name: "x", price: 1.5, currency: "EUR", barcode: "4006381333931")
        .validate()
    }
  }

  @Test func templateData_hasBuiltInsThatFieldsCannotShadow() {
    let p = Product(
      sku: "S", name: "N", price: 2.5, currency: "EUR", barcode: "4006381333931",
      fields: ["name": "shadow", "shelf": "A1"], version: 1, updatedAt: .distantPast)
    #expect(
      p.templateData == [
        "sku": "S", "name": "N", "price": "2.50", "currency": "EUR", "barcode": "4006381333931",
        "shelf": "A1",
      ])
    let whole = Product(sku: "S", name: "N", price: 3, version: 1, updatedAt: .distantPast)
    #expect(whole.templateData["price"] == "3.00")
    let fine = Product(
      sku: "S", name: "N", price: Decimal(string: "0.125"), version: 1, updatedAt: .distantPast)
    #expect(fine.templateData["price"] == "0.125")
  }
}

struct PlaceholderTests {
  @Test func names_andFill() throws {
    #expect(Placeholders.names(in: "${a} and ${b}, not $c or ${") == ["a", "b"])
    #expect(
      try Placeholders.fill("${name}: ${price} €", from: ["name": "Milk", "price": "1.29"]).get()
        == "Milk: 1.29 €")
    #expect(throws: FieldError.self) { try Placeholders.fill("${gone}", from: [:]).get() }
  }
}
