import FoundationEssentials
import LabelCore
import LabelLog
import LabelServer

/// Demo data: `products.json` (an array of products) and `templates.json` (an array of
/// templates) in a directory, loaded into empty stores at start-up.
struct Seeds {
  let directory: String
  let log: Logger

  func load(into services: Services) async throws {
    let dir = URL(fileURLWithPath: directory, isDirectory: true)
    let decoder = LabelJSON.decoder()
    var loadedProducts = 0
    var loadedTemplates = 0
    if try await services.templates.count() == 0 {
      let url = dir.appendingPathComponent("templates.json")
      if FileManager.default.fileExists(atPath: url.path) {
        let bytes = try Data(contentsOf: url)
        // The same checks as templates.save: a misspelt member is an error, not a default.
        let raw = try JSONValue.parse([UInt8](bytes)).arrayValue ?? []
        for (i, value) in raw.enumerated() {
          if let unknown = TemplateKeys.unknownMember(in: value) {
            throw unknown.nested(under: "templates.json[\(i)]")
          }
        }
        for template in try decoder.decode([Template].self, from: bytes) {
          try template.validate()
          _ = try await services.templates.save(template)
          loadedTemplates += 1
        }
      }
    }
    if try await services.products.count() == 0 {
      let url = dir.appendingPathComponent("products.json")
      if FileManager.default.fileExists(atPath: url.path) {
        for product in try decoder.decode([ProductInput].self, from: Data(contentsOf: url)) {
          try product.validate()
          _ = try await services.products.save(product, expectedVersion: nil)
          loadedProducts += 1
        }
      }
    }
    log.info(
      "seeded \(loadedProducts) product(s) and \(loadedTemplates) template(s) from \(directory)")
  }
}
