import LabelCore
import LabelEvents
import LabelSQLite

/// The web endpoint's bearer tokens, by name: role and the SHA-256 of the secret.
package final class TokenStore: Sendable {
  package struct Row: Sendable, Equatable {
    package var name: String
    package var role: String
    package var hash: [UInt8]
    package var createdAt: String
    package init(name: String, role: String, hash: [UInt8], createdAt: String) {
      self.name = name
      self.role = role
      self.hash = hash
      self.createdAt = createdAt
    }
  }

  private let store: StateStore

  package init(store: StateStore) { self.store = store }

  /// Adds `row`; false when a token of that name exists (it is left as it is).
  package func insert(_ row: Row) async throws(SaveFailure) -> Bool {
    try await store.run { db throws(SQLiteError) in
      let exists =
        try db.statement("SELECT 1 FROM tokens WHERE name = ?").bind(row.name)
        .first { _ in true } ?? false
      guard !exists else { return false }
      try db.statement(
        "INSERT INTO tokens (name, role, hash, created_at) VALUES (?, ?, ?, ?)"
      ).bind(row.name, row.role, row.hash, row.createdAt).run()
      return true
    }
  }

  /// Every token (a handful: they are made by hand).
  package func all() async throws(SaveFailure) -> [Row] {
    try await store.run { db throws(SQLiteError) in
      try db.statement("SELECT name, role, hash, created_at FROM tokens ORDER BY name").all {
        Row(
          name: $0.string(0) ?? "", role: $0.string(1) ?? "", hash: $0.blob(2),
          createdAt: $0.string(3) ?? "")
      }
    }
  }

  /// Deletes the token `name`; false when there was none.
  package func delete(_ name: String) async throws(SaveFailure) -> Bool {
    try await store.run { db throws(SQLiteError) in
      try db.statement("DELETE FROM tokens WHERE name = ?").bind(name).run()
      return db.changes > 0
    }
  }
}
