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
