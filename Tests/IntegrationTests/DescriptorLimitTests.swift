import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Testing

/// More clients than the daemon has file descriptors: it keeps serving the ones it has,
/// the rest wait in the listen backlog and are served as others leave. No crash.
@Suite struct DescriptorLimitTests {
  @Test func clientsBeyondTheDescriptorLimit_waitAndAreServedLater() throws {
    // prlimit caps the hard limit, so labeld cannot raise it: 48 descriptors in all.
    let home = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let d = try DaemonProcess(
      ["--simulate", "zebra=zpl"], directory: home,
      wrapper: ["/usr/bin/prlimit", "--nofile=48:48", "--"])
    defer { d.stop() }
    var early = try (0..<60).map { _ in try d.client() }
    for (i, c) in early.enumerated() {
      try c.sendLine(
        JSONValue.object(["jsonrpc": "2.0", "id": .int(i), "method": "hello"]).serialized())
    }
    // Close the first 30 unread: their descriptors come back.
    early.removeFirst(30)
    // Every remaining client gets its answer, including those that waited for a
    // descriptor: each leaves once answered, and the next waiting one is taken in.
    while !early.isEmpty {
      let c = early.removeFirst()
      c.timeout = 30
      #expect(try c.readMessage()["result"]?["server"] == "labeld")
    }
    #expect(d.process.isRunning)
    #expect(d.log.contains("accept failed"))
  }
}
