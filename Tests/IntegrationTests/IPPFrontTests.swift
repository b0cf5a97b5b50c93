import Foundation
import LabelCUPS
import LabelCore
import LabelKit
import LabelLanguages
import LabelRender
import LabelTestKit
import Testing

/// The IPP front from an IPP client's side (IPP written and read by libcups, posted over
/// HTTP): every document format prints its dots on the printer, printing needs an
/// operator's token, IPP jobs are labeld's jobs (same queue, bounds, alerts and states,
/// canceled from either side), and a document that cannot print ends its job aborted with
/// the reason while labeld goes on.
@Suite struct IPPFrontTests {
  static let zebra = ["--simulate", "zebra=zpl,dpi=203,width=50.8,length=25.4"]

  /// labeld with the IPP front on, for `body`; it must survive and stop cleanly.
  static func daemon(
    _ extra: [String] = [], access: String = "anyone", _ body: (DaemonProcess) throws -> Void
  ) throws {
    try withDaemon(
      zebra + ["--simulate", "ql=brother-ql", "--listen-ipp", "127.0.0.1:0", "--ipp-print", access]
        + extra, body)
  }

  static func printJob(
    _ client: IPPTestClient, _ printer: String = "sim:zebra", format: String, _ document: [UInt8],
    job: [IPPAttribute] = [], name: String = "label"
  ) throws -> IPPTestClient.Answer {
    try client.send(
      IPPTestClient.request(
        0x0002, printer: printer, port: client.port,
        operationAttributes: [
          IPPAttribute("job-name", .name(name)),
          IPPAttribute("document-format", .mimeMediaType(format)),
        ], job: job), document: document)
  }

  static func jobID(_ answer: IPPTestClient.Answer) throws -> Int {
    try #require(answer.attribute("job-id", in: .job)?.integer, "\(answer)")
  }

  static func jobAttributes(_ client: IPPTestClient, _ id: Int, printer: String = "sim:zebra")
    throws -> IPPAttributeGroup
  {
    let answer = try client.send(
      IPPTestClient.request(
        0x0009, printer: printer, port: client.port,
        operationAttributes: [IPPAttribute("job-id", .integer(Int32(id)))]))
    return try #require(answer.groups(.job).first, "\(answer)")
  }

