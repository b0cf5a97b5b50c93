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

  /// The stored template (or why its row cannot be read); nil when there is none.
  func get(_ name: String) async throws(SaveFailure) -> StoredRow<Template>? {
    try await store.run { db throws(SQLiteError) in
      let s = try db.statement("SELECT json FROM templates WHERE name = ?").bind(name)
      return try s.first { RowCoding.row(Template.self, key: name, $0.blob(0)) }
    }
  }

  func list() async throws(SaveFailure) -> [StoredRow<Template>] {
    try await store.run { db throws(SQLiteError) in
      let s = try db.statement("SELECT name, json FROM templates ORDER BY name")
      var out: [StoredRow<Template>] = []
      while try s.step() {
        out.append(RowCoding.row(Template.self, key: s.string(0) ?? "", s.blob(1)))
      }
      return out
    }
  }

  func count() async throws(SaveFailure) -> Int {
    try await store.run { db throws(SQLiteError) in
      try db.statement("SELECT count(*) FROM templates").first { $0.int(0) } ?? 0
    }
  }
}
