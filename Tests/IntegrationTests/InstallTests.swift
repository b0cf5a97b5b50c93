import Foundation
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// `make install` lays out every file, and the systemd units pass systemd's own checks:
/// `systemd-analyze verify` is clean and `systemd-analyze security` scores at most 2.0.
@Suite struct InstallTests {
  static let root = Repository.root

  /// Runs `argv` in the repository; returns status and stdout+stderr.
  @discardableResult
  static func run(_ argv: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = argv
    p.currentDirectoryURL = root
    p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// Installs the already built binaries (no build inside the test run).
  static func install(_ variables: [String]) throws -> String {
    let bin = DaemonProcess.productsDirectory.path
    let (status, output) = try run(
      ["make", "--no-print-directory", "install-files", "BIN=\(bin)"] + variables)
    #expect(status == 0, "\(output)")
    return output
  }

  @Test func destdirInstall_laysOutEveryFile() throws {
    let dest = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dest) }
    _ = try Self.install(["DESTDIR=\(dest.path)", "PREFIX=/usr"])
    let expected: [(String, Int)] = [
      ("usr/bin/labeld", 0o755), ("usr/bin/labelctl", 0o755),
      ("usr/lib/systemd/system/labeld.service", 0o644),
      ("usr/lib/systemd/system/labeld.socket", 0o644),
      ("usr/lib/sysusers.d/labeld.conf", 0o644), ("usr/lib/tmpfiles.d/labeld.conf", 0o644),
      ("usr/share/man/man8/labeld.8", 0o644), ("usr/share/man/man1/labelctl.1", 0o644),
      ("usr/share/man/man5/labeld.conf.5", 0o644),
      ("usr/share/doc/labeld/protocol.md", 0o644), ("usr/share/doc/labeld/security.md", 0o644),
      ("usr/share/doc/labeld/ipp.md", 0o644),
      ("etc/labeld/labeld.conf", 0o644),
    ]
    for (path, mode) in expected {
      var st = stat()
      let full = dest.appendingPathComponent(path).path
      #expect(stat(full, &st) == 0, "missing \(path)")
      #expect(
        Int(st.st_mode) & 0o777 == mode, "\(path) mode \(String(st.st_mode & 0o777, radix: 8))")
    }
    // Every udev rules file of the repository is installed too.
    let rules =
      (try? FileManager.default.contentsOfDirectory(
        atPath: Self.root.appendingPathComponent("udev").path)) ?? []
    for name in rules where name.hasSuffix(".rules") {
      #expect(
        FileManager.default.fileExists(
          atPath: dest.appendingPathComponent("usr/lib/udev/rules.d/\(name)").path))
    }
    let unit = try String(
      contentsOf: dest.appendingPathComponent("usr/lib/systemd/system/labeld.service"),
      encoding: .utf8)
    #expect(unit.contains("ExecStart=/usr/bin/labeld "))
    #expect(!unit.contains("@BINDIR@"))
    // The installed binary is the one built, and it runs.
    let (status, version) = try Self.run([
      dest.appendingPathComponent("usr/bin/labeld").path, "--version",
    ])
    #expect(status == 0 && version.hasPrefix("labeld "))
    // An existing configuration is never overwritten.
    let conf = dest.appendingPathComponent("etc/labeld/labeld.conf")
    try "log-level = debug\n".write(to: conf, atomically: true, encoding: .utf8)
    _ = try Self.install(["DESTDIR=\(dest.path)", "PREFIX=/usr"])
    #expect(try String(contentsOf: conf, encoding: .utf8) == "log-level = debug\n")
    // The example configuration is valid.
    let (check, output) = try Self.run([
      dest.appendingPathComponent("usr/bin/labeld").path, "--config",
      dest.appendingPathComponent("usr/share/doc/labeld/labeld.conf.example").path,
      "--check-config",
    ])
    #expect(check == 0, "\(output)")
  }

  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
      "needs systemd-analyze (Debian package systemd)"))
  func units_passSystemdAnalyzeVerify_andScoreAtMost2() throws {
    let prefix = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: prefix) }
    // Installed under a real prefix (no DESTDIR), so ExecStart names an existing binary
    // and `man` finds the pages that Documentation= names.
    _ = try Self.install(["PREFIX=\(prefix.path)/usr", "SYSCONFDIR=\(prefix.path)/etc"])
    let units = prefix.appendingPathComponent("usr/lib/systemd/system")
    let service = units.appendingPathComponent("labeld.service").path
    let socket = units.appendingPathComponent("labeld.socket").path
    let (verify, verifyOutput) = try Self.run(
      ["systemd-analyze", "verify", service, socket],
      environment: ["MANPATH": prefix.appendingPathComponent("usr/share/man").path])
    #expect(verify == 0 && verifyOutput.isEmpty, "systemd-analyze verify:\n\(verifyOutput)")
    let (_, security) = try Self.run(["systemd-analyze", "security", "--offline=yes", service])
    let line = try #require(
      security.split(separator: "\n").last { $0.contains("Overall exposure level") })
    let score = try #require(
      line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
    #expect(score <= 2.0, "\(line)")
    // With the web endpoint serving a shop's network: the drop-in security.md gives adds
    // the networks that may connect, and the score stays the same.
    let withWeb = prefix.appendingPathComponent("web/labeld.service")
    try FileManager.default.createDirectory(
      at: withWeb.deletingLastPathComponent(), withIntermediateDirectories: true)
    try
      (String(contentsOfFile: service, encoding: .utf8)
      + "\n[Service]\nIPAddressAllow=192.168.10.0/24\n").write(
        to: withWeb, atomically: true, encoding: .utf8)
    let (_, webSecurity) = try Self.run([
      "systemd-analyze", "security", "--offline=yes", withWeb.path,
    ])
    let webLine = try #require(
      webSecurity.split(separator: "\n").last { $0.contains("Overall exposure level") })
    #expect(webLine == line, "\(webLine)")
  }

  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-sysusers"),
      "needs systemd-sysusers (Debian package systemd)"))
  func sysusersAndTmpfiles_createTheUserGroupsAndStateDirectory() throws {
    let root = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("etc"), withIntermediateDirectories: true)
    for file in ["passwd", "group"] {
      _ = FileManager.default.createFile(
        atPath: root.appendingPathComponent("etc/\(file)").path, contents: nil)
    }
    let (s1, o1) = try Self.run([
      "systemd-sysusers", "--root=\(root.path)",
      Self.root.appendingPathComponent("systemd/labeld.sysusers").path,
    ])
    #expect(s1 == 0, "\(o1)")
    let passwd = try String(contentsOf: root.appendingPathComponent("etc/passwd"), encoding: .utf8)
    let group = try String(contentsOf: root.appendingPathComponent("etc/group"), encoding: .utf8)
    #expect(passwd.contains("labeld:x:") && passwd.contains(":/var/lib/labeld:"))
    #expect(group.contains("labeld:x:") && group.contains("labeld-admin:x:"))
    let (s2, o2) = try Self.run([
      "systemd-tmpfiles", "--root=\(root.path)", "--create",
      Self.root.appendingPathComponent("systemd/labeld.tmpfiles").path,
    ])
    #expect(s2 == 0, "\(o2)")
    var st = stat()
    #expect(stat(root.appendingPathComponent("var/lib/labeld").path, &st) == 0)
    #expect(st.st_mode & 0o777 == 0o750)
  }
}
