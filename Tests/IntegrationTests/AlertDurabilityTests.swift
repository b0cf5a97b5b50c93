import Dispatch
import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Synchronization
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What a client saw of the alert channel, checked against what labeld replays later.
struct SeenAlerts {
  private(set) var bySeq: [UInt64: AlertEvent] = [:]
  var repeats: [String] = []

  /// Records an event; the same seq with other content is a seq handed out twice.
  mutating func add(_ event: AlertEvent) {
    if let old = bySeq[event.seq], old != event {
      repeats.append("seq \(event.seq) was \(old.id) \(old.state), now \(event.id) \(event.state)")
    }
    bySeq[event.seq] = event
  }
  var maxSeq: UInt64 { bySeq.keys.max() ?? 0 }
  func after(_ seq: UInt64) -> [AlertEvent] {
    bySeq.values.filter { $0.seq > seq }.sorted { $0.seq < $1.seq }
  }
}

extension BlockingConnection {
  /// Reads alert notifications until the one with seq `through` (the end of a replay that
  /// `subscribe` announced), skipping other notifications.
  func alerts(through seq: UInt64) throws -> [AlertEvent] {
    var out: [AlertEvent] = []
    while out.last?.seq != seq {
      let n = try nextNotification(timeout: 30)
      guard n.method == "alert" else { continue }
      let event = try LabelJSON.decode(AlertEvent.self, from: n.params)
      if event.seq > seq {
        throw LabelError.protocolViolation("replay passed \(seq) without it: \(event.seq)")
      }
      out.append(event)
    }
    return out
  }

  /// Alert notifications already received (a request's alerts come before its response).
  func receivedAlerts() -> [AlertEvent] {
    var out: [AlertEvent] = []
    while let n = try? nextNotification(timeout: 0.001) {
      if n.method == "alert", let e = try? LabelJSON.decode(AlertEvent.self, from: n.params) {
        out.append(e)
      }
    }
    return out
  }

  /// `count` printers.simulate calls toggling `printer` between `fault` and none (starting
  /// with the fault), pipelined a hundred at a time; with the client subscribed, returns
  /// the alerts that came with the answers. Stops when labeld goes away, printing why (a
  /// test that expected more alerts then shows what ended them).
  @discardableResult
  func toggle(_ printer: String, _ fault: String, count: Int) -> [AlertEvent] {
    var alerts: [AlertEvent] = []
    var sent = 0
    while sent < count {
      let n = min(100, count - sent)
      var batch: [UInt8] = []
      for i in sent..<(sent + n) {
        let value = i % 2 == 0 ? "\"\(fault)\"" : "null"
        batch +=
          Array(
            #"{"jsonrpc":"2.0","id":\#(1_000_000 + i),"method":"printers.simulate","params":{"printer":"\#(printer)","fault":\#(value)}}"#
              .utf8) + [0x0A]
      }
      do { try sendRaw(batch) } catch {
        // Some callers expect the connection to end (an overflow); the log says why.
        print("toggle: sending stopped after \(sent) of \(count): \(error)")
        return alerts
      }
      var answered = 0
      while answered < n {
        let m: JSONValue
        do { m = try readMessage() } catch {
          print("toggle: reading stopped after \(answered) of \(n) answers: \(error)")
          return alerts
        }
        if m["id"] != nil {
          answered += 1
          if let error = m["error"] { print("toggle: printers.simulate answered \(error)") }
        } else if m["method"] == "alert", let p = m["params"],
          let e = try? LabelJSON.decode(AlertEvent.self, from: p)
        {
          alerts.append(e)
        }
      }
      sent += n
    }
    return alerts
  }
}

