import Foundation
import LabelCore
import LabelKit
import LabelPOSIX
import LabelSQLite
import LabelTestKit
import LabelWire
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Peers that push and never read: labeld's memory stays bounded by its read-ahead budget
/// and its per-connection answer bound, and a well-behaved client is still served.
@Suite struct HostilePeerTests {
  /// labeld's resident set now (VmRSS) or at its peak (VmHWM), in MiB.
  static func rssMiB(_ d: DaemonProcess, _ field: String = "VmRSS:") -> Int {
    let status =
      (try? String(contentsOfFile: "/proc/\(d.process.processIdentifier)/status", encoding: .utf8))
      ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
  }

  /// Writes `line` over and over on every one of `fds` without ever reading, until each
  /// has sent `limit` bytes or labeld has taken nothing from any of them for `quiet`
  /// seconds (its read-ahead is full). Returns the bytes sent in all.
  static func push(_ fds: [Int32], _ line: [UInt8], limit: Int, quiet: Double = 1.5) -> Int {
    var offsets = [Int](repeating: 0, count: fds.count)
    var sent = [Int](repeating: 0, count: fds.count)
    var lastProgress = Date()
    while Date().timeIntervalSince(lastProgress) < quiet {
      var polls = fds.indices.filter { sent[$0] < limit }.map {
        pollfd(fd: fds[$0], events: Int16(POLLOUT), revents: 0)
      }
      if polls.isEmpty { break }
      guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
      for p in polls where p.revents & Int16(POLLOUT) != 0 {
        guard let i = fds.firstIndex(of: p.fd) else { continue }
        let n = line.withUnsafeBytes {
          send(
            p.fd, $0.baseAddress! + offsets[i], $0.count - offsets[i],
            Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        guard n > 0 else { continue }
        sent[i] += n
        offsets[i] = (offsets[i] + n) % line.count
        lastProgress = Date()
      }
    }
    return sent.reduce(0, +)
  }

  /// Clients push `products.save` requests while the database is locked by another
  /// process, so labeld cannot answer them: everything they push is read ahead. Without
  /// a budget each connection parks up to 64 requests (32 x 64 x 1 MiB = 2 GiB; 128 x 64
  /// x 64 KiB = 512 MiB); with it labeld holds its budget and a floor each, and the rest
  /// waits in the clients.
  @Test(arguments: [(32, 1 << 20, 16 << 20), (128, 64 << 10, 4 << 20)])
  func manyClientsPushingRequestsWithoutReading_holdLabeldToItsBudget(
    clients: Int, size: Int, perClient: Int
  ) throws {
    try withDaemon(DaemonProcess.defaultArguments + ["--busy-timeout-ms", "600000"]) { d in
      let padding = String(repeating: "x", count: size - 200)
      let line =
        Array(
          #"{"jsonrpc":"2.0","id":1,"method":"products.save","params":{"product":{"sku":"A","name":"n"},"pad":"\#(padding)"}}"#
            .utf8) + [0x0A]
      let c = try d.client()
      try c.call("products.save", ["product": ["sku": "A", "name": "first"]])
      let before = Self.rssMiB(d)
      // Another process holds the write lock: every save waits for it.
      let lock = try Database(path: d.stateDirectory.appendingPathComponent("labeld.db").path)
      try lock.execute("BEGIN EXCLUSIVE")
      let fds = try (0..<clients).map { _ in try UnixSocket.connect(path: d.socketPath) }
      defer { for fd in fds { close(fd) } }
      let pushed = Self.push(fds, line, limit: perClient)
      let peak = Self.rssMiB(d, "VmHWM:")
      // Each got at least a request in (labeld reads ahead; the rest stays with them).
      #expect(pushed >= clients * size, "the clients did push")
      // The budget (64 MiB), 64 KiB a connection, the requests being parsed, the rest.
      #expect(peak - before < 160, "labeld grew to \(peak) MiB (from \(before) MiB)")
      // Someone else is served meanwhile, from the floor every connection has.
      #expect(try c.call("hello", ["client": "polite"])["protocol"] == 1)
      #expect(try c.call("printers.list")["printers"]?.arrayValue?.count == 2)
      try lock.execute("COMMIT")
      try lock.close()
      // The saves held up by the lock go through now.
      #expect(try c.call("products.get", ["sku": "A"])["product"] != nil)
    }
  }

  @Test func aClientThatNeverReads_cannotMakeLabeldQueueAnswersWithoutBound() throws {
    try withDaemon { d in
      let c = try d.client()
      // 200 templates of ~60 KiB: every templates.list answer is ~12 MiB.
      let text = String(repeating: "y", count: 60_000)
      for i in 0..<200 {
        try c.call(
          "templates.save",
          [
            "template": [
              "name": .string("t\(i)"), "media": ["widthMM": 50, "lengthMM": 30],
              "elements": [
                [
                  "type": "text", "x": 0, "y": 0, "width": 50, "height": 30,
                  "text": .string(text),
                ]
              ],
            ]
          ])
      }
      let before = Self.rssMiB(d)
      let fd = try UnixSocket.connect(path: d.socketPath)
      defer { close(fd) }
      let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"templates.list"}"#.utf8) + [0x0A]
      _ = Self.push([fd], request, limit: 1 << 20)
      let peak = Self.rssMiB(d, "VmHWM:")
      // Unbounded, thousands of 12 MiB answers would be queued for it.
      #expect(peak - before < 200, "labeld grew to \(peak) MiB (from \(before) MiB)")
      #expect(try c.call("hello")["protocol"] == 1)
    }
  }

  /// Everything `fd` receives until labeld closes it (or 30 s pass), as lines.
  static func readUntilClosed(_ fd: Int32) -> [String] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    for _ in 0..<300 {
      var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&p, 1, 100) > 0 else { continue }
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { break }
      bytes += buffer[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// Clients that send most of a 1 MiB line and stop hold the shared read-ahead (64 MiB)
  /// between them: others' requests past 64 KiB could not be read. Each such line is
  /// refused once its deadline passes (-32600, then the connection closes), the bytes go
  /// back, and a large request from someone else is answered.
  @Test func clientsThatStopMidLine_areRefusedAtTheDeadline_andLargeRequestsFlowAgain() throws {
    try withDaemon(DaemonProcess.defaultArguments + ["--request-line-timeout", "2"]) { d in
      let partial = Array(
        (#"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"pad":""#
          + String(repeating: "z", count: (1 << 20) - 100)).utf8)
      let hogs = try (0..<70).map { _ in try UnixSocket.connect(path: d.socketPath) }
      defer { for fd in hogs { close(fd) } }
      let pushed = Self.push(hogs, partial, limit: partial.count)
      #expect(pushed > 64 << 20, "the hogs hold the read-ahead")

      // 300 KB, most of it beyond the floor: read only once hogs give their bytes back.
      let c = try d.client()
      let note = String(repeating: "n", count: 300_000)
      try c.call(
        "products.save", ["product": ["sku": "BIG", "name": "large"], "pad": .string(note)])
      #expect(try c.call("products.get", ["sku": "BIG"])["product"]?["name"] == "large")

      for fd in hogs {
        let lines = Self.readUntilClosed(fd)
        #expect(lines.count == 1, "one answer, then the close: \(lines.map { $0.prefix(200) })")
        let answer = try JSONValue.parse(Array((lines.first ?? "").utf8))
        #expect(answer["error"]?["code"] == -32600)
        #expect(
          answer["error"]?["message"]?.stringValue?.contains("did not end within 2 s") == true,
          "\(answer)")
      }
      #expect(try c.call("printers.list")["printers"]?.arrayValue?.count == 2)
    }
  }

  /// A short line may take its time (someone typing JSON into socat): the deadline is for
  /// lines that hold shared bytes.
  @Test func aShortLineSentSlowly_isAnsweredAfterTheDeadline() throws {
    try withDaemon(DaemonProcess.defaultArguments + ["--request-line-timeout", "1"]) { d in
      let fd = try UnixSocket.connect(path: d.socketPath)
      defer { close(fd) }
      func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      }
      write(#"{"jsonrpc":"2.0","id":5,"#)
      usleep(2_500_000)
      write(#""method":"hello"}"# + "\n")
      shutdown(fd, Int32(SHUT_WR))
      let lines = Self.readUntilClosed(fd)
      let answer = try JSONValue.parse(Array((lines.first ?? "").utf8))
      #expect(answer["id"] == 5 && answer["result"]?["protocol"] == 1, "\(lines)")
    }
  }
}
