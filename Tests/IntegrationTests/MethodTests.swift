import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// The success path of every method, over the socket (errors are in ErrorCodeTests).
@Suite struct MethodTests {
  @Test func printers_listGetRefresh() throws {
    try withDaemon([
      "--simulate", "zebra=zpl,dpi=300,width=101.6,length=152.4", "--simulate", "ql=brother-ql",
    ]) {
      d in
      let c = try d.client()
      let list = try c.call("printers.list", [:], as: PrintersResult.self).printers
      #expect(list.map(\.id) == ["sim:zebra", "sim:ql"])
      let zebra = try c.call("printers.get", ["printer": "sim:zebra"], as: PrinterResult.self)
        .printer
      #expect(zebra.transport == .sim)
      #expect(zebra.language == .zpl)
      #expect(zebra.dpi == 300)
      #expect(zebra.media == Media(widthMM: 101.6, lengthMM: 152.4, kind: "labels"))
      #expect(zebra.state == .idle && zebra.reasons.isEmpty)
      let ql = try c.call("printers.get", ["printer": "sim:ql"], as: PrinterResult.self).printer
      #expect(ql.language == .brotherQL)
      #expect(ql.media?.lengthMM == 0)  // continuous roll
      let refreshed = try c.call("printers.refresh", [:], as: PrintersResult.self).printers
      #expect(refreshed == list)
    }
  }

  @Test func products_saveGetListDelete_withVersions() throws {
    try withDaemon { d in
      let c = try d.client()
      let first = try c.call(
        "products.save",
        [
          "product": [
            "sku": "4006381333931", "name": "Pen", "price": 1.25, "currency": "EUR",
            "barcode": "4006381333931", "fields": ["colour": "blue"],
          ]
        ],
        as: ProductSaveResult.self)
      #expect(first.product.version == 1)
      #expect(first.job == nil)
      #expect(first.product.price == Decimal(string: "1.25"))
      let second = try c.call(
        "products.save",
        ["product": ["sku": "4006381333931", "name": "Pen (blue)"], "expectedVersion": 1],
        as: ProductSaveResult.self)
      #expect(second.product.version == 2)
      #expect(second.product.fields == nil)  // a save replaces the whole product
      // expectedVersion 0: create only if new.
      try c.call(
        "products.save", ["product": ["sku": "B", "name": "Brush"], "expectedVersion": 0])
      #expect(
        c.error(
          "products.save", ["product": ["sku": "B", "name": "Brush"], "expectedVersion": 0])?.code
          == 1004)
      let got = try c.call("products.get", ["sku": "4006381333931"], as: ProductResult.self).product
      #expect(got == second.product)
      let all = try c.call("products.list", [:], as: ProductsResult.self).products
      #expect(all.map(\.sku) == ["4006381333931", "B"])
      #expect(try c.call("products.delete", ["sku": "B"]) == ["deleted": true])
      #expect(c.error("products.get", ["sku": "B"])?.code == 1006)
      #expect(try c.call("products.list", [:], as: ProductsResult.self).products.count == 1)
    }
  }

  @Test func templates_saveGetList_roundTripEveryElementKind() throws {
    try withDaemon { d in
      let c = try d.client()
      let saved = try c.call(
        "templates.save", ["template": Fixtures.shelfTemplate], as: TemplateResult.self
      ).template
      #expect(saved.name == "shelf")
      #expect(saved.elements.count == 3)
      let got = try c.call("templates.get", ["name": "shelf"], as: TemplateResult.self).template
      #expect(got == saved)
      var renamed = Fixtures.shelfTemplate.objectValue!
      renamed["name"] = "another"
      try c.call("templates.save", ["template": .object(renamed)])
      let names = try c.call("templates.list", [:], as: TemplatesResult.self).templates.map(\.name)
      #expect(names == ["another", "shelf"])
    }
  }

  @Test func seeds_loadDemoProductsAndTemplates() throws {
    let seeds = Repository.path("seeds")
    try withDaemon(["--seed", seeds, "--simulate", "zebra=zpl"]) { d in
      let c = try d.client()
      let products = try c.call("products.list", [:], as: ProductsResult.self).products
      #expect(products.count >= 20)
      #expect(products.allSatisfy { $0.barcode.map { GTIN.problem($0) == nil } ?? false })
      let templates = try c.call("templates.list", [:], as: TemplatesResult.self).templates.map(
        \.name)
      #expect(templates == ["bin-tape", "price-tag-62", "shelf-2x1", "shipping-4x6"])
    }
  }
}
