import LabelCore
import LabelSQLite

/// Templates by name, in the database.
final class TemplateStore: Sendable {
  private let store: StateStore

  init(store: StateStore) { self.store = store }

  func save(_ template: Template) async throws(SaveFailure) -> Template {
    try await store.run { db throws(SQLiteError) in
      try db.statement("INSERT OR REPLACE INTO templates (name, json) VALUES (?, ?)")
        .bind(template.name, RowCoding.encode(template)).run()
      return template
    }
  }

  func get(_ name: String) async throws(SaveFailure) -> Template? {
    try await store.run { db throws(SQLiteError) in
      let s = try db.statement("SELECT json FROM templates WHERE name = ?").bind(name)
      return try s.first { RowCoding.decode(Template.self, $0.blob(0)) } ?? nil
    }
  }

  func list() async throws(SaveFailure) -> [Template] {
    try await store.run { db throws(SQLiteError) in
      let s = try db.statement("SELECT json FROM templates ORDER BY name")
      var out: [Template] = []
      while try s.step() {
        if let t = RowCoding.decode(Template.self, s.blob(0)) { out.append(t) }
      }
      return out
    }
  }
}
