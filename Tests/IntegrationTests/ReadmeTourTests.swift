import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The README's tour, command by command, as a new user types it against `make run`'s
/// daemon: no command hangs (a fault left set once made the next print wait for ever),
/// each exits as its comment says, every job it prints completes, and the alert channel
/// shows both alerts of the seed's story.
@Suite struct ReadmeTourTests {
  static let root = Repository.root

  /// The shell blocks of the tour section, in order.
  static func tourBlocks() throws -> [[String]] {
    let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    guard let start = text.range(of: "## A short tour"),
      let end = text.range(of: "\n## ", range: start.upperBound..<text.endIndex)
    else { return [] }
    var blocks: [[String]] = []
    var current: [String]?
    for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
      if line.hasPrefix("```sh") {
        current = []
      } else if line.hasPrefix("```") {
        if let current { blocks.append(current) }
        current = nil
      } else if current != nil {
        current?.append(String(line))
      }
    }
    return blocks
  }

  /// `make run`'s printers, read from the Makefile so the test follows it.
  static func demoPrinters() throws -> [String] {
    let make = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
    guard let start = make.range(of: "DEMO_PRINTERS =") else { return [] }
    var args: [String] = []
    for line in make[start.upperBound...].split(separator: "\n") {
      let words = line.split(separator: " ").filter { $0 != "\\" && !$0.isEmpty }
      args += words.map(String.init)
      if !line.hasSuffix("\\") { break }
    }
    return args
  }

  @Test func theTour_runsToTheEnd_andEveryJobItPrintsCompletes() throws {
    let blocks = try Self.tourBlocks()
    #expect(blocks.count >= 4, "the tour has its shell blocks")
    let d = try DaemonProcess(
      try Self.demoPrinters() + ["--seed", Self.root.appendingPathComponent("seeds").path])
    defer { d.stop() }
    // The README's paths: `.state` in the directory the user works in.
    try FileManager.default.createSymbolicLink(
      at: d.directory.appendingPathComponent(".state"), withDestinationURL: d.stateDirectory)
    // Terminal 2: the first block follows the channel.
    #expect(blocks.first?.contains { $0.contains("alerts --follow") } == true)
    let follower = try Follower(d.socketPath, "alerts", "--follow")
    defer { follower.process.terminate() }

    for block in blocks.dropFirst() {
      for (i, line) in block.enumerated() {
        let command = line.replacing(/\s{2,}#.*$/, with: "")
        if command.trimmingCharacters(in: .whitespaces).isEmpty || command.hasPrefix("alias ") {
          continue
        }
        // Its comment, on its line and the comment-only lines under it.
        let comment =
          [line]
          + block[(i + 1)...].prefix { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        let expectsError = comment.contains { $0.contains("# error") }
        let run = try Self.shell(command, in: d)
        #expect(run.status != 124, "hung: \(command)")
        #expect(
          expectsError ? run.status == 1 : run.status == 0,
          "\(command) exited \(run.status): \(run.stderr)")
      }
    }
    let jobs = try d.ctl("--json", "jobs").json()["jobs"]?.arrayValue ?? []
    #expect(!jobs.isEmpty)
    #expect(jobs.allSatisfy { $0["state"] == "completed" }, "\(jobs)")
    #expect(try d.ctl("alerts").stdout == "No active alerts.\n", "the tour leaves nothing broken")
    let seen = follower.readLines(until: { $0.contains("saveError:product:SKU-1001") })
    #expect(seen.contains { $0.contains("active printerError:sim:zebra (mediaEmpty") })
    #expect(seen.last?.contains("active saveError:product:SKU-1001 (conflict") == true)
    #expect(
      seen.dropLast().last?.contains("active printerError:sim:ql (coverOpen") == true,
      "the saveError right after the printer's alert: \(seen)")
  }

  /// Runs one command of the tour with bash in the daemon's directory, `labelctl` being the
  /// built one at the daemon's socket; at most 30 s (124: it hung).
  static func shell(_ command: String, in d: DaemonProcess) throws -> (
    status: Int32, stderr: String
  ) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    let script =
      "labelctl() { '\(DaemonProcess.labelctlPath)' --socket '\(d.socketPath)' \"$@\"; }\n"
      + command
    p.arguments = ["30", "bash", "-c", script]
    p.currentDirectoryURL = d.directory
    let err = Pipe()
    p.standardError = err
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: stderr, as: UTF8.self))
  }
}
