import FoundationEssentials
import LabelCore
import LabelEvents
import LabelSQLite

/// The alert journal on disk: every retained event by seq, and the latest event of every
/// alert id (so the active set survives retention). The sequence itself is kept in the
/// sequence file (`AlertSequence`); the `settings` row `alert_seq_reserved` is only read,
/// from databases written before it.
package final class AlertStore: AlertPersistence {
  private let store: StateStore

  package init(store: StateStore) { self.store = store }

  /// The journal as the last run left it, with everything that could not be read named
  /// in `problems` (and the seqs of unreadable events in `stored.unreadable`): a damaged
  /// row is reported and replays over it say `gap`, it is never skipped in silence.
  package struct Loaded {
    package var events: [AlertEvent] = []
    package var active: [AlertEvent] = []
    package var stored = SequenceStart.Stored()
    package var problems: [String] = []

    package init(events: [AlertEvent] = [], active: [AlertEvent] = [], problems: [String] = []) {
      self.events = events
      self.active = active
      self.problems = problems
    }
  }

  package func load(maxCount: Int) throws(SaveFailure) -> Loaded {
    try store.runSync { db throws(SQLiteError) in
      var loaded = Loaded()
      let limit = Int64(SequenceRecord.maxSeq)
      let impossible =
        try db.statement(
          "SELECT (SELECT count(*) FROM alerts WHERE seq < 1 OR seq > ?1)"
            + " + (SELECT count(*) FROM alert_latest WHERE seq < 1 OR seq > ?1)"
        ).bind(limit).first { $0.int(0) } ?? 0
      if impossible > 0 {
        loaded.problems.append("\(impossible) alert row(s) have a seq outside 1...2^53; ignored")
      }
      loaded.stored.maxSeq = UInt64(
        try db.statement(
          "SELECT max(coalesce((SELECT max(seq) FROM alerts WHERE seq BETWEEN 1 AND ?1), 0),"
            + " coalesce((SELECT max(seq) FROM alert_latest WHERE seq BETWEEN 1 AND ?1), 0))"
        ).bind(limit).first { max(0, $0.int(0)) } ?? 0)
      loaded.stored.hasEvents = loaded.stored.maxSeq > 0
      let legacy =
        try db.statement(
          "SELECT value FROM settings WHERE key = 'alert_seq_reserved'"
        ).first { $0.string(0) } ?? nil
      if let legacy {
        if let v = UInt64(legacy), v <= SequenceRecord.maxSeq {
          loaded.stored.legacyReserved = v
        } else {
          loaded.problems.append("the stored alert seq reservation \"\(legacy)\" is not a seq")
        }
      }
      let recent = try db.statement(
        "SELECT seq, json FROM alerts WHERE seq BETWEEN 1 AND ? ORDER BY seq DESC LIMIT ?"
      ).bind(limit, maxCount)
      while try recent.step() {
        let seq = UInt64(recent.int(0))
        let why: String
        do {
          let event = try RowCoding.decoded(AlertEvent.self, recent.blob(1))
          if event.seq == seq {
            loaded.events.append(event)
            continue
          }
          why = "its JSON says seq \(event.seq)"
        } catch {
          why = "\(error)"
        }
        loaded.stored.unreadable.append(seq)
        loaded.problems.append("alert event \(seq) cannot be read (\(why))")
      }
      loaded.events.reverse()
      let current = try db.statement(
        "SELECT id, seq, json FROM alert_latest WHERE state = 'active' AND seq BETWEEN 1 AND ?"
      ).bind(limit)
      while try current.step() {
        do {
          loaded.active.append(try RowCoding.decoded(AlertEvent.self, current.blob(2)))
        } catch {
          loaded.problems.append(
            "active alert \(current.string(0) ?? "?") (seq \(current.int(1))) cannot be read")
        }
      }
      return loaded
    }
  }

  package func write(
    _ events: [AlertEvent], forgetThrough: UInt64?,
    done: @escaping @Sendable (SaveFailure?) -> Void
  ) {
    let rows = events.map { ($0, RowCoding.encode($0)) }
    store.submit(
      { db throws(SQLiteError) in
        try db.transaction { () throws(SQLiteError) in
          let insert = try db.statement(
            "INSERT OR REPLACE INTO alerts (seq, id, state, time, json) VALUES (?, ?, ?, ?, ?)")
          let latest = try db.statement(
            """
            INSERT INTO alert_latest (id, seq, state, json) VALUES (?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, state = excluded.state, json = excluded.json
            WHERE excluded.seq > alert_latest.seq
            """)
          for (event, json) in rows {
            try insert.bind(
              event.seq, event.id, event.state.rawValue, event.time.timeIntervalSince1970, json
            ).run()
            try latest.bind(event.id, event.seq, event.state.rawValue, json).run()
          }
          if let forgetThrough {
            try db.statement("DELETE FROM alerts WHERE seq <= ?").bind(forgetThrough).run()
            try db.statement("DELETE FROM alert_latest WHERE seq <= ? AND state != 'active'")
              .bind(forgetThrough).run()
          }
        }
      }, done: done)
  }
}
