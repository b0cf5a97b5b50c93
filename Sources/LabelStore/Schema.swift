import LabelSQLite

/// The database schema and its migrations. `PRAGMA user_version` records how far a file
/// has come; each step runs in its own transaction, so a crash mid-migration leaves the
/// previous version intact.
package enum Schema {
  package static var version: Int { steps.count }

  private static let steps: [String] = [
    // 1: products, templates, jobs (with their documents), the alert journal, settings.
    """
    CREATE TABLE products (
      sku TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      json BLOB NOT NULL
    );
    CREATE TABLE templates (
      name TEXT PRIMARY KEY,
      json BLOB NOT NULL
    );
    CREATE TABLE jobs (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      printer TEXT NOT NULL,
      state TEXT NOT NULL,
      copies INTEGER NOT NULL,
      printed INTEGER NOT NULL,
      created_at REAL NOT NULL,
      updated_at REAL NOT NULL,
      owner_uid INTEGER NOT NULL,
      error_reason TEXT,
      error_message TEXT,
      document BLOB NOT NULL
    );
    CREATE INDEX jobs_by_state ON jobs(state, id);
    CREATE TABLE alerts (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      state TEXT NOT NULL,
      time REAL NOT NULL,
      json BLOB NOT NULL
    );
    CREATE TABLE alert_latest (
      id TEXT PRIMARY KEY,
      seq INTEGER NOT NULL,
      state TEXT NOT NULL,
      json BLOB NOT NULL
    );
    CREATE TABLE settings (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );
    """,
    // 2: lists that page from indexes (`JobQuery`): a printer's jobs, an owner's jobs, and
    // jobs since a time, each in id order.
    """
    CREATE INDEX jobs_by_printer ON jobs(printer, id);
    CREATE INDEX jobs_by_owner ON jobs(owner_uid, id);
    CREATE INDEX jobs_by_created ON jobs(created_at);
    """,
    // 3: a product row's digest (`RowDigest`): set when labeld writes the row, it tells a
    // page that the bytes are what labeld's writer made and can be answered as they are.
    // Rows from before have none and are decoded, as every row was.
    """
    ALTER TABLE products ADD COLUMN digest INTEGER;
    """,
    // 4: a job's document in a table of its own. SQLite writes a whole row again when any
    // column of it changes: with the document in the job's row, each change of state
    // (processing, a copy printed, completed) wrote the label again, 5.5 times its size
    // in all for a job of one copy. Deleting a job deletes its document.
    """
    CREATE TABLE documents (
      job INTEGER PRIMARY KEY,
      data BLOB NOT NULL
    );
    INSERT INTO documents (job, data) SELECT id, document FROM jobs;
    ALTER TABLE jobs DROP COLUMN document;
    CREATE TRIGGER jobs_forget_documents AFTER DELETE ON jobs BEGIN
      DELETE FROM documents WHERE job = OLD.id;
    END;
    """,
    // 5: the web endpoint's bearer tokens: a name, a role, and the SHA-256 of the secret
    // (the secret itself is shown once, when it is made, and kept nowhere).
    """
    CREATE TABLE tokens (
      name TEXT PRIMARY KEY,
      role TEXT NOT NULL,
      hash BLOB NOT NULL,
      created_at TEXT NOT NULL
    );
    """,
    // 6: where a job came from (`JobOrigin`: the socket, the web endpoint or IPP), who sent
    // it as that front names them, and its name (IPP job-name). Rows from before have none
    // (the socket's).
    """
    ALTER TABLE jobs ADD COLUMN origin TEXT;
    ALTER TABLE jobs ADD COLUMN origin_user TEXT;
    ALTER TABLE jobs ADD COLUMN origin_name TEXT;
    """,
    // 7: a job whose document could not print says so (`JobError.document`: IPP's
    // document-format-error and document-unprintable-error).
    """
    ALTER TABLE jobs ADD COLUMN error_document TEXT;
    """,
  ]

  /// Brings `db` to `version` (default: the latest), a step at a time.
  package static func migrate(_ db: Database, to version: Int? = nil) throws(SQLiteError) {
    let current = try db.userVersion
    let target = min(version ?? steps.count, steps.count)
    guard current < target else { return }
    for (index, sql) in steps.enumerated() where index >= current && index < target {
      try db.transaction { () throws(SQLiteError) in
        try db.execute(sql)
        try db.execute("PRAGMA user_version = \(index + 1)")
      }
    }
  }
}
