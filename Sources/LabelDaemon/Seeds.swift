import FoundationEssentials
import LabelCore
import LabelLog
import LabelPOSIX
import LabelServer
import LabelWire

/// Demo data: `products.json` (an array of products) and `templates.json` (an array of
/// templates) in a directory, loaded into empty stores at start-up.
struct Seeds {
  let directory: String
  let log: Logger

  func load(into services: ServerContext) async throws {
    var loadedProducts = 0
    var loadedTemplates = 0
    if try await services.templates.count() == 0 {
      let path = "\(directory)/templates.json"
      if PlainFile.exists(path) {
        let bytes = try PlainFile.read(path)
        // The same checks as templates.save: a misspelt member is an error, not a default.
        let raw = try JSONValue.parse(bytes).arrayValue ?? []
        for (i, value) in raw.enumerated() {
          if let unknown = TemplateKeys.unknownMember(in: value) {
            throw unknown.nested(under: "templates.json[\(i)]")
          }
        }
        for template in try LabelJSON.decode([Template].self, from: try JSONValue.parse(bytes)) {
          try template.validate()
          _ = try await services.templates.save(template)
          loadedTemplates += 1
        }
      }
    }
    if try await services.products.count() == 0 {
      let path = "\(directory)/products.json"
      if PlainFile.exists(path) {
        let bytes = try PlainFile.read(path)
        for product in try LabelJSON.decode([ProductInput].self, from: try JSONValue.parse(bytes)) {
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
