import Foundation
import LabelCore
import LabelKit
import LabelLanguages

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A USB bus of emulated printers (Tests/Emulators/usbprinter.py on umockdev) with the
/// built labeld running on it as the emulator's child: the real libusb code path, driven
/// over the socket. The emulator is told what to do through its control FIFO.
package final class USBEmulator: @unchecked Sendable {
  package static let script = Repository.emulator("usbprinter.py")

  /// Why the emulator cannot run here (nil when it can).
  package static let unavailable: String? = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/umockdev-wrapper") else {
      return "umockdev-wrapper is missing (Debian package umockdev)"
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    p.arguments = ["-c", "import gi; gi.require_version('UMockdev', '1.0')"]
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return "/usr/bin/python3 is missing" }
    p.waitUntilExit()
    return p.terminationStatus == 0
      ? nil : "python3-gi or gir1.2-umockdev-1.0 is missing for /usr/bin/python3"
  }()

  package static var available: Bool { unavailable == nil }

  package let directory: URL
  package let output: URL
  package let daemon: DaemonProcess

  /// Printers as `ql820:SERIAL` or `zebra:SERIAL`.
  /// Whether this emulator made `directory` (and removes it when done).
  private let ownsDirectory: Bool

  package init(printers: [String], arguments: [String] = [], directory: URL? = nil) throws {
    ownsDirectory = directory == nil
    self.directory = directory ?? DaemonProcess.makeTempDirectory()
    // A fresh bus directory each run, so a reused directory keeps no pages of an earlier run.
    output = self.directory.appendingPathComponent(
      ownsDirectory ? "bus" : "bus-\(UUID().uuidString.prefix(8))", isDirectory: true)
    let wrapper =
      ["/usr/bin/umockdev-wrapper", "/usr/bin/python3", Self.script, "--dir", output.path]
      + printers.flatMap { ["--printer", $0] } + ["--"]
    daemon = try DaemonProcess(
      ["--usb-timeout-ms", "700"] + arguments, directory: self.directory, wrapper: wrapper)
  }

  deinit {
    daemon.stop()
    if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
  }

  /// Tells the emulator something (`A1 cover open`).
  package func control(_ line: String) throws { try EmulatorFiles(output).control(line) }

  /// Tells printer `serial`'s emulator `command` and waits until its event log says it did
  /// ("A1B2 did cover open"); an emulator that never does fails the test.
  package func apply(_ serial: String, _ command: String) throws {
    try control("\(serial) \(command)")
    guard waitForEvent("\(serial) did \(command)") else {
      throw HarnessError.failed("the emulator did not do '\(command)'\n\(events.suffix(3000))")
    }
  }

  /// Waits until the emulator's event log has a line containing `text`.
  @discardableResult
  package func waitForEvent(_ text: String, timeout: Double = 10) -> Bool {
    EmulatorFiles(output).waitForEvent(text, timeout: timeout)
  }

  package var events: String { EmulatorFiles(output).events }

  /// Files the printer `serial` wrote with `prefix` ("page-", "label-").
  package func files(_ serial: String, prefix: String) -> [String] {
    let dir = output.appendingPathComponent(serial)
    return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
      .filter { $0.hasPrefix(prefix) }.sorted()
  }

  package func file(_ serial: String, _ name: String) -> [UInt8]? {
    let url = output.appendingPathComponent(serial).appendingPathComponent(name)
    return (try? Data(contentsOf: url)).map { [UInt8]($0) }
  }

  /// Page `n` as an emulated printer printed it (a P4 PBM: the Brother's `page-N` is the
  /// roll's printable area, the TSPL printer's `label-N` its image buffer).
  /// `suffix` "-red": a two-colour Brother page's red plane.
  package func page(_ serial: String, _ n: Int, prefix: String = "page-", suffix: String = "")
    -> Bitmap?
  {
    EmulatorFiles.bitmap(pbm: file(serial, "\(prefix)\(n)\(suffix).pbm"))
  }

  /// Runs `body` against labeld on the emulated bus; labeld must survive and exit cleanly.
  package static func run(
    printers: [String], arguments: [String] = [], directory: URL? = nil,
    _ body: (USBEmulator, DaemonProcess) throws -> Void
  ) throws {
    let bus = try USBEmulator(printers: printers, arguments: arguments, directory: directory)
    do {
      try body(bus, bus.daemon)
    } catch {
      throw HarnessError.failed(
        "\(error)\nlabeld's log:\n\(bus.daemon.log.suffix(5000))\nemulator events:\n\(bus.events.suffix(3000))"
      )
    }
    try bus.daemon.stopCleanly()
  }
}

/// An emulator's directory as the tests use it (Tests/Emulators: the USB and the network
/// printers alike): the FIFO `control` that takes commands, the `events.log` it appends.
package struct EmulatorFiles {
  package let directory: URL
  package init(_ directory: URL) { self.directory = directory }

  /// Writes one command line to the emulator's control FIFO.
  package func control(_ line: String) throws {
    let fd = open(directory.appendingPathComponent("control").path, O_WRONLY)
    guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }

  /// Waits (at most `timeout` seconds) until the event log has a line containing `text`.
  @discardableResult
  package func waitForEvent(_ text: String, timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if events.contains(text) { return true }
      usleep(20_000)
    }
    return false
  }

  package var events: String {
    (try? String(contentsOf: directory.appendingPathComponent("events.log"), encoding: .utf8))
      ?? ""
  }

  /// A page an emulator printed, from its P4 PBM file (nil: none, or not a P4 PBM).
  package static func bitmap(pbm data: [UInt8]?) -> Bitmap? {
    guard let data else { return nil }
    // "P4\n<w> <h>\n" then rows.
    var newlines = 0
    var start = 0
    for (i, b) in data.enumerated() where b == 0x0A {
      newlines += 1
      if newlines == 2 {
        start = i + 1
        break
      }
    }
    let header = String(decoding: data[0..<start], as: UTF8.self).split(
      whereSeparator: \.isWhitespace)
    guard header.count == 3, header[0] == "P4", let w = Int(header[1]), let h = Int(header[2])
    else { return nil }
    return Bitmap(width: w, height: h, bytes: Array(data[start...]))
  }
}
