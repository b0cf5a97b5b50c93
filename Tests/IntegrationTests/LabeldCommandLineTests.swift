import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The labeld executable's command line, and clients that go away at bad moments.
@Suite struct LabeldCommandLineTests {
  /// Runs labeld with `args` to completion; returns exit status, stdout and stderr.
  static func run(_ args: [String]) throws -> (Int32, String, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: DaemonProcess.labeldPath)
    p.arguments = args
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (
      p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self)
    )
  }

  @Test func help_andVersion() throws {
    let (status, out, _) = try Self.run(["--help"])
    #expect(status == 0)
    for flag in [
      "--socket", "--state-dir", "--simulate", "--max-message-bytes", "--seed", "--version",
      "--cups", "--no-cups", "--cups-language QUEUE=LANGUAGE",
    ] {
      #expect(out.contains(flag))
    }
    // The page is laid out as labelctl's (HelpText): nothing wider than 80 columns.
    let wide = out.split(separator: "\n").filter { $0.count > 80 }
    #expect(wide.isEmpty, "\(wide)")
    let (vstatus, vout, _) = try Self.run(["--version"])
    #expect(vstatus == 0)
    #expect(vout.contains(LabelVersion.version))
  }

  /// labeld(8) has a paragraph for every option of `--help`, and labeld.conf(5) one for
  /// every key (each option with a value, and cups and usb): the manuals cannot fall behind.
  @Test func manPages_nameEveryOption() throws {
    let root = Repository.root
    let manual = try String(
      contentsOf: root.appendingPathComponent("man/labeld.8"), encoding: .utf8)
    let conf = try String(
      contentsOf: root.appendingPathComponent("man/labeld.conf.5"), encoding: .utf8)
    let (_, help, _) = try Self.run(["--help"])
    var options: [(name: String, takesValue: Bool)] = []
    for row in help.split(separator: "\n") where row.hasPrefix("  -") {
      let head = row.dropFirst(2).components(separatedBy: "  ").first ?? ""
      for name in head.components(separatedBy: ", ") {
        let words = name.split(separator: " ")
        guard let flag = words.first, flag.hasPrefix("--") else { continue }
        options.append((String(flag), words.count > 1))
      }
    }
    #expect(options.count > 25, "read from --help: \(options)")
    for (name, takesValue) in options {
      #expect(
        manual.contains(name.replacingOccurrences(of: "-", with: "\\-")),
        "man/labeld.8 does not describe \(name)")
      let key = String(name.dropFirst(2))
      guard takesValue && name != "--config" || key == "cups" || key == "usb" else { continue }
      let described = [".B \(key)\n", ".B \(key)\\fR", "\\fB\(key)\\fR", "\\fB\(key)\n"]
        .contains { conf.contains($0) }
      #expect(described, "man/labeld.conf.5 does not describe the key \(key)")
    }
  }

  @Test(arguments: [
    ["--bogus"], ["--socket"], ["--simulate", "zebra"], ["--simulate", "z=zpl,dpi=1"],
    ["--max-message-bytes", "ten"], ["--log-level", "loud"], ["--cups-language", "label"],
    ["--cups-language", "label=epl"], ["--rest-after", "-1"], ["--rest-after", "soon"],
  ])
  func usageErrors_exit64_withAMessage(args: [String]) throws {
    let (status, _, err) = try Self.run(args)
    #expect(status == 64)
    #expect(err.contains("labeld:"))
    #expect(err.contains("--help"))
  }

  @Test func secondDaemonOnALiveSocket_refusesToStart() throws {
    try withDaemon { d in
      let (status, _, err) = try Self.run([
        "--socket", d.socketPath, "--state-dir", d.directory.path + "/other",
      ])
      #expect(status == 71)
      #expect(err.contains("another daemon is listening"))
      // The first one is unharmed.
      #expect(try d.client().call("hello")["server"] == "labeld")
    }
  }

  @Test func staleSocketFile_isReplaced() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let first = try DaemonProcess(["--simulate", "zebra=zpl"], directory: dir)
    first.kill9()  // leaves labeld.sock behind with nobody listening
    #expect(FileManager.default.fileExists(atPath: first.socketPath))
    let second = try DaemonProcess(["--simulate", "zebra=zpl"], directory: dir)
    #expect(try second.client().call("hello")["server"] == "labeld")
    second.stop()
  }

  @Test func clientsThatVanishMidRequest_doNotDisturbOthers() throws {
    try withDaemon { d in
      for _ in 0..<20 {
        // A request and then gone before the answer; half a line and then gone.
        let a = try d.client()
        try a.sendLine(Array(#"{"jsonrpc":"2.0","id":1,"method":"printers.list"}"#.utf8))
        shutdown(a.fileDescriptor, Int32(SHUT_RDWR))
        let b = try d.client()
        try b.sendRaw(Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8))
        shutdown(b.fileDescriptor, Int32(SHUT_RDWR))
      }
      let c = try d.client()
      #expect(try c.call("printers.list", [:], as: PrintersResult.self).printers.count == 2)
    }
  }
}