/// Alerts a client has seen survive `kill -9`, and `subscribe` after a crash names an event
/// that exists.
@Suite struct AlertCrashTests {
  /// A subscriber receives alerts while printers fault and recover in bursts; labeld gets
  /// SIGKILL right after a random delivery; after the restart, `subscribe since: S` must
  /// replay every event the client saw after S (identical, same seq) or say `gap`, and
  /// the replay must reach the seq the result announced. Seqs never repeat.
  @Test func killNineRightAfterADelivery_replayHasEverySeenEvent_orSaysGap() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let args = [
      "--simulate", "zebra=zpl", "--simulate", "ql=brother-ql", "--alert-retention", "100000",
    ]
    var seen = SeenAlerts()
    var verified = 0
    for round in 0..<25 {
      let d = try DaemonProcess(args, directory: home)
      if round > 0 {
        let since: UInt64 =
          round % 5 == 0
          ? 0 : seen.after(0).map(\.seq).suffix(40).randomElement() ?? 0
        let r = try d.client()
        let result = try r.call("subscribe", ["since": .int(Int(since))], as: SubscribeResult.self)
        #expect(result.seq >= seen.maxSeq, "round \(round): the newest event went back")
        let replayed = result.seq > since ? try r.alerts(through: result.seq) : []
        for e in replayed { seen.add(e) }
        if result.gap != true {
          verified += 1
          let got = Dictionary(replayed.map { ($0.seq, $0) }) { a, _ in a }
          for e in seen.after(since) where got[e.seq] != e {
            Issue.record("round \(round): event \(e.seq) seen before the crash is not replayed")
          }
        }
      }
      // Live: faults come and go in bursts while the watcher reads; SIGKILL right after
      // the k-th delivery (sometimes a moment later).
      let watcher = try d.client()
      try watcher.call("subscribe", ["topics": ["alerts"]])
      let done = DispatchGroup()
      let path = d.socketPath
      for (printer, fault) in [("sim:zebra", "paused"), ("sim:ql", "coverOpen")] {
        done.enter()
        Thread.detachNewThread {
          defer { done.leave() }
          guard let c = try? BlockingConnection(socketPath: path) else { return }
          c.timeout = 10
          while true {
            c.toggle(printer, fault, count: 40)
            guard (try? c.call("hello")) != nil else { return }
          }
        }
      }
      let k = Int.random(in: 1...60)
      var received = 0
      while received < k {
        let n = try watcher.nextNotification(timeout: 30)
        guard n.method == "alert" else { continue }
        seen.add(try LabelJSON.decode(AlertEvent.self, from: n.params))
        received += 1
      }
      if round % 2 == 1 { usleep(UInt32.random(in: 0...3_000)) }
      d.kill9()
      done.wait()
    }
    #expect(seen.repeats == [])
    #expect(verified > 10, "most replays must be checked, not excused by a gap")
  }

  /// After a crash, `subscribe` reports the newest event's seq, not a reservation mark no
  /// event has: a client waiting for the replay to reach it gets there.
  @Test func subscribeAfterACrash_reportsTheNewestEventsSeq() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    var d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    let c = try d.client()
    try c.call("subscribe")
    // Ends with the fault cleared: nothing is left for the restart to clear.
    let seen = c.toggle("sim:zebra", "mediaEmpty", count: 6)
    #expect(seen.map(\.seq) == Array(1...6))
    d.kill9()
    d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    defer { d.stop() }
    let result = try d.client().call("subscribe", [:], as: SubscribeResult.self)
    #expect(result.seq == 6)
    let r = try d.client()
    let replay = try r.call("subscribe", ["since": 0], as: SubscribeResult.self)
    #expect(replay.gap == nil)
    #expect(try r.alerts(through: replay.seq) == seen)
    let w = try d.client()
    try w.call("subscribe")
    #expect(try #require(w.toggle("sim:zebra", "paused", count: 1).first).seq > 6)
  }
}

