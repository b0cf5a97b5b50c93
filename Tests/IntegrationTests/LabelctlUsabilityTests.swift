import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What a new user of labelctl tripped on, each fixed: a partial save that erased data,
/// a follower that showed nothing of what was already wrong, owners as bare uids, "1
/// copies", and a permission problem reported as a daemon that is not running.
@Suite struct LabelctlUsabilityTests {
  @Test func saveWithSomeOptions_keepsWhatTheyDoNotName() throws {
    let d = try DaemonProcess()
    defer { d.stop() }
    let full = try d.ctl(
      "products", "save", "--sku", "M-1", "--name", "Milk", "--price", "1.19", "--currency",
      "EUR", "--barcode", "4006381333931", "--field", "origin=DE", "--field", "size=1 L")
    #expect(full.status == 0, "\(full.stderr)")
    // Only the name changes; price, currency, barcode and fields stay as stored.
    let rename = try d.ctl("products", "save", "--sku", "M-1", "--name", "Whole milk")
    #expect(rename.status == 0, "\(rename.stderr)")
    #expect(rename.stdout == "saved product M-1 (version 2)\n")
    var p = try d.ctl("--json", "products", "show", "M-1").json()["product"]
    #expect(p?["name"] == "Whole milk" && p?["price"] == 1.19 && p?["currency"] == "EUR")
    #expect(p?["barcode"] == "4006381333931")
    #expect(p?["fields"] == ["origin": "DE", "size": "1 L"])
    // A field is added or replaced, others kept; --unset removes one value.
    let edit = try d.ctl(
      "products", "save", "--sku", "M-1", "--field", "size=0.5 L", "--unset", "barcode",
      "--unset", "field.origin")
    #expect(edit.status == 0, "\(edit.stderr)")
    p = try d.ctl("--json", "products", "show", "M-1").json()["product"]
    #expect(p?["barcode"] == nil && p?["price"] == 1.19 && p?["fields"] == ["size": "0.5 L"])
    #expect(p?["name"] == "Whole milk" && p?["version"] == 3)
  }

  @Test func saveOfANewProductWithoutAName_isAUsageError_andAStaleOneAConflict() throws {
    let d = try DaemonProcess()
    defer { d.stop() }
    let nameless = try d.ctl("products", "save", "--sku", "NEW", "--price", "2")
    #expect(nameless.status == 64)
    #expect(nameless.stderr.contains("product NEW does not exist yet: --name NAME is required"))
    #expect(try d.ctl("products", "save", "--sku", "NEW", "--name", "new").status == 0)
    // Someone else saved version 2 meanwhile: a save made from version 1 is refused.
    #expect(try d.ctl("products", "save", "--sku", "NEW", "--name", "theirs").status == 0)
    let stale = try d.ctl(
      "products", "save", "--sku", "NEW", "--price", "3", "--expected-version", "1")
    #expect(stale.status == 1)
    #expect(stale.stderr.contains("(error 1004)") && stale.stderr.contains("version 2"))
    let bad = try d.ctl("products", "save", "--sku", "NEW", "--unset", "name")
    #expect(bad.status == 64 && bad.stderr.contains("--unset takes price, currency, barcode"))
  }

  /// A follower started while a printer is already faulted shows that alert first, then
  /// what happens next.
  @Test func alertsFollow_showsWhatIsActiveFirst() throws {
    let d = try DaemonProcess()
    defer { d.stop() }
    #expect(try d.ctl("simulate", "sim:ql", "coverOpen").status == 0)
    let follower = try Follower(d.socketPath, "alerts", "--follow")
    defer { follower.process.terminate() }
    let first = follower.readLines(until: { $0.contains("printerError:sim:ql") })
    #expect(first.last?.contains("active printerError:sim:ql (coverOpen)") == true)
    #expect(try d.ctl("simulate", "sim:ql", "clear").status == 0)
    let next = follower.readLines(until: { $0.contains("cleared") })
    #expect(next.last?.contains("cleared printerError:sim:ql") == true, "\(follower.seen)")
  }

  @Test func jobs_showOwnersByName_andCountCopiesInEnglish() throws {
    let d = try DaemonProcess()
    defer { d.stop() }
    let zpl = try d.file("one.zpl", "^XA^XZ")
    let printed = try d.ctl("print", "sim:zebra", "--file", zpl)
    #expect(printed.stdout.hasSuffix("(1 copy)\n"), "\(printed.stdout)")
    let many = try d.ctl("print", "sim:zebra", "--file", zpl, "--copies", "2")
    #expect(many.stdout.hasSuffix("(2 copies)\n"), "\(many.stdout)")
    let me = Output.userName(getuid()) ?? "?"
    let list = try d.ctl("jobs")
    let row = list.stdout.split(separator: "\n").dropFirst().first ?? ""
    #expect(row.contains("  \(me)  "), "OWNER is the user's name: \(list.stdout)")
    let show = try d.ctl("jobs", "show", "1")
    #expect(show.stdout.contains("Owner") && show.stdout.contains("\(me) (uid \(getuid()))"))
    #expect(show.stdout.contains("1 of 1 copy") || show.stdout.contains("0 of 1 copy"))
    let mine = try d.ctl("--json", "jobs", "--owner", me).json()["jobs"]?.arrayValue
    #expect(mine?.count == 2)
  }

  /// A user who may not open the socket is told so, with the group to join; not told to
  /// start a daemon that is running. Needs root, to run labelctl as `nobody`.
  @Test(.enabled(if: getuid() == 0, "needs root to run labelctl as another user"))
  func socketThisUserMayNotOpen_saysWhichGroupToJoin() throws {
    // The socket belongs to group `users` (mode 0660); nobody is not in it.
    let d = try DaemonProcess(DaemonProcess.defaultArguments + ["--socket-group", "users"])
    defer { d.stop() }
    chmod(d.directory.path, 0o755)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    p.arguments = [
      "--reuid", "65534", "--regid", "65534", "--clear-groups", DaemonProcess.labelctlPath,
      "--socket", d.socketPath, "printers",
    ]
    let err = Pipe()
    p.standardError = err
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    #expect(p.terminationStatus == 69)
    #expect(text.contains("permission denied for labeld's socket \(d.socketPath)"), "\(text)")
    #expect(text.contains("mode 0660, group users") && text.contains("usermod -aG users"))
    #expect(!text.contains("Start it"), "labeld is running; starting it is not the fix")
  }
}

/// labelctl's user-name lookup, for the tests' expectations.
enum Output {
  static func userName(_ uid: uid_t) -> String? {
    guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
    return String(cString: name)
  }
}
