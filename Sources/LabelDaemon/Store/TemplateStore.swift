import LabelCore
import Synchronization

/// Templates by name. In memory until the durable store lands; the API is final.
final class TemplateStore: Sendable {
  private let templates = Mutex<[String: Template]>([:])

  init() {}

  func save(_ template: Template) async throws(SaveFailure) -> Template {
    templates.withLock { $0[template.name] = template }
    return template
  }

  func get(_ name: String) async -> Template? { templates.withLock { $0[name] } }

  func list() async -> [Template] {
    templates.withLock { Array($0.values) }.sorted { $0.name < $1.name }
  }
}
