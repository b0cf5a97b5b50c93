import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Real storage faults under a running daemon: a full disk (tmpfs), a read-only remount,
/// and a lock held by another process. Mounting needs root (CI runs as root); run the
/// suite as root elsewhere (`sudo make test`).
@Suite(
  .serialized, .enabled(if: getuid() == 0, "needs root to mount a tmpfs (run the tests as root)"))
struct StorageFaultTests {
  /// A daemon whose state dir is a small tmpfs of its own.
  final class SmallDisk {
    let home = DaemonProcess.makeTempDirectory()
    var state: URL { home.appendingPathComponent("state") }
    let daemon: DaemonProcess

    init(sizeKB: Int, _ extra: [String] = []) throws {
      try FileManager.default.createDirectory(
        at: home.appendingPathComponent("state"), withIntermediateDirectories: true)
      try Self.sh("mount -t tmpfs -o size=\(sizeKB)k tmpfs '\(home.path)/state'")
      daemon = try DaemonProcess(["--simulate", "zebra=zpl"] + extra, directory: home)
    }

    deinit {
      daemon.stop()
      _ = try? Self.sh("umount '\(home.path)/state'")
      try? FileManager.default.removeItem(at: home)
    }

    @discardableResult
    static func sh(_ command: String) throws -> Int32 { try Shell.run(command) }

    /// Fills the file system to the last byte.
    func fill() throws {
      try Self.sh("dd if=/dev/zero of='\(state.path)/filler' bs=4k 2>/dev/null; sync")
    }

    func free() throws {
      try FileManager.default.removeItem(at: state.appendingPathComponent("filler"))
    }
  }

  /// A product big enough that its save cannot reuse space the database already has.
  static func bigProduct(_ sku: String) -> JSONValue {
    [
      "product": [
        "sku": .string(sku), "name": "Bulky",
        "fields": ["blob": .string(String(repeating: "x", count: 200_000))],
      ]
    ]
  }

  @Test func diskFull_storageFull_afterThePrinterError_inOrder_readsWork_freeingClears() throws {
    let disk = try SmallDisk(sizeKB: 4096)
    let c = try disk.daemon.client()
    try c.call("products.save", ["product": ["sku": "OLD", "name": "Saved before"]])
    let w = try disk.daemon.client()
    try w.call("subscribe")
    try c.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
    try disk.fill()

    let e = try #require(c.error("products.save", Self.bigProduct("FULL")))
    #expect(e.code == 1004)
    #expect(e.data?["reason"] == "storageFull")
    #expect(e.data?["entity"] == "product")
    let printerAlert = try LabelJSON.decode(AlertEvent.self, from: try w.waitFor("alert"))
    let saveAlert = try LabelJSON.decode(AlertEvent.self, from: try w.waitFor("alert"))
    #expect(printerAlert.alert.kind == "printerError")
    #expect(saveAlert.id == "saveError:product:FULL")
    #expect(saveAlert.seq == printerAlert.seq + 1)
    // Nothing half-written, and reads keep working.
    #expect(c.error("products.get", ["sku": "FULL"])?.code == 1006)
    #expect(try c.call("products.get", ["sku": "OLD"])["product"]?["name"] == "Saved before")
    #expect(try c.call("printers.list", [:], as: PrintersResult.self).printers.count == 1)

    try disk.free()
    let saved = try c.call("products.save", Self.bigProduct("FULL"), as: ProductSaveResult.self)
    #expect(saved.product.version == 1)
    let cleared = try LabelJSON.decode(
      AlertEvent.self, from: try w.waitFor("alert") { $0["id"] == "saveError:product:FULL" })
    #expect(cleared.state == .cleared)
  }

  @Test func diskFull_jobSubmit_failsWithStorageFull_andNothingIsQueued() throws {
    let disk = try SmallDisk(sizeKB: 4096)
    let c = try disk.daemon.client()
    try disk.fill()
    let big: JSONValue = [
      "format": "native",
      "data": .string(Data(repeating: 0x41, count: 300_000).base64EncodedString()),
    ]
    let e = try #require(c.error("jobs.submit", ["printer": "sim:zebra", "document": big]))
    #expect(e.code == 1004)
    #expect(e.data?["reason"] == "storageFull")
    #expect(e.data?["entity"] == "job")
    #expect(try c.call("jobs.list", [:], as: JobsResult.self).jobs.isEmpty)
    try disk.free()
    let job = try c.call(
      "jobs.submit", ["printer": "sim:zebra", "document": big], as: JobResult.self
    ).job
    #expect(job.state == .pending)
  }

