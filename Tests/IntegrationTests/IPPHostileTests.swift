import Foundation
import LabelCUPS
import LabelCore
import LabelLanguages
import LabelPOSIX
import LabelRender
import LabelTestKit
import Testing

/// Hostile IPP: mutated and truncated requests, lengths that lie, collections nested
/// 100,000 deep, attributes past their bound, a request past its size, and a PDF bomb.
/// Each gets an answer (or its job ends aborted with a reason), labeld stays small, and
/// every other client is served meanwhile.
@Suite struct IPPHostileTests {
  static let arguments = [
    "--simulate", "zebra=zpl,dpi=203,width=50.8,length=25.4", "--simulate", "ql=brother-ql",
    "--listen-ipp", "127.0.0.1:0", "--ipp-print", "anyone", "--document-timeout", "5",
  ]

  /// labeld's peak resident memory so far, in MB.
  static func peakMB(_ d: DaemonProcess) -> Int {
    let status =
      (try? String(contentsOfFile: "/proc/\(d.process.processIdentifier)/status", encoding: .utf8))
      ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
  }

  static func stillServes(_ d: DaemonProcess, _ client: IPPTestClient) throws {
    #expect(try d.client().call("hello")["server"] == "labeld")
    let gpa = try client.send(IPPTestClient.request(0x000B, printer: "sim:ql", port: client.port))
    #expect(gpa.http == 200 && gpa.status == 0)
  }

