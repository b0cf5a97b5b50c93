import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

/// Examples/ProductEditor, an app's use of LabelKit as a separate package (it adds this
/// repository by path): its command-line stand-in for the Edit Product sheet shows a
/// printer fault and a failed save that arrive together, one after the other, each once.
@Suite struct ExampleAppTests {
  static let example = ReadmeTourTests.root.appendingPathComponent("Examples/ProductEditor")

  /// The built stand-in; `make test` builds it first, else it is built here, with a TMPDIR
  /// of its own that goes afterwards: the toolchain leaves an empty TemporaryDirectory.*
  /// there for every swiftc it starts (swift-driver never removes them).
  static func standIn() throws -> String {
    let binary = example.appendingPathComponent(".build/debug/product-editor").path
    if !FileManager.default.isExecutableFile(atPath: binary) {
      let scratch = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: scratch) }
      let build = Process()
      build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      build.arguments = ["swift", "build", "--package-path", example.path]
      build.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) {
        $1
      }
      try build.run()
      build.waitUntilExit()
      #expect(build.terminationStatus == 0, "swift build --package-path \(example.path)")
    }
    return binary
  }

  /// labeld with the default simulated printers and the demo products of seeds/.
  static func seededDaemon() throws -> DaemonProcess {
    try DaemonProcess(
      DaemonProcess.defaultArguments + [
        "--seed", ReadmeTourTests.root.appendingPathComponent("seeds").path,
      ])
  }

  static func run(_ binary: String, _ arguments: [String]) throws -> (Int32, [String]) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    p.arguments = ["60", binary] + arguments
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, text.split(separator: "\n").map(String.init))
  }

  @Test func theSheetsTwoAlerts_areBothShown_oneAfterTheOther_eachOnce() throws {
    let binary = try Self.standIn()
    let d = try Self.seededDaemon()
    defer { d.stop() }
    #expect(try d.ctl("simulate", "sim:ql", "coverOpen").status == 0)
    // The seed's scenario: the printer is faulted and, while the sheet was open, someone
    // else saved the product, so this save fails: two alerts at once.
    let (status, lines) = try Self.run(
      binary,
      [
        "--socket", d.socketPath, "--sku", "SKU-1001", "--price", "1.39", "--print", "sim:ql",
        "--edited-elsewhere", "--alerts", "2", "--wait", "3",
      ])
    #expect(status == 0, "\(lines)")
    let alerts = lines.filter { $0.hasPrefix("ALERT ") }
    #expect(
      alerts == [
        "ALERT Printer problem: ql: cover open",
        "ALERT Changed elsewhere: product SKU-1001 was changed by someone else: expected "
          + "version 1, stored is version 2",
      ], "\(lines)")
    #expect(lines.contains("not saved"))
    #expect(
      try d.ctl("--json", "jobs").json()["jobs"]?.arrayValue?.isEmpty == true,
      "a failed save prints nothing")
  }

  @Test func aGoodSave_printsTheLabel() throws {
    let binary = try Self.standIn()
    let d = try Self.seededDaemon()
    defer { d.stop() }
    let (status, lines) = try Self.run(
      binary,
      ["--socket", d.socketPath, "--sku", "SKU-1002", "--name", "Oat drink", "--print", "sim:ql"])
    #expect(status == 0 && lines.contains("saved SKU-1002 (version 2)"), "\(lines)")
    #expect(!lines.contains { $0.hasPrefix("ALERT") })
    let stored = try d.ctl("--json", "products", "show", "SKU-1002").json()["product"]
    #expect(stored?["name"] == "Oat drink" && stored?["barcode"] != nil, "the rest kept")
  }
}