extension AlertCrashTests {
  /// Damaged journal rows and values (an undecodable event, a negative seq, an event at
  /// seq 0, a seq at Int64.max, a reservation that is not a number) neither crash labeld nor vanish in
  /// silence: they are reported as a saveError, a replay over the unreadable event says
  /// `gap`, and the sequence goes on from the real events, not from the bogus values.
  @Test func damagedStoredAlerts_areReported_neverCrash_andAReplayOverThemSaysGap() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    var d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    let c = try d.client()
    try c.call("subscribe")
    let seen = c.toggle("sim:zebra", "paused", count: 4)
    #expect(seen.map(\.seq) == Array(1...4))
    d.stop()
    let db = d.stateDirectory.appendingPathComponent("labeld.db").path
    let damage = Process()
    damage.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    damage.arguments = [
      "-c",
      """
      import sqlite3, sys
      c = sqlite3.connect(sys.argv[1])
      c.execute("UPDATE alerts SET json = x'7b6e6f' WHERE seq = 2")
      c.execute("INSERT INTO alerts VALUES (-5, 'x', 'active', 0, x'7b7d')")
      c.execute("INSERT INTO alerts SELECT 0, id, state, time, "
                "replace(json, '\\"seq\\":1,', '\\"seq\\":0,') FROM alerts WHERE seq = 1")
      c.execute("INSERT INTO alerts VALUES (9223372036854775807, 'y', 'active', 0, x'7b7d')")
      c.execute("INSERT OR REPLACE INTO settings VALUES ('alert_seq_reserved', 'lots')")
      c.commit()
      """,
      db,
    ]
    try damage.run()
    damage.waitUntilExit()
    #expect(damage.terminationStatus == 0)

    d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    defer { d.stop() }
    let r = try d.client()
    let active = try r.call("alerts.active", [:], as: AlertsResult.self).alerts
    #expect(active.map(\.id) == ["saveError:settings:alert-journal-data"])
    let result = try r.call("subscribe", ["since": 0], as: SubscribeResult.self)
    #expect(result.gap == true, "event 2 cannot be read back")
    let replay = try r.alerts(through: result.seq)
    #expect(replay.filter { $0.seq <= 4 } == [seen[0], seen[2], seen[3]])
    #expect(replay.allSatisfy { $0.seq < 1 << 53 }, "the bogus seqs are not continued from")
  }
}

/// The journal or the sequence cannot be written, for real: a full disk (tmpfs), a state
/// file system that turns read-only under labeld (ext4 on a loop device, its error
/// behaviour `remount-ro`), a database that cannot be opened. Mounting needs root.
@Suite(.serialized, .enabled(if: getuid() == 0, "needs root to mount file systems"))
struct AlertStorageFaultTests {
  static let journalAlert = "saveError:settings:alert-journal"

  /// Fills the small disk, then raises and clears a fault 15 times: every journal write
  /// fails from the first. Returns everything the (subscribed) client received.
  static func alertsWhileTheJournalFails(
    _ c: BlockingConnection, _ disk: StorageFaultTests.SmallDisk
  )
    throws -> [AlertEvent]
  {
    try disk.fill()
    return c.toggle("sim:zebra", "mediaEmpty", count: 30)
  }