  /// Linux refuses to remount a file system read-only while files on it are open for
  /// writing (EBUSY), so the daemon is stopped, the state dir remounted read-only, and the
  /// daemon started on it: the way a state dir ends up read-only in practice.
  @Test func readOnlyStateDir_readOnly_thenWritableAgain() throws {
    let disk = try SmallDisk(sizeKB: 8192)
    var c = try disk.daemon.client()
    try c.call("products.save", ["product": ["sku": "RO", "name": "Before"]])
    disk.daemon.stop()
    #expect(try SmallDisk.sh("mount -o remount,ro '\(disk.state.path)'") == 0)
    let again = try DaemonProcess(["--simulate", "zebra=zpl"], directory: disk.home)
    defer { again.stop() }
    c = try again.client()
    let e = try #require(c.error("products.save", ["product": ["sku": "RO", "name": "During"]]))
    #expect(e.code == 1004)
    #expect(e.data?["reason"] == "readOnly", "\(e.message)")
    #expect(try c.call("printers.list", [:], as: PrintersResult.self).printers.count == 1)
    #expect(try SmallDisk.sh("mount -o remount,rw '\(disk.state.path)'") == 0)
    let saved = try c.call(
      "products.save", ["product": ["sku": "RO", "name": "After"]], as: ProductSaveResult.self)
    #expect(saved.product.version == 2)
    #expect(try c.call("alerts.active")["alerts"] == [])
  }

  @Test func lockHeldByAnotherProcess_busyWithinTheTimeout_thenSavesAgain() throws {
    try withDaemon(["--simulate", "zebra=zpl", "--busy-timeout-ms", "200"]) { d in
      let c = try d.client()
      try c.call("products.save", ["product": ["sku": "B", "name": "Before"]])
      // Another process takes the write lock and holds it until told to stop.
      let db = d.stateDirectory.appendingPathComponent("labeld.db").path
      let holder = Process()
      holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      holder.arguments = [
        "-c",
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); sys.stdin.readline()",
        db,
      ]
      let input = Pipe()
      let output = Pipe()
      holder.standardInput = input
      holder.standardOutput = output
      try holder.run()
      _ = output.fileHandleForReading.availableData  // "locked"

      let e = try #require(c.error("products.save", ["product": ["sku": "B", "name": "During"]]))
      #expect(e.code == 1004)
      #expect(e.data?["reason"] == "busy")
      #expect(try c.call("products.get", ["sku": "B"])["product"]?["name"] == "Before")

      try input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
      holder.waitUntilExit()
      let saved = try c.call(
        "products.save", ["product": ["sku": "B", "name": "After"]], as: ProductSaveResult.self)
      #expect(saved.product.version == 2)
    }
  }
}

/// A store that cannot be opened: labeld still starts and serves, every save answers
/// `unavailable`, and it recovers without a restart once the file can be opened.
@Suite struct UnavailableStoreTests {
  @Test func unopenableDatabase_unavailable_thenRecovers() throws {
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    // A directory where the database file should be.
    let blocker = home.appendingPathComponent("state/labeld.db")
    try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: true)
    let d = try DaemonProcess(["--simulate", "zebra=zpl"], directory: home)
    defer { d.stop() }
    let c = try d.client()
    #expect(try c.call("printers.list", [:], as: PrintersResult.self).printers.count == 1)
    let e = try #require(c.error("products.save", ["product": ["sku": "U", "name": "Unsaved"]]))
    #expect(e.code == 1004)
    #expect(e.data?["reason"] == "unavailable")
    let j = try #require(
      c.error(
        "jobs.submit",
        ["printer": "sim:zebra", "document": ["format": "native", "data": base64("x")]]))
    #expect(j.data?["reason"] == "unavailable")
    try FileManager.default.removeItem(at: blocker)
    let saved = try c.call(
      "products.save", ["product": ["sku": "U", "name": "Saved"]], as: ProductSaveResult.self)
    #expect(saved.product.version == 1)
    let active = try c.call("alerts.active", [:], as: AlertsResult.self).alerts.map(\.id)
    // The product's alert cleared; the job's stays until a job is kept.
    #expect(active == ["saveError:job:new"])
  }
}