  /// The one graphic of a ZPL label the simulator kept.
  static func zplDots(_ d: DaemonProcess, _ job: Int) throws -> Bitmap {
    let zpl = String(
      decoding: try #require(d.simOutput("zebra", job: job, ext: "zpl")), as: UTF8.self)
    return try RasterPrintingTests.zplGraphic(zpl, width: 406)
  }

  // MARK: documents

  @Test func everyFormat_printsItsDots_onTheLabel() throws {
    try Self.daemon { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let client = IPPTestClient(port: try d.ippPort())
      let label = IPPSamples.pattern(406, 203)
      let documents: [(String, [UInt8])] = [
        ("image/pwg-raster", try IPPSamples.raster([label], dpi: 203, format: .pwg)),
        ("image/urf", try IPPSamples.raster([label], dpi: 203, format: .urf)),
        ("application/pdf", try PDFWriter.document(pages: [label], dpi: 203)),
        ("image/png", try PNGCodec.encode(label)),
        // application/octet-stream: labeld tells the format from the bytes.
        ("application/octet-stream", try PDFWriter.document(pages: [label], dpi: 203)),
      ]
      for (format, bytes) in documents {
        let answer = try Self.printJob(client, format: format, bytes)
        #expect(answer.http == 200 && answer.status == 0, "\(format): \(answer)")
        let id = try Self.jobID(answer)
        try w.waitForJob(id)
        #expect(try Self.zplDots(d, id) == label, "\(format)")
        let job = try Self.jobAttributes(client, id)
        #expect(job["job-state"]?.integer == 9, "\(format)")
        #expect(job["job-state-reasons"]?.string == "job-completed-successfully")
        #expect(job["job-originating-user-name"]?.string == "tester")
        #expect(job["job-name"]?.string == "label")
      }
      // The same jobs through the socket: origin IPP, the requesting user, the job name.
      let listed = try d.client().call("jobs.list", ["printer": "sim:zebra"])["jobs"]?.arrayValue
      #expect(listed?.count == documents.count)
      #expect(listed?.first?["origin"] == ["kind": "ipp", "name": "label", "user": "tester"])
    }
  }

  /// A tape printer over IPP: its media is the tape (a roll as wide as the tape), and a
  /// page comes across the tape as CUPS sends one to a P-touch, its dots on the head's
  /// print area for that tape, row 0 printed first.
  @Test func aTapePrinter_takesPagesAcrossItsTape() throws {
    try Self.daemon(["--simulate", "tape=brother-pt,width=12"]) { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let client = IPPTestClient(port: try d.ippPort())
      let attributes = try client.send(
        IPPTestClient.request(0x000B, printer: "sim:tape", port: client.port))
      let media = attributes.attribute("media-default", in: .printer)?.string
      #expect(
        media?.hasPrefix("roll_") == true && media?.contains("_12x") == true, "\(media ?? "")")
      // 12 mm tape on a PT-P700: 70 dots across at 180 dpi.
      let page = IPPSamples.pattern(70, 240)
      let answer = try Self.printJob(
        client, "sim:tape", format: "image/pwg-raster",
        try IPPSamples.raster([page], dpi: 180, format: .pwg))
      #expect(answer.http == 200 && answer.status == 0, "\(answer)")
      let id = try Self.jobID(answer)
      try w.waitForJob(id)
      let bytes = try #require(d.simOutput("tape", job: id, ext: "pt"))
      let model = try #require(BrotherPTModel.named("PT-P700"))
      let job = try BrotherPTRasterDecoder(model: model).decode(bytes)
      let tape = try #require(model.head.tape(widthMM: 12))
      #expect(job.pages.first?.bitmap(tape: tape) == page)
    }
  }