  @Test func journalCannotBeWritten_alertsStillDeliveredLive_andReplayAfterRestartSaysGap()
    throws
  {
    let disk = try StorageFaultTests.SmallDisk(sizeKB: 4096)
    defer { withExtendedLifetime(disk) {} }  // unmounted only after `again` has stopped
    let c = try disk.daemon.client()
    let since = try c.call("subscribe", [:], as: SubscribeResult.self).seq
    let before = c.toggle("sim:zebra", "paused", count: 2)
    let during = try Self.alertsWhileTheJournalFails(c, disk)
    // One saveError says the journal cannot be written, and why.
    let failures = during.filter { $0.id == Self.journalAlert }
    #expect(failures.count == 1)
    if case .saveError(let d)? = failures.first?.alert { #expect(d.reason == .storageFull) }
    // Delivered live although the journal could not take them.
    #expect(during.filter { $0.id == "printerError:sim:zebra" }.count == 30)
    disk.daemon.kill9()
    try disk.free()

    let again = try DaemonProcess(["--simulate", "zebra=zpl"], directory: disk.home)
    defer { again.stop() }
    let r = try again.client()
    let result = try r.call("subscribe", ["since": .int(Int(since))], as: SubscribeResult.self)
    #expect(result.gap == true, "events seen live are missing from the journal")
    let replay = try r.alerts(through: result.seq)
    #expect(before.allSatisfy(replay.contains), "what was written is replayed")
    let seen = (before + during).map(\.seq).max() ?? 0
    let w = try again.client()
    try w.call("subscribe")
    #expect(try #require(w.toggle("sim:zebra", "offline", count: 1).first).seq > seen)
  }

  @Test func journalFailsThenTheDiskRecovers_theHoleIsFilled_replayIsCompleteWithoutGap() throws {
    let disk = try StorageFaultTests.SmallDisk(sizeKB: 4096)
    defer { withExtendedLifetime(disk) {} }  // unmounted only after `again` has stopped
    let c = try disk.daemon.client()
    let since = try c.call("subscribe", [:], as: SubscribeResult.self).seq
    var seen = c.toggle("sim:zebra", "paused", count: 2)
    seen += try Self.alertsWhileTheJournalFails(c, disk)
    #expect(seen.contains { $0.id == Self.journalAlert })
    try disk.free()
    seen += c.toggle("sim:zebra", "offline", count: 2)
    // The unwritten events are written again; then the journal's alert clears.
    if seen.contains(where: { $0.id == Self.journalAlert }),
      !seen.contains(where: { $0.id == Self.journalAlert && $0.state == .cleared })
    {
      seen.append(
        try LabelJSON.decode(
          AlertEvent.self,
          from: try c.waitFor("alert") { $0["id"] == .string(Self.journalAlert) }))
    }
    #expect(seen.last { $0.id == Self.journalAlert }?.state == .cleared)
    disk.daemon.kill9()

    let again = try DaemonProcess(["--simulate", "zebra=zpl"], directory: disk.home)
    defer { again.stop() }
    let r = try again.client()
    let result = try r.call("subscribe", ["since": .int(Int(since))], as: SubscribeResult.self)
    #expect(result.gap == nil)
    let replay = try r.alerts(through: result.seq)
    #expect(seen.allSatisfy(replay.contains), "every event seen live is replayed")
  }

  /// A clean stop, then a run whose database cannot be opened (a garbage file in its
  /// place), with and without the sequence file: its seqs do not repeat earlier ones, and
  /// once the database is back a replay over that run says `gap`.
  @Test(arguments: [true, false])
  func storeCannotBeOpenedAtStart_seqsDoNotRepeat(keepSequenceFile: Bool) throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let args = ["--simulate", "zebra=zpl"]
    var d = try DaemonProcess(args, directory: home)
    var c = try d.client()
    try c.call("subscribe")
    let first = c.toggle("sim:zebra", "paused", count: 4)
    #expect(first.count == 4)
    d.stop()

    let state = d.stateDirectory
    let saved = home.appendingPathComponent("saved")
    try FileManager.default.createDirectory(at: saved, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(atPath: state.path)
    where name.hasPrefix("labeld.db") || (!keepSequenceFile && name == "alert-seq") {
      try FileManager.default.moveItem(
        at: state.appendingPathComponent(name), to: saved.appendingPathComponent(name))
    }
    if !keepSequenceFile {
      for name in try FileManager.default.contentsOfDirectory(atPath: home.path)
      where name.hasPrefix("labeld-alert-seq-") {
        try FileManager.default.removeItem(at: home.appendingPathComponent(name))
      }
    }
    try Data("this is not an SQLite database".utf8).write(
      to: state.appendingPathComponent("labeld.db"))

    d = try DaemonProcess(args, directory: home)
    c = try d.client()
    try c.call("subscribe")
    let second = c.toggle("sim:zebra", "paused", count: 4).filter {
      $0.id == "printerError:sim:zebra"
    }
    #expect(second.count == 4)
    #expect(
      second.allSatisfy { $0.seq > first.last!.seq }, "seqs of the first run were handed out again")
    d.kill9()

    try FileManager.default.removeItem(at: state.appendingPathComponent("labeld.db"))
    for name in try FileManager.default.contentsOfDirectory(atPath: saved.path)
    where name.hasPrefix("labeld.db") {
      try FileManager.default.moveItem(
        at: saved.appendingPathComponent(name), to: state.appendingPathComponent(name))
    }
    d = try DaemonProcess(args, directory: home)
    defer { d.stop() }
    c = try d.client()
    let result = try c.call(
      "subscribe", ["since": .int(Int(first.last!.seq))], as: SubscribeResult.self)
    #expect(result.gap == true, "the second run's events were never journaled")
    let third = c.toggle("sim:zebra", "paused", count: 1)
    #expect(try #require(third.first).seq > second.last!.seq)
  }

