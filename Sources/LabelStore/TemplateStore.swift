import LabelCore
import LabelEvents
import LabelSQLite

/// Templates by name, in the database.
package final class TemplateStore: Sendable {
  private let store: StateStore

  package init(store: StateStore) { self.store = store }

  package func save(_ template: Template) async throws(SaveFailure) -> Template {
    try await store.run { db throws(SQLiteError) in
      try db.statement("INSERT OR REPLACE INTO templates (name, json) VALUES (?, ?)")
        .bind(template.name, RowCoding.encode(template)).run()
      return template
    }
  }

  /// The stored template (or why its row cannot be read); nil when there is none.
  package func get(_ name: String) async throws(SaveFailure) -> StoredRow<Template>? {
    try await store.run { db throws(SQLiteError) in
      let s = try db.statement("SELECT json FROM templates WHERE name = ?").bind(name)
      return try s.first { RowCoding.row(Template.self, key: name, $0.blob(0)) }
    }
  }

  /// Templates in name order after `after`, a page at a time (see `ProductStore.page`).
  package func page(after: String?, limit: Int?) async throws(SaveFailure) -> (
    rows: [StoredRow<Template>], next: String?
  ) {
    try await store.run { db throws(SQLiteError) in
      try ProductStore.page(db, Self.pageSQL(limited: limit != nil), after: after, limit: limit) {
        RowCoding.row(Template.self, key: $0, $1.blob(1))
      }
    }
  }

  package static func pageSQL(limited: Bool) -> String {
    "SELECT name, json FROM templates WHERE name > ? ORDER BY name" + (limited ? " LIMIT ?" : "")
  }

  package func count() async throws(SaveFailure) -> Int {
    try await store.run { db throws(SQLiteError) in
      try db.statement("SELECT count(*) FROM templates").first { $0.int(0) } ?? 0
    }
  }
}
