import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The state directory's file system turns read-only under a running labeld, as ext4 does
/// on an error with `errors=remount-ro` (here triggered through its sysfs knob on a loop
/// mount): saves say `readOnly` (the errno SQLite saw), not `io`. Needs root for the loop
/// mount (CI runs as root; `sudo make test` elsewhere).
@Suite(
  .serialized,
  .enabled(
    if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/sbin/mkfs.ext4"),
    "needs root and mkfs.ext4 (e2fsprogs) for a loop-mounted ext4 (run the tests as root)"))
struct FileSystemErrorTests {
  /// A labeld whose state dir is a small ext4 of its own on a loop device.
  final class LoopDisk {
    let home = DaemonProcess.makeTempDirectory()
    var state: URL { home.appendingPathComponent("state") }
    var image: String { home.path + ".img" }
    private(set) var daemon: DaemonProcess!

    init(_ arguments: [String] = ["--simulate", "zebra=zpl"]) throws {
      try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
      try Shell.check("dd if=/dev/zero of='\(image)' bs=1M count=16 status=none")
      try Shell.check("mkfs.ext4 -q '\(image)'")
      try Shell.check("mount -o loop,errors=remount-ro '\(image)' '\(state.path)'")
      daemon = try DaemonProcess(arguments, directory: home)
    }

    /// Makes ext4 record an error: with errors=remount-ro it goes read-only at once, with
    /// labeld's files open.
    func failFileSystem() throws {
      let device = try Shell.output("findmnt -n -o SOURCE '\(state.path)'")
      let name = URL(fileURLWithPath: device).lastPathComponent
      try Shell.check("echo labeld-test > /sys/fs/ext4/\(name)/trigger_fs_error")
    }

    deinit {
      daemon?.stop()
      _ = try? Shell.run("umount '\(state.path)'")
      unlink(image)
      try? FileManager.default.removeItem(at: home)
    }

  }

  @Test func fileSystemTurningReadOnlyUnderTheDaemon_savesSayReadOnly() throws {
    let disk = try LoopDisk()
    let c = try disk.daemon.client()
    let w = try disk.daemon.client()
    try w.call("subscribe", ["topics": ["alerts"]])
    try c.call("products.save", ["product": ["sku": "RO", "name": "Before"]])
    try disk.failFileSystem()
    let e = try #require(c.error("products.save", ["product": ["sku": "RO", "name": "During"]]))
    #expect(e.code == 1004)
    #expect(e.data?["reason"] == "readOnly", "\(e.message)")
    let alert = try w.waitFor("alert") { $0["kind"] == "saveError" && $0["key"] == "RO" }
    #expect(alert["reason"] == "readOnly")
    // A job: accepted only once durable, so refused the same way.
    let job = c.error(
      "jobs.submit",
      ["printer": "sim:zebra", "document": ["format": "native", "data": base64("^XA^XZ")]])
    #expect(job?.code == 1004)
    #expect(job?.data?["reason"] == "readOnly")
    #expect(try c.call("printers.list")["printers"]?.arrayValue?.count == 1)
  }
}