  @Test func mutatedAndTruncatedRequests_areAnswered_andLabeldGoesOn() throws {
    try withDaemon(Self.arguments) { d in
      let client = IPPTestClient(port: try d.ippPort())
      let png = try PNGCodec.encode(IPPSamples.pattern(100, 50))
      let bases = [
        try IPPCodec.encode(
          IPPTestClient.request(
            0x0002, printer: "sim:zebra", port: client.port,
            operationAttributes: [IPPAttribute("document-format", .mimeMediaType("image/png"))],
            job: [IPPAttribute("copies", .integer(1))])) + png,
        try IPPCodec.encode(
          IPPTestClient.request(
            0x000B, printer: "sim:ql", port: client.port,
            operationAttributes: [
              IPPAttribute(
                "requested-attributes", [.keyword("all"), .keyword("media-col-database")])
            ])),
      ]
      var g = SeededGenerator(seed: 37)
      var statuses: [Int: Int] = [:]
      for n in 0..<400 {
        var bytes = bases[n % 2]
        for _ in 0..<Int.random(in: 1...6, using: &g) {
          guard !bytes.isEmpty else { break }
          let i = Int.random(in: 0..<bytes.count, using: &g)
          switch Int.random(in: 0...3, using: &g) {
          case 0: bytes[i] = UInt8.random(in: 0...255, using: &g)
          case 1: bytes.insert(contentsOf: [0xFF, 0xFF], at: i)  // a length that lies
          case 2: bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...40, using: &g)))
          default: bytes = Array(bytes.prefix(i))  // truncated
          }
        }
        let answer = try client.post(bytes, path: "/ipp/print/sim:zebra", timeoutMS: 20_000)
        statuses[answer.http, default: 0] += 1
        #expect([200, 400, 413].contains(answer.http), "request \(n): \(answer.headers)")
      }
      #expect(statuses[200, default: 0] > 0 && statuses[400, default: 0] > 0, "\(statuses)")
      try Self.stillServes(d, client)
      #expect(Self.peakMB(d) < 200, "peak \(Self.peakMB(d)) MB")
    }
  }

  @Test func framingAttacks_areRefused() throws {
    try withDaemon(Self.arguments) { d in
      let client = IPPTestClient(port: try d.ippPort())
      // Collections nested 100,000 deep (Debian's libcups 2.4.2 would overflow its stack).
      var deep: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 7, 0x01, 0x34, 0, 1, 0x63, 0, 0]
      for _ in 1..<100_000 { deep += [0x4A, 0, 0, 0, 1, 0x78, 0x34, 0, 0, 0, 0] }
      for _ in 0..<100_000 { deep += [0x37, 0, 0, 0, 0] }
      deep.append(0x03)
      #expect(try client.post(deep, path: "/ipp/print/sim:zebra").http == 400)
      // A value length past the end of the body.
      let lying: [UInt8] =
        [2, 0, 0, 0x0B, 0, 0, 0, 7, 0x01, 0x47, 0, 18] + Array("attributes-charset".utf8) + [
          0xFF, 0xFF, 0x75,
        ]
      #expect(try client.post(lying, path: "/ipp/print/sim:zebra").http == 400)
      // Attributes past 1 MiB.
      var long: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 7, 0x01]
      for _ in 0..<40 {
        long += [0x41, 0, 1, 0x61, 0x7F, 0xFF] + [UInt8](repeating: 0x61, count: 0x7FFF)
      }
      long.append(0x03)
      #expect(try client.post(long, path: "/ipp/print/sim:zebra").http == 400)
      // Not IPP at all, and an empty body.
      #expect(
        try client.post(Array("GET / HTTP/1.0\r\n".utf8), path: "/ipp/print/sim:zebra").http == 400)
      #expect(try client.post([], path: "/ipp/print/sim:zebra").http == 400)
      try Self.stillServes(d, client)
    }
  }

  /// A Print-Job past the 64 MiB a request may hold. Sent in chunks (no length declared):
  /// refused in IPP's words once its attributes are read, the rest dropped, labeld no
  /// bigger for it. With its length declared: 413 before a byte of it is read, so a client
  /// that asks first (Expect: 100-continue, as libcups does) hears it before sending.
  @Test func aRequestPastItsSize_isRefused() throws {
    try withDaemon(Self.arguments) { d in
      let client = IPPTestClient(port: try d.ippPort())
      let message = IPPTestClient.request(
        0x0002, printer: "sim:zebra", port: client.port, id: 9,
        operationAttributes: [IPPAttribute("document-format", .mimeMediaType("image/pwg-raster"))])
      let c = try TCPConnection.connect(host: "127.0.0.1", port: client.port, timeoutMS: 5000)
      let head =
        "POST /ipp/print/sim:zebra HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Content-Type: application/ipp\r\nTransfer-Encoding: chunked\r\n\r\n"
      func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10]
      }
      try c.write(
        Array(head.utf8) + chunk(try IPPCodec.encode(message)), timeoutMS: 5000,
        cancelled: { false })
      let megabyte = chunk([UInt8](repeating: 0, count: 1 << 20))
      for _ in 0..<70 { try c.write(megabyte, timeoutMS: 10_000, cancelled: { false }) }
      try c.write(Array("0\r\n\r\n".utf8), timeoutMS: 5000, cancelled: { false })
      var got: [UInt8] = []
      while let more = try? c.read(maxLength: 65536, timeoutMS: 10_000), !more.isEmpty {
        got += more
      }
      let end = try #require(got.firstRange(of: [13, 10, 13, 10]), "an answer")
      #expect(String(decoding: got[..<end.lowerBound], as: UTF8.self).hasPrefix("HTTP/1.1 200"))
      let answer = try IPPCodec.decode(got[end.upperBound...])
      #expect(answer.code == 0x0408 && answer.requestID == 9, "\(answer)")
      #expect(try d.client().call("jobs.list")["jobs"] == [])
      // Declared: refused at once, nothing sent but the head.
      let declared = try TCPConnection.connect(
        host: "127.0.0.1", port: client.port, timeoutMS: 5000)
      try declared.write(
        Array(
          ("POST /ipp/print/sim:zebra HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/ipp\r\nContent-Length: \(70 << 20)\r\n"
            + "Expect: 100-continue\r\n\r\n").utf8), timeoutMS: 5000, cancelled: { false })
      let refusal = String(
        decoding: try declared.read(maxLength: 4096, timeoutMS: 10_000), as: UTF8.self)
      #expect(refusal.hasPrefix("HTTP/1.1 413"), "\(refusal)")
      try Self.stillServes(d, client)
      #expect(Self.peakMB(d) < 200, "peak \(Self.peakMB(d)) MB")
    }
  }

  /// Found by review: tag 0x7F, read one way by the framing and another by Debian's
  /// libcups, hid 8,610 levels of nested collections from the depth check, and 95 KB of it
  /// crashed labeld (SIGSEGV in ippReadIO) without a sign-in. Refused now; labeld lives.
  @Test func aMessageLibcupsWouldReadDeeper_isRefused() throws {
    try withDaemon(Self.arguments) { d in
      let client = IPPTestClient(port: try d.ippPort())
      var bytes: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01]
      for (tag, name, value) in [
        (0x47, "attributes-charset", "utf-8"), (0x48, "attributes-natural-language", "en"),
      ] as [(UInt8, String, String)] {
        bytes +=
          [tag, 0, UInt8(name.utf8.count)] + Array(name.utf8) + [0, UInt8(value.utf8.count)]
        bytes += Array(value.utf8)
      }
      bytes += [0x34, 0, 1, 0x61, 0, 0, 0x4A, 0, 0, 0, 1, 0x62]
      for _ in 0..<5 {
        bytes += [0x7F, 0, 0, 0, 0, 0x4A, 0, 0, 0, 1, 0x63]
        for _ in 0..<1800 { bytes += [0x34, 0, 0, 0, 0, 0x4A, 0, 0, 0, 1, 0x58] }
      }
      bytes += [0x21, 0, 0, 0, 4, 0, 0, 0, 1, 0x03]
      let answer = try client.post(bytes, path: "/ipp/print/sim:zebra")
      #expect(answer.http == 400, "\(answer.headers)")
      try Self.stillServes(d, client)
    }
  }

  /// Queries need no sign-in, so what follows their attributes is not kept: four
  /// Get-Printer-Attributes dragging 60 MiB each behind them do not take the room labeld
  /// keeps for documents, and a Print-Job meanwhile is taken (it was answered 503).
  @Test func queriesCannotHoldTheDocumentsBudget() throws {
    try withDaemon(Self.arguments) { d in
      let client = IPPTestClient(port: try d.ippPort())
      let query = try IPPCodec.encode(
        IPPTestClient.request(0x000B, printer: "sim:zebra", port: client.port))
      var held: [TCPConnection] = []
      for _ in 0..<5 {
        let c = try TCPConnection.connect(host: "127.0.0.1", port: client.port, timeoutMS: 5000)
        try c.write(
          Array(
            ("POST /ipp/print/sim:zebra HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              + "Content-Type: application/ipp\r\n"
              + "Content-Length: \(query.count + 60 << 20)\r\n\r\n").utf8)
            + query, timeoutMS: 5000, cancelled: { false })
        for n in 0..<60 {
          try c.write(
            [UInt8](repeating: 0, count: (1 << 20) - (n == 59 ? 1 : 0)), timeoutMS: 10_000,
            cancelled: { false })
        }
        held.append(c)  // its last byte never comes
      }
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      let message = IPPTestClient.request(
        0x0002, printer: "sim:zebra", port: client.port,
        operationAttributes: [IPPAttribute("document-format", .mimeMediaType("application/pdf"))])
      let answer = try client.send(message, document: label)
      #expect(answer.http == 200 && answer.status == 0, "\(answer.headers)")
      #expect(Self.peakMB(d) < 200, "peak \(Self.peakMB(d)) MB")
      held.removeAll()
    }
  }

  /// A requesting-user-name with a newline (no sign-in needed for Identify-Printer) does
  /// not start a line of its own in labeld's log, whose priorities journald reads.
  @Test func aNameWithANewline_staysInItsLogLine() throws {
    try withDaemon(Self.arguments) { d in
      let client = IPPTestClient(port: try d.ippPort())
      let forged = "bob\n<3>store: cannot write labeld.db (forged)\n<6>x"
      let answer = try client.send(
        IPPTestClient.request(0x003C, printer: "sim:zebra", port: client.port, user: forged))
      #expect(answer.status == 0)
      try poll("the request is logged") { d.log.contains("identify itself") }
      #expect(!d.log.split(separator: "\n").contains { $0.hasPrefix("<3>store") }, "\(d.log)")
      #expect(d.log.contains("bob\\n<3>store"))
    }
  }

  /// A PDF of 1.5 MB whose one image inflates to 1.6 GB of pixels: drawn in labeld's PDF process, which runs out
  /// of its limits; the job ends aborted with the reason, labeld's own memory does not grow,
  /// and another client's label prints meanwhile.
  @Test func aPDFBomb_endsItsJob_notLabeld() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let bomb = dir.appendingPathComponent("bomb.pdf")
    // 40,000 x 40,000 grey pixels of zeros, deflated: more than the PDF process's 5 s of CPU.
    try Shell.check(
      """
      python3 - '\(bomb.path)' <<'EOF'
      import sys, zlib
      side = 40000
      z = zlib.compressobj(9)
      row = bytes(side)
      data = b"".join(z.compress(row) for _ in range(side)) + z.flush()
      objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 144 72] /Resources << /XObject << /I 5 0 R >> >> /Contents 4 0 R >>",
        None, None]
      content = b"q 144 0 0 72 0 0 cm /I Do Q"
      objs[3] = b"<< /Length %d >>\\nstream\\n" % len(content) + content + b"\\nendstream"
      objs[4] = (b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                 b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\\nstream\\n" % (side, side, len(data))
                 + data + b"\\nendstream")
      out = bytearray(b"%PDF-1.4\\n")
      offsets = []
      for i, o in enumerate(objs, 1):
          offsets.append(len(out))
          out += b"%d 0 obj\\n" % i + o + b"\\nendobj\\n"
      xref = len(out)
      out += b"xref\\n0 %d\\n0000000000 65535 f \\n" % (len(objs) + 1)
      for off in offsets:
          out += b"%010d 00000 n \\n" % off
      out += b"trailer\\n<< /Size %d /Root 1 0 R >>\\nstartxref\\n%d\\n%%%%EOF\\n" % (len(objs) + 1, xref)
      open(sys.argv[1], "wb").write(out)
      EOF
      """)
    let bytes = Array(try Data(contentsOf: bomb))
    try withDaemon(Self.arguments + ["--max-queued-bytes", "1G"]) { d in
      let port = try d.ippPort()
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let before = Self.peakMB(d)
      let bombed = Task.detached {
        try IPPTestClient(port: port).send(
          IPPTestClient.request(
            0x0002, printer: "sim:zebra", port: port,
            operationAttributes: [
              IPPAttribute("document-format", .mimeMediaType("application/pdf"))
            ]),
          document: bytes, timeoutMS: 120_000)
      }
      // Meanwhile another label prints (the bomb holds one of the two document lanes).
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(696, 300)], dpi: 300)
      let other = try IPPTestClient(port: port).send(
        IPPTestClient.request(
          0x0002, printer: "sim:ql", port: port,
          operationAttributes: [IPPAttribute("document-format", .mimeMediaType("application/pdf"))]),
        document: label)
      let otherID = try #require(other.attribute("job-id", in: .job)?.integer)
      try w.waitForJob(otherID)
      let answer = try awaitResult(bombed)
      #expect(answer.status == 0, "\(answer)")
      let job = try #require(answer.groups(.job).first)
      #expect(job["job-state"]?.integer == 8)
      #expect(
        job["job-state-reasons"]?.values.contains(.keyword("document-unprintable-error")) == true)
      let message = job["job-state-message"]?.string ?? ""
      #expect(message.contains("PDF"), "\(message)")
      // labeld holds the document while it is read, never what it inflates to.
      #expect(Self.peakMB(d) - before < 150, "peak \(Self.peakMB(d)) MB, \(before) before")
      try Self.stillServes(d, IPPTestClient(port: port))
    }
  }

  /// The result of a detached task, from a synchronous test.
  func awaitResult<T: Sendable>(_ task: Task<T, any Error>) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task {
      box.set(await task.result)
      done.signal()
    }
    done.wait()
    return try box.get()
  }
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
  private var value: Result<T, any Error>?
  private let lock = NSLock()
  func set(_ r: Result<T, any Error>) { lock.withLock { value = r } }
  func get() throws -> T {
    try lock.withLock { value }!.get()
  }
}