  /// The state file system turns read-only while labeld runs, and more than a reservation
  /// block of alerts flows: every reservation fails on it. After `kill -9` the next start
  /// continues above every seq handed out, and a replay over the time says `gap`. Without
  /// a runtime mirror, and restarted while still read-only, then again once repaired, the
  /// clock floor keeps the sequence going up.
  @Test(arguments: [true, false])
  func stateFileSystemTurnsReadOnly_pastAReservationBlock_seqsDoNotRepeatAfterACrash(
    mirror: Bool
  ) throws {
    let home = DaemonProcess.makeTempDirectory()
    let image = home.appendingPathComponent("state.img").path
    let state = home.appendingPathComponent("state").path
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    #expect(
      try StorageFaultTests.SmallDisk.sh("truncate -s 64M '\(image)' && mkfs.ext4 -q '\(image)'")
        == 0)
    let mount = "mount -o loop,errors=remount-ro '\(image)' '\(state)'"
    #expect(try StorageFaultTests.SmallDisk.sh(mount) == 0)
    defer {
      _ = try? StorageFaultTests.SmallDisk.sh("umount '\(state)'")
      try? FileManager.default.removeItem(at: home)
    }
    // A regular file where the runtime directory should be: no mirror.
    let env = mirror ? [:] : ["RUNTIME_DIRECTORY": "/dev/null"]
    let args = ["--simulate", "zebra=zpl"]
    var d = try DaemonProcess(args, directory: home, environment: env)
    var c = try d.client()
    try c.call("subscribe")
    let written = c.toggle("sim:zebra", "paused", count: 2)
    let since = try #require(written.last).seq
    let device = URL(fileURLWithPath: try Shell.output("findmnt -no SOURCE '\(state)'"))
      .lastPathComponent
    #expect(
      try StorageFaultTests.SmallDisk.sh("echo 1 > /sys/fs/ext4/\(device)/trigger_fs_error") == 0)
    let during = c.toggle("sim:zebra", "paused", count: 1200)
    #expect(during.contains { $0.id == Self.journalAlert })
    var highest = (written + during).map(\.seq).max()!
    #expect(highest > 1100, "more than a block of seqs handed out while nothing could be written")
    d.kill9()

    if !mirror {
      // Restarted while the file system is still read-only.
      d = try DaemonProcess(args, directory: home, environment: env)
      c = try d.client()
      let result = try c.call("subscribe", ["since": .int(Int(since))], as: SubscribeResult.self)
      #expect(result.gap == true)
      try c.call("subscribe")
      let next = try #require(c.toggle("sim:zebra", "offline", count: 1).first).seq
      #expect(next > highest)
      highest = next
      d.kill9()
    }
    // Repaired and mounted again.
    #expect(
      try StorageFaultTests.SmallDisk.sh(
        "umount '\(state)' && e2fsck -fy '\(image)' >/dev/null; \(mount)") == 0)
    d = try DaemonProcess(args, directory: home, environment: env)
    defer { d.stop() }
    c = try d.client()
    let result = try c.call("subscribe", ["since": .int(Int(since))], as: SubscribeResult.self)
    #expect(result.gap == true, "events delivered while read-only were never journaled")
    try c.call("subscribe")
    #expect(try #require(c.toggle("sim:zebra", "offline", count: 1).first).seq > highest)
  }

}