  /// A JPEG photo on a 2 x 1 in label: dithered, its black block black, its white white.
  @Test func aJPEG_isDithered_ontoTheLabel() throws {
    try Self.daemon { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let client = IPPTestClient(port: try d.ippPort())
      let dir = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: dir) }
      try IPPSamples.jpeg(dir, "ramp.jpg", width: 406, height: 203, colour: false)
      let jpeg = Array(try Data(contentsOf: dir.appendingPathComponent("ramp.jpg")))
      let id = try Self.jobID(try Self.printJob(client, format: "image/jpeg", jpeg))
      try w.waitForJob(id)
      let dots = try Self.zplDots(d, id)
      // Left of the ramp is black, its right white, the block (rows 68-100, left half) black.
      #expect(dots[2, 20] && !dots[403, 20])
      #expect(dots[100, 85])
      var middle = 0
      for y in 10..<60 { for x in 190..<216 where dots[x, y] { middle += 1 } }
      #expect(middle > 200 && middle < 1100, "a mid-grey is half dots: \(middle) of 1300")
    }
  }

  /// Multi-page documents: each page one label; page-ranges picks some; copies repeat the
  /// job.
  @Test func pagesRangesAndCopies() throws {
    try Self.daemon { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs"]])
      let client = IPPTestClient(port: try d.ippPort())
      let pages = (0..<4).map { n -> Bitmap in
        var b = IPPSamples.pattern(406, 203)
        for x in 0..<(n + 1) * 20 { b[x, 190] = true }
        return b
      }
      let pdf = try PDFWriter.document(pages: pages, dpi: 203)
      let answer = try Self.printJob(
        client, format: "application/pdf", pdf,
        job: [IPPAttribute("page-ranges", [.range(2, 3)]), IPPAttribute("copies", .integer(2))])
      #expect(answer.status == 0, "\(answer)")
      let id = try Self.jobID(answer)
      let job = try w.waitForJob(id)
      #expect(job["printed"] == 2 && job["copies"] == 2)
      let zpl = String(
        decoding: try #require(d.simOutput("zebra", job: id, ext: "zpl")), as: UTF8.self)
      // Two copies of two labels: pages 2 and 3.
      #expect(zpl.components(separatedBy: "^XA").count - 1 == 4, "\(zpl.prefix(200))")
    }
  }

  @Test func documentsThatCannotPrint_endTheirJobAborted_withTheReason() throws {
    try Self.daemon { d in
      let client = IPPTestClient(port: try d.ippPort())
      let png = try PNGCodec.encode(IPPSamples.pattern(40, 20))
      // A PNG whose header claims 100,000 x 100,000 pixels (a small file, a huge image).
      var huge = png
      huge.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
      var cutRaster = try IPPSamples.raster([IPPSamples.pattern(406, 203)], dpi: 203, format: .pwg)
      cutRaster = Array(cutRaster.prefix(cutRaster.count / 2))
      let cases: [(String, [UInt8], String)] = [
        ("image/png", Array(png.prefix(40)), "document-format-error"),
        ("image/png", huge, "document-unprintable-error"),
        ("image/pwg-raster", cutRaster, "document-format-error"),
        ("application/pdf", Array("%PDF-1.7\n1 0 obj nonsense".utf8), "document-format-error"),
        ("image/jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46], "document-format-error"),
      ]
      for (format, bytes, reason) in cases {
        let answer = try Self.printJob(client, format: format, bytes)
        #expect(answer.status == 0, "\(format): \(answer)")
        let id = try Self.jobID(answer)
        let job = try Self.jobAttributes(client, id)
        #expect(job["job-state"]?.integer == 8, "\(format)")
        #expect(
          job["job-state-reasons"]?.values.contains(.keyword(reason)) == true, "\(format): \(job)")
        #expect(job["job-state-message"]?.string?.isEmpty == false)
        let stored = try d.client().call("jobs.get", ["job": .int(id)])["job"]
        #expect(stored?["state"] == "aborted" && stored?["error"]?["reason"] == "jobRejected")
      }
      // A format labeld does not print is refused at once; labeld goes on.
      let gif = try Self.printJob(client, format: "image/gif", Array("GIF89a".utf8))
      #expect(gif.status == 0x040A)
      #expect(try d.client().call("hello")["server"] == "labeld")
    }
  }

  // MARK: who may print

  @Test func printing_needsAnOperatorsToken_queriesDoNot() throws {
    try Self.daemon(access: "operator") { d in
      let port = try d.ippPort()
      let operatorToken = try d.token("counter", role: "operator")
      let viewerToken = try d.token("wall", role: "viewer")
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      // Queries: no sign-in.
      let gpa = try IPPTestClient(port: port).send(
        IPPTestClient.request(0x000B, printer: "sim:zebra", port: port))
      #expect(gpa.http == 200 && gpa.status == 0)
      #expect(gpa.attribute("uri-authentication-supported")?.string == "basic")
      // Printing: 401 without, 401 with a token that is none, 403 for a viewer's.
      let none = try Self.printJob(IPPTestClient(port: port), format: "application/pdf", label)
      #expect(none.http == 401 && none.headers.contains("WWW-Authenticate: Basic"))
      #expect(none.message == nil)
      let wrong = try Self.printJob(
        IPPTestClient(port: port, credentials: ("alice", "ldt_nonsense")),
        format: "application/pdf",
        label)
      #expect(wrong.http == 401)
      let viewer = try Self.printJob(
        IPPTestClient(port: port, credentials: ("alice", viewerToken)), format: "application/pdf",
        label)
      #expect(viewer.http == 403)
      #expect(try d.client().call("jobs.list")["jobs"] == [])
      // An operator's token prints, as the user HTTP Basic names.
      let ok = try Self.printJob(
        IPPTestClient(port: port, credentials: ("alice", operatorToken)), format: "application/pdf",
        label)
      #expect(ok.http == 200 && ok.status == 0)
      let stored = try d.client().call("jobs.get", ["job": .int(try Self.jobID(ok))])["job"]
      #expect(stored?["origin"]?["user"] == "alice")
      // The token never reaches the log.
      #expect(!d.log.contains(operatorToken) && !d.log.contains(viewerToken))
    }
  }

  // MARK: one scheduler

  @Test func theQueuesBound_refusesIPPJobs_asTooManyJobs() throws {
    try Self.daemon(["--max-jobs-per-printer", "1"]) { d in
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])
      let client = IPPTestClient(port: try d.ippPort())
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      #expect(try Self.printJob(client, format: "application/pdf", label).status == 0)
      let refused = try Self.printJob(client, format: "application/pdf", label)
      #expect(refused.status == 0x050B, "\(refused)")
      #expect(refused.attribute("job-id", in: .job) == nil)
      let create = try client.send(
        IPPTestClient.request(0x0005, printer: "sim:zebra", port: client.port))
      #expect(create.status == 0x050B)
      #expect(try d.client().call("jobs.list")["jobs"]?.arrayValue?.count == 1)
    }
  }

  /// A fault on the printer: IPP shows the printer stopped and the job waiting, the alert
  /// names the IPP job, and once the fault clears it prints once.
  @Test func aFault_showsInIPP_andTheAlertNamesTheIPPJob() throws {
    try Self.daemon { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs", "alerts"]])
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": "coverOpen"])
      let client = IPPTestClient(port: try d.ippPort())
      let gpa = try client.send(
        IPPTestClient.request(0x000B, printer: "sim:zebra", port: client.port))
      #expect(gpa.attribute("printer-state")?.integer == 5)
      #expect(gpa.attribute("printer-state-reasons")?.string == "cover-open-error")
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      let id = try Self.jobID(try Self.printJob(client, format: "application/pdf", label))
      let alert = try w.waitFor("alert") { $0["job"] == .int(id) && $0["state"] == "active" }
      #expect(alert["reason"] == "coverOpen" && alert["printer"] == "sim:zebra")
      // Not started yet: pending (RFC 8011 §5.3.7), and why it waits.
      let waiting = try Self.jobAttributes(client, id)
      #expect(waiting["job-state"]?.integer == 3, "\(waiting)")
      #expect(waiting["job-state-reasons"]?.values.contains(.keyword("printer-stopped")) == true)
      #expect(waiting["job-state-message"]?.string?.contains("cover") == true, "\(waiting)")
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
      try w.waitForJob(id)
      #expect(try Self.jobAttributes(client, id)["job-state"]?.integer == 9)
      #expect(d.simOutput("zebra", job: id, ext: "zpl") != nil)
    }
  }

  /// A fault while a job prints stops it part-way: processing-stopped (RFC 8011 §5.3.7)
  /// with the printer's reasons, then processing again once it clears, every copy printed
  /// once.
  @Test func aFaultMidJob_isProcessingStopped_untilItClears() throws {
    // One label a second, so the fault comes between copies.
    try Self.daemon(["--simulate", "slow=zpl,dpi=203,width=50.8,length=25.4,speed=60"]) { d in
      let w = try d.client()
      try w.call("subscribe", ["topics": ["jobs", "alerts"]])
      let client = IPPTestClient(port: try d.ippPort())
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      let id = try Self.jobID(
        try Self.printJob(
          client, "sim:slow", format: "application/pdf", label,
          job: [IPPAttribute("copies", .integer(3))]))
      _ = try w.waitFor("job") { $0["id"] == .int(id) && $0["printed"] == .int(1) }
      try d.client().call("printers.simulate", ["printer": "sim:slow", "fault": "mediaEmpty"])
      _ = try w.waitFor("job") { $0["id"] == .int(id) && $0["state"] == "held" }
      let stopped = try Self.jobAttributes(client, id, printer: "sim:slow")
      #expect(stopped["job-state"]?.integer == 6, "\(stopped)")
      #expect(stopped["job-state-reasons"]?.values.contains(.keyword("printer-stopped")) == true)
      #expect(stopped["job-impressions-completed"]?.integer.map { $0 >= 1 && $0 < 3 } == true)
      try d.client().call("printers.simulate", ["printer": "sim:slow", "fault": nil])
      try w.waitForJob(id)
      let done = try Self.jobAttributes(client, id, printer: "sim:slow")
      #expect(done["job-state"]?.integer == 9 && done["job-impressions-completed"]?.integer == 3)
      let zpl = String(decoding: d.simOutput("slow", job: id, ext: "zpl") ?? [], as: UTF8.self)
      #expect(zpl.components(separatedBy: "^XA").count - 1 == 3)
    }
  }

  @Test func create_send_cancel_fromEitherSide() throws {
    try Self.daemon { d in
      let client = IPPTestClient(port: try d.ippPort())
      let port = client.port
      try d.client().call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
      // Create-Job, then Send-Document: one job, its document printed once.
      let created = try client.send(IPPTestClient.request(0x0005, printer: "sim:zebra", port: port))
      let id = try Self.jobID(created)
      #expect(created.attribute("job-state-reasons", in: .job)?.string == "job-incoming")
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      let missing = try client.send(
        IPPTestClient.request(
          0x0006, printer: "sim:zebra", port: port,
          operationAttributes: [IPPAttribute("job-id", .integer(Int32(id)))]), document: label)
      #expect(missing.status == 0x0400, "last-document is required")
      let sent = try client.send(
        IPPTestClient.request(
          0x0006, printer: "sim:zebra", port: port,
          operationAttributes: [
            IPPAttribute("job-id", .integer(Int32(id))),
            IPPAttribute("last-document", .boolean(true)),
          ]), document: label)
      #expect(sent.status == 0, "\(sent)")
      let again = try client.send(
        IPPTestClient.request(
          0x0006, printer: "sim:zebra", port: port,
          operationAttributes: [
            IPPAttribute("job-id", .integer(Int32(id))),
            IPPAttribute("last-document", .boolean(true)),
          ]), document: label)
      #expect(again.status == 0x0509)
      // Canceled over the socket: IPP says canceled.
      try d.client().call("jobs.cancel", ["job": .int(id)])
      #expect(try Self.jobAttributes(client, id)["job-state"]?.integer == 7)
      // Canceled over IPP: the socket says canceled; a second cancel is not possible.
      let other = try Self.jobID(try Self.printJob(client, format: "application/pdf", label))
      let cancel = IPPTestClient.request(
        0x0008, printer: "sim:zebra", port: port,
        operationAttributes: [IPPAttribute("job-id", .integer(Int32(other)))])
      #expect(try client.send(cancel).status == 0)
      #expect(try d.client().call("jobs.get", ["job": .int(other)])["job"]?["state"] == "canceled")
      #expect(try client.send(cancel).status == 0x0404)
      // Cancel-My-Jobs ends what this user has waiting.
      let mine = try Self.jobID(try Self.printJob(client, format: "application/pdf", label))
      #expect(
        try client.send(IPPTestClient.request(0x0039, printer: "sim:zebra", port: port)).status == 0
      )
      #expect(try d.client().call("jobs.get", ["job": .int(mine)])["job"]?["state"] == "canceled")
      // Get-Jobs lists this printer's jobs, each in its own group.
      let jobs = try client.send(
        IPPTestClient.request(
          0x000A, printer: "sim:zebra", port: port,
          operationAttributes: [IPPAttribute("which-jobs", .keyword("all"))]))
      #expect(jobs.groups(.job).count == 3)
    }
  }

  /// A job made by Create-Job whose document never comes: aborted at the next start if
  /// labeld stops first.
  /// Found by review: a document Send-Document could not attach (past the queue's bytes
  /// bound) left its Create-Job job waiting for ever, holding its place in the bounds.
  /// Now the job ends aborted, saying why, and its place is free.
  @Test func aDocumentPastTheBytesBound_endsItsCreatedJob() throws {
    try Self.daemon(["--max-queued-bytes", "1M"]) { d in
      let client = IPPTestClient(port: try d.ippPort())
      let port = client.port
      let id = try Self.jobID(
        try client.send(IPPTestClient.request(0x0005, printer: "sim:zebra", port: port)))
      // 150 labels of noise: some 3 MB once they are ZPL.
      var g = SeededGenerator(seed: 5)
      let pages = (0..<150).map { _ in
        Bitmap(
          width: 406, height: 203,
          bytes: (0..<(51 * 203)).map { _ in UInt8.random(in: 0...255, using: &g) })
      }
      let raster = try IPPSamples.raster(pages, dpi: 203, format: .pwg)
      let sent = try client.send(
        IPPTestClient.request(
          0x0006, printer: "sim:zebra", port: port,
          operationAttributes: [
            IPPAttribute("job-id", .integer(Int32(id))),
            IPPAttribute("last-document", .boolean(true)),
          ]), document: raster)
      #expect(sent.status == 0x050B, "\(sent)")
      let job = try Self.jobAttributes(client, id)
      #expect(job["job-state"]?.integer == 8, "\(job)")
      #expect(job["job-state-message"]?.string?.contains("not kept") == true, "\(job)")
      let small = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      #expect(try Self.printJob(client, format: "application/pdf", small).status == 0)
    }
  }

  /// Queries need no sign-in, but a job's name and user are not everyone's to read (as
  /// CUPS's JobPrivateValues): without a token they read "job N" and "anonymous".
  @Test func jobNames_areShownToThoseSignedIn() throws {
    try Self.daemon(access: "operator") { d in
      let port = try d.ippPort()
      let token = try d.token("desk", role: "operator")
      let label = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
      let signedIn = IPPTestClient(port: port, credentials: ("alice", token))
      let id = try Self.jobID(
        try Self.printJob(signedIn, format: "application/pdf", label, name: "invoice-4711.pdf"))
      let theirs = try Self.jobAttributes(signedIn, id)
      #expect(theirs["job-name"]?.string == "invoice-4711.pdf")
      #expect(theirs["job-originating-user-name"]?.string == "alice")
      let anyone = try Self.jobAttributes(IPPTestClient(port: port), id)
      #expect(anyone["job-name"]?.string == "job \(id)")
      #expect(anyone["job-originating-user-name"]?.string == "anonymous")
      let listed = try IPPTestClient(port: port).send(
        IPPTestClient.request(
          0x000A, printer: "sim:zebra", port: port,
          operationAttributes: [
            IPPAttribute("which-jobs", .keyword("all")),
            IPPAttribute("requested-attributes", .keyword("job-name")),
          ]))
      #expect(listed.groups(.job).map { $0["job-name"]?.string } == ["job \(id)"])
    }
  }

  @Test func aJobWithoutItsDocument_isAbortedAtTheNextStart() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let args =
      Self.zebra + ["--listen-ipp", "127.0.0.1:0", "--ipp-print", "anyone"]
    var id = 0
    do {
      let d = try DaemonProcess(args, directory: dir)
      let client = IPPTestClient(port: try d.ippPort())
      id = try Self.jobID(
        try client.send(IPPTestClient.request(0x0005, printer: "sim:zebra", port: client.port)))
      #expect(try d.client().call("jobs.get", ["job": .int(id)])["job"]?["state"] == "pending")
      d.stop()
    }
    let d = try DaemonProcess(args, directory: dir)
    defer { d.stop() }
    let job = try d.client().call("jobs.get", ["job": .int(id)])["job"]
    #expect(job?["state"] == "aborted")
    #expect(job?["error"]?["message"]?.stringValue?.contains("never came") == true)
  }
}
