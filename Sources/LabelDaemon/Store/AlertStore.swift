import Foundation
import LabelCore
import LabelSQLite

/// Where the alert channel keeps its journal across restarts.
protocol AlertPersistence: Sendable {
  /// Records an event. Called under the channel's lock, in seq order: it must only queue.
  func append(_ event: AlertEvent)
  /// Makes sure no seq up to `seq` is ever handed out again after a restart, even if the
  /// events themselves had not reached the disk when the process died. Synchronous.
  func reserve(through seq: UInt64)
  /// Forgets events up to `seq` that retention has dropped (queued).
  func forget(through seq: UInt64)
}

/// The alert journal on disk: every retained event by seq, the latest event of every alert
/// id (so the active set survives retention), and the reserved seq high-water mark.
final class AlertStore: AlertPersistence {
  private let store: StateStore

  init(store: StateStore) { self.store = store }

  /// The journal as it stood when the daemon last ran.
  func load(maxCount: Int, maxAge: TimeInterval) throws(SaveFailure) -> AlertJournal {
    try store.runSync { db throws(SQLiteError) in
      var latest: UInt64 = 0
      let maxSeq = try db.statement("SELECT max(seq) FROM alerts")
      if let m = try maxSeq.first({ $0.isNull(0) ? nil : $0.int(0) }) ?? nil { latest = UInt64(m) }
      let reserved = try db.statement("SELECT value FROM settings WHERE key = 'alert_seq_reserved'")
      if let v = try reserved.first({ $0.string(0).flatMap(UInt64.init) }) ?? nil {
        latest = max(latest, v)
      }
      var events: [AlertEvent] = []
      let recent = try db.statement("SELECT json FROM alerts ORDER BY seq DESC LIMIT ?").bind(
        maxCount)
      while try recent.step() {
        if let e = RowCoding.decode(AlertEvent.self, recent.blob(0)) { events.append(e) }
      }
      var active: [AlertEvent] = []
      let current = try db.statement("SELECT json FROM alert_latest WHERE state = 'active'")
      while try current.step() {
        if let e = RowCoding.decode(AlertEvent.self, current.blob(0)) { active.append(e) }
      }
      return AlertJournal(
        restoring: events.reversed(), active: active, latestSeq: latest, maxCount: maxCount,
        maxAge: maxAge)
    }
  }

  func append(_ event: AlertEvent) {
    let json = RowCoding.encode(event)
    store.enqueue("record alert \(event.seq)") { db throws(SQLiteError) in
      try db.transaction { () throws(SQLiteError) in
        try db.statement(
          "INSERT OR REPLACE INTO alerts (seq, id, state, time, json) VALUES (?, ?, ?, ?, ?)"
        )
        .bind(event.seq, event.id, event.state.rawValue, event.time.timeIntervalSince1970, json)
        .run()
        try db.statement(
          """
          INSERT INTO alert_latest (id, seq, state, json) VALUES (?, ?, ?, ?)
          ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, state = excluded.state, json = excluded.json
          WHERE excluded.seq > alert_latest.seq
          """
        ).bind(event.id, event.seq, event.state.rawValue, json).run()
      }
    }
  }

  func reserve(through seq: UInt64) {
    do {
      try store.runSync { db throws(SQLiteError) in
        try db.statement(
          "INSERT OR REPLACE INTO settings (key, value) VALUES ('alert_seq_reserved', ?)"
        )
        .bind(String(seq)).run()
      }
    } catch {
      // Alerts still flow (a full disk is when they matter most); only a crash before the
      // next successful reservation could reuse a seq.
    }
  }

  func forget(through seq: UInt64) {
    store.enqueue("prune the alert journal") { db throws(SQLiteError) in
      try db.statement("DELETE FROM alerts WHERE seq <= ?").bind(seq).run()
      try db.statement("DELETE FROM alert_latest WHERE seq <= ? AND state != 'active'").bind(seq)
        .run()
    }
  }
}
