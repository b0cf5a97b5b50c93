import Foundation
import LabelCore
import LabelPOSIX
import LabelRender
import LabelTestKit
import LabelWire
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What one run of the built labelctl did.
struct LabelctlRun {
  var status: Int32
  var stdoutData: Data
  var stderr: String
  var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

  /// stdout parsed as JSON.
  func json() throws -> JSONValue {
    try LabelJSON.decoder().decode(JSONValue.self, from: stdoutData)
  }
}

/// Runs the built labelctl with `arguments` (after `--socket` when given) to completion.
/// Output goes to files, so neither stream can fill a pipe and stall the child.
func labelctl(_ arguments: [String], socket: String? = nil, stdin: Data? = nil) throws
  -> LabelctlRun
{
  let dir = DaemonProcess.makeTempDirectory()
  defer { try? FileManager.default.removeItem(at: dir) }
  let out = dir.appendingPathComponent("out")
  let err = dir.appendingPathComponent("err")
  _ = FileManager.default.createFile(atPath: out.path, contents: nil)
  _ = FileManager.default.createFile(atPath: err.path, contents: nil)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: DaemonProcess.labelctlPath)
  process.arguments = (socket.map { ["--socket", $0] } ?? []) + arguments
  // The tests' own socket setting must not leak in.
  var environment = ProcessInfo.processInfo.environment
  environment["LABELD_SOCKET"] = nil
  process.environment = environment
  process.standardOutput = try FileHandle(forWritingTo: out)
  process.standardError = try FileHandle(forWritingTo: err)
  if let stdin {
    let input = dir.appendingPathComponent("in")
    try stdin.write(to: input)
    process.standardInput = try FileHandle(forReadingFrom: input)
  } else {
    process.standardInput = FileHandle.nullDevice
  }
  try process.run()
  process.waitUntilExit()
  return LabelctlRun(
    status: process.terminationStatus, stdoutData: try Data(contentsOf: out),
    stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
}

extension DaemonProcess {
  /// Runs labelctl against this daemon.
  func ctl(_ arguments: String..., stdin: Data? = nil) throws -> LabelctlRun {
    try labelctl(arguments, socket: socketPath, stdin: stdin)
  }

  /// A file in the daemon's temp dir holding `contents`.
  func file(_ name: String, _ contents: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(contents.utf8).write(to: url)
    return url.path
  }
}

/// A template every element of which the daemon accepts; `${name}` and `${barcode}` are
/// filled from a product.
let shelfTemplate = """
  {"name": "shelf", "media": {"widthMM": 50, "lengthMM": 25}, "elements": [
    {"type": "text", "x": 1, "y": 1, "width": 40, "height": 8, "text": "${name}"},
    {"type": "barcode", "x": 1, "y": 10, "symbology": "ean13", "data": "${barcode}",
     "height": 10}]}
  """

@Suite struct LabelctlTests {
  @Test func unknownCommand_exitsUsage() throws {
    let run = try labelctl(["frobnicate"])
    #expect(run.status == 64)
    #expect(run.stderr.contains("unknown command 'frobnicate'"))
    #expect(run.stderr.contains("Usage: labelctl"))
    #expect(run.stderr.contains("Try 'labelctl --help'"))
  }

  @Test func missingArgument_exitsUsageWithCommandUsage() throws {
    let run = try labelctl(["printers", "show"])
    #expect(run.status == 64)
    #expect(run.stderr.contains("missing argument PRINTER"))
    #expect(run.stderr.contains("Usage: labelctl printers show PRINTER"))
    #expect(run.stderr.contains("Try 'labelctl printers show --help'"))
  }

  @Test func unknownOption_exitsUsage() throws {
    let run = try labelctl(["print", "sim:zebra", "--file", "x", "--colour", "red"])
    #expect(run.status == 64)
    #expect(run.stderr.contains("unknown option '--colour'"))
  }

  @Test func daemonUnreachable_exits69WithHint() throws {
    let dir = DaemonProcess.makeTempDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let socket = dir.appendingPathComponent("absent.sock").path
    let run = try labelctl(["printers"], socket: socket)
    #expect(run.status == 69)
    #expect(run.stderr.contains("cannot reach labeld at \(socket)"))
    #expect(run.stderr.contains("No such file or directory"))
    #expect(run.stderr.contains("Start it with 'make run'"))
  }

  @Test func printers_tableListsSimulatedPrinters() throws {
    let daemon = try DaemonProcess()
    let run = try daemon.ctl("printers")
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.first?.hasPrefix("ID") == true)
    #expect(lines.contains { $0.hasPrefix("sim:zebra") && $0.contains("zpl") })
    #expect(lines.contains { $0.hasPrefix("sim:ql") && $0.contains("brother-ql") })
  }

  @Test func jsonPrinters_isTheRawResult() throws {
    let daemon = try DaemonProcess()
    // --json is global: accepted after the subcommand too.
    for args in [["--json", "printers"], ["printers", "list", "--json"]] {
      let run = try labelctl(args, socket: daemon.socketPath)
      #expect(run.status == 0)
      let ids = try run.json()["printers"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
      #expect(ids?.contains("sim:zebra") == true)
    }
  }

  @Test func status_showsServerAndCounts() throws {
    let daemon = try DaemonProcess()
    let run = try daemon.ctl("status")
    #expect(run.status == 0)
    #expect(run.stdout.contains("labeld \(LabelVersion.version) (protocol 1)"))
    #expect(run.stdout.contains("Printers:       2 (0 with faults)"))
  }

  @Test func printWait_copies2_printsTheFileTwice() throws {
    let daemon = try DaemonProcess()
    let document = "^XA^FO20,20^FDlabelctl^FS^XZ\n"
    let path = try daemon.file("label.zpl", document)
    let run = try daemon.ctl("print", "sim:zebra", "--file", path, "--copies", "2", "--wait")
    #expect(run.status == 0, "\(run.stderr)")
    // Not a terminal: one line per change, ending with the terminal state.
    #expect(run.stdout.split(separator: "\n").last == "job 1: completed 2/2")
    #expect(daemon.simOutput("zebra", job: 1, ext: "zpl") == Array((document + document).utf8))
  }

  @Test func printFromStdin_submitsTheBytes() throws {
    let daemon = try DaemonProcess()
    let document = "^XA^FDstdin^FS^XZ"
    let run = try daemon.ctl(
      "print", "sim:zebra", "--file", "-", "--wait", stdin: Data(document.utf8))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(daemon.simOutput("zebra", job: 1, ext: "zpl") == Array(document.utf8))
  }

  @Test func printAPDF_placesItsPageOnTheLabel() throws {
    let daemon = try DaemonProcess()
    // A 2x1 in page, drawn at 203 dpi: on sim:zebra's 2x1 in label at its own size.
    let pdf = try PDFWriter.document(pages: [IPPSamples.pattern(406, 203)], dpi: 203)
    let path = daemon.directory.appendingPathComponent("label.pdf").path
    try Data(pdf).write(to: URL(fileURLWithPath: path))
    let run = try daemon.ctl(
      "print", "sim:zebra", "--file", path, "--format", "pdf", "--scaling", "fit", "--wait")
    #expect(run.status == 0, "\(run.stderr)")
    let zpl = String(decoding: daemon.simOutput("zebra", job: 1, ext: "zpl") ?? [], as: UTF8.self)
    #expect(zpl.contains("^GFA"), "\(zpl.prefix(120))")
    let misuse = try daemon.ctl("print", "sim:zebra", "--file", path, "--scaling", "fit")
    #expect(misuse.status == 64)
    #expect(misuse.stderr.contains("--scaling goes with --format pdf"))
    let unknown = try daemon.ctl("print", "sim:zebra", "--file", path, "--format", "gif")
    #expect(unknown.status == 64 && unknown.stderr.contains("--format must be one of"))
  }

  @Test func printWait_whenPrinterRejectsJob_exits1WithReason() throws {
    let daemon = try DaemonProcess()
    #expect(try daemon.ctl("simulate", "sim:zebra", "jobRejected").status == 0)
    let path = try daemon.file("label.zpl", "^XA^XZ")
    let run = try daemon.ctl("print", "sim:zebra", "--file", path, "--wait")
    #expect(run.status == 1)
    #expect(run.stderr.contains("job 1 aborted"))
  }

  @Test func printToUnknownPrinter_exits1WithError1001() throws {
    let daemon = try DaemonProcess()
    let path = try daemon.file("label.zpl", "^XA^XZ")
    let run = try daemon.ctl("print", "sim:nope", "--file", path)
    #expect(run.status == 1)
    #expect(run.stderr.contains("sim:nope"))
    #expect(run.stderr.contains("(error 1001)"))
  }

  @Test func productsSaveThenShow_roundTrips() throws {
    let daemon = try DaemonProcess()
    let save = try daemon.ctl(
      "products", "save", "--sku", "4006381333931", "--name", "Pencil HB", "--price", "1.25",
      "--currency", "EUR", "--barcode", "4006381333931", "--field", "colour=red")
    #expect(save.status == 0, "\(save.stderr)")
    #expect(save.stdout.contains("saved product 4006381333931 (version 1)"))
    let show = try daemon.ctl("--json", "products", "show", "4006381333931")
    #expect(show.status == 0)
    let product = try show.json()["product"]
    #expect(product?["name"] == "Pencil HB")
    #expect(product?["price"] == .double(1.25))
    #expect(product?["currency"] == "EUR")
    #expect(product?["fields"] == ["colour": "red"])
    #expect(product?["version"] == 1)
    let text = try daemon.ctl("products", "show", "4006381333931")
    #expect(text.stdout.contains("Field colour:  red"))
    let list = try daemon.ctl("products")
    #expect(list.stdout.contains("4006381333931  Pencil HB  1.25 EUR"))
  }

  @Test func productsSave_badBarcode_exits1NamingTheField() throws {
    let daemon = try DaemonProcess()
    let run = try daemon.ctl(
      "products", "save", "--sku", "A1", "--name", "Thing", "--barcode", "123")
    #expect(run.status == 1)
    #expect(run.stderr.contains("product.barcode"))
    #expect(run.stderr.contains("(error -32602)"))
    #expect(try daemon.ctl("products", "show", "A1").status == 1)
  }

  @Test func productsSave_staleExpectedVersion_exits1WithConflict() throws {
    let daemon = try DaemonProcess()
    #expect(try daemon.ctl("products", "save", "--sku", "A1", "--name", "One").status == 0)
    let run = try daemon.ctl(
      "products", "save", "--sku", "A1", "--name", "Two", "--expected-version", "0")
    #expect(run.status == 1)
    #expect(run.stderr.contains("(error 1004)"))
  }

  @Test func simulateFault_showsInAlerts_andClearRemovesIt() throws {
    let daemon = try DaemonProcess()
    let fault = try daemon.ctl("simulate", "sim:zebra", "mediaEmpty")
    #expect(fault.status == 0)
    #expect(fault.stdout.contains("mediaEmpty"))
    let alerts = try daemon.ctl("alerts")
    #expect(alerts.status == 0)
    #expect(
      alerts.stdout.split(separator: "\n").contains {
        $0.contains("printerError:sim:zebra") && $0.contains("mediaEmpty")
      })
    #expect(try daemon.ctl("simulate", "sim:zebra", "clear").status == 0)
    let after = try daemon.ctl("alerts", "--json")
    #expect(after.status == 0)
    #expect(try after.json()["alerts"] == [])
  }

  @Test func simulate_unknownFault_exitsUsage() throws {
    let run = try labelctl(["simulate", "sim:zebra", "onFire"])
    #expect(run.status == 64)
    #expect(run.stderr.contains("mediaEmpty"))
  }

  @Test func alertsDismiss_unknownId_exits1() throws {
    let daemon = try DaemonProcess()
    let run = try daemon.ctl("alerts", "dismiss", "printerError:sim:nope")
    #expect(run.status == 1)
    #expect(run.stderr.contains("no active alert"))
  }

  @Test func cancel_pendingJob_isCanceled() throws {
    let daemon = try DaemonProcess()
    // A fault keeps the job waiting, so there is something to cancel.
    #expect(try daemon.ctl("simulate", "sim:zebra", "coverOpen").status == 0)
    let path = try daemon.file("label.zpl", "^XA^XZ")
    let submit = try daemon.ctl("print", "sim:zebra", "--file", path, "--copies", "3")
    #expect(submit.stdout.contains("job 1 submitted to sim:zebra"))
    let cancel = try daemon.ctl("cancel", "1")
    #expect(cancel.status == 0, "\(cancel.stderr)")
    #expect(cancel.stdout.contains("job 1: canceled"))
    let show = try daemon.ctl("--json", "jobs", "show", "1")
    #expect(try show.json()["job"]?["state"] == "canceled")
    let list = try daemon.ctl("jobs", "--state", "canceled")
    #expect(list.stdout.split(separator: "\n").contains { $0.hasPrefix("1 ") })
  }

  @Test func cancel_unknownJob_exits1With1003() throws {
    let daemon = try DaemonProcess()
    let run = try daemon.ctl("cancel", "42")
    #expect(run.status == 1)
    #expect(run.stderr.contains("(error 1003)"))
  }

  @Test func templatesSaveListShow_andRender() throws {
    let daemon = try DaemonProcess()
    let path = try daemon.file("shelf.json", shelfTemplate)
    let save = try daemon.ctl("templates", "save", path)
    #expect(save.status == 0, "\(save.stderr)")
    #expect(try daemon.ctl("templates").stdout.contains("shelf  50x25 mm  2"))
    let show = try daemon.ctl("templates", "show", "shelf")
    let template = try show.json()
    #expect(template["name"] == "shelf")
    #expect(template["elements"]?.arrayValue?.count == 2)
    // Native ZPL for a ZPL printer lands in the file...
    let output = daemon.directory.appendingPathComponent("out.zpl").path
    let render = try daemon.ctl(
      "render", "shelf", "--data", "name=Pencil", "--data", "barcode=4006381333931",
      "--printer", "sim:zebra", "-o", output)
    #expect(render.status == 0, "\(render.stderr)")
    let zpl = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    // ^PW/^LL are sim:zebra's 2 x 1 in media at 203 dpi, not the 50 x 25 mm template.
    #expect(zpl.hasPrefix("^XA^CI28^PW406^LL203"))
    #expect(zpl.contains("^FDPencil^FS"))
    // ...and a Brother QL label is its raster job: the QL-820NWB's 400 NULs, ESC @.
    let rasterOut = daemon.directory.appendingPathComponent("out.ql").path
    let raster = try daemon.ctl(
      "render", "shelf", "--data", "name=Pencil", "--data", "barcode=4006381333931",
      "--printer", "sim:ql", "-o", rasterOut)
    #expect(raster.status == 0, "\(raster.stderr)")
    let job = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: rasterOut))) ?? Data())
    #expect(job.prefix(402) == ArraySlice([UInt8](repeating: 0, count: 400) + [0x1B, 0x40]))
    // preview writes the PNG of the label the printer gets: 50 x 25 mm at 300 dpi.
    let pngOut = daemon.directory.appendingPathComponent("label.png").path
    let preview = try daemon.ctl(
      "preview", "shelf", "--data", "name=Pencil", "--data", "barcode=4006381333931",
      "--printer", "sim:ql", "-o", pngOut)
    #expect(preview.status == 0, "\(preview.stderr)")
    let png = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: pngOut))) ?? Data())
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    #expect(png.count > 33 && png[16..<24] == [0, 0, 0x02, 0x4F, 0, 0, 0x01, 0x27])  // 591 x 295
  }

  @Test func alertsFollow_sinceZero_showsAnAlertRaisedLater() throws {
    let daemon = try DaemonProcess()
    let follower = try Follower(daemon.socketPath, "alerts", "--follow", "--since", "0")
    #expect(try daemon.ctl("simulate", "sim:zebra", "headError").status == 0)
    let line = follower.readLines(until: { $0.contains("printerError:sim:zebra") }).last
    #expect(line?.contains("active") == true, "follower printed: \(follower.seen)")
    #expect(line?.contains("headError") == true)
    #expect(follower.process.isRunning)
    // Runs until interrupted, and SIGTERM does interrupt it.
    follower.process.terminate()
    follower.process.waitUntilExit()
    #expect(follower.process.terminationReason == .uncaughtSignal)
  }

  @Test func alertsFollow_whenDaemonStops_exits69() throws {
    let daemon = try DaemonProcess()
    let follower = try Follower(daemon.socketPath, "alerts", "--follow", "--since", "0")
    #expect(try daemon.ctl("simulate", "sim:zebra", "coverOpen").status == 0)
    #expect(!follower.readLines(until: { $0.contains("coverOpen") }).isEmpty)
    daemon.stop()
    follower.process.waitUntilExit()
    #expect(follower.process.terminationStatus == 69)
  }

  @Test func alertsFollow_onOverflow_resubscribesFromItsSeq() throws {
    let fake = try OverflowingDaemon()
    defer { fake.stop() }
    let follower = try Follower(fake.socketPath, "--json", "alerts", "--follow", "--since", "0")
    let lines = follower.readLines(until: { $0.contains("\"seq\":3,") })
    let seqs = lines.compactMap {
      (try? LabelJSON.decoder().decode(JSONValue.self, from: Data($0.utf8)))?["seq"]?.intValue
    }
    #expect(seqs == [1, 2, 3], "follower printed: \(follower.seen)")
    let subscribes = fake.subscribeParams
    #expect(subscribes.count == 2)
    #expect(subscribes.first?["since"] == 0)
    #expect(subscribes.last?["since"] == 2, "resumes from the overflow's seq")
    #expect(subscribes.last?["topics"] == ["alerts"])
    // The daemon goes away for good: the follower cannot reconnect and exits 69.
    fake.stop()
    follower.process.waitUntilExit()
    #expect(follower.process.terminationStatus == 69)
  }

  @Test
  func alertsFollowJSON_afterOverflow_resumesWithoutLoss() throws {
    // A tiny outgoing queue, and a follower whose stdout nobody reads while the alerts
    // are raised: it stalls, the daemon overflows it, and it must resume from the seq
    // the overflow names.
    // --log-level warning (the last one given wins) keeps the log short; the overflow
    // itself is logged as a warning.
    let daemon = try DaemonProcess([
      "--simulate", "zebra=zpl", "--max-queued-messages", "16", "--log-level", "warning",
    ])
    // --since 0: what is raised before it has subscribed is replayed, so no waiting.
    let follower = try Follower(daemon.socketPath, "--json", "alerts", "--follow", "--since", "0")
    let client = try daemon.client()
    for _ in 0..<1000 {
      try client.call("printers.simulate", ["printer": "sim:zebra", "fault": "mediaEmpty"])
      try client.call("printers.simulate", ["printer": "sim:zebra", "fault": nil])
    }
    let latest = try client.call("subscribe", ["topics": ["printers"]])["seq"]?.intValue ?? 0
    let lines = follower.readLines(until: { $0.contains("\"seq\":\(latest),") })
    let seqs = lines.compactMap {
      (try? LabelJSON.decoder().decode(JSONValue.self, from: Data($0.utf8)))?["seq"]?.intValue
    }
    #expect(seqs.count == lines.count, "every line is one JSON alert")
    #expect(seqs == Array(1...max(latest, 1)), "no event lost or repeated")
    follower.process.terminate()
    daemon.stop()
    #expect(daemon.log.contains("overflowed"), "the scenario must really overflow")
  }
}

/// A background `labelctl ... --follow` whose stdout the test reads line by line.
final class Follower {
  let process = Process()
  private let pipe = Pipe()
  private let stopper: DispatchWorkItem
  /// Everything read so far.
  private(set) var seen = ""

  init(_ socketPath: String, _ arguments: String...) throws {
    process.executableURL = URL(fileURLWithPath: DaemonProcess.labelctlPath)
    process.arguments = ["--socket", socketPath] + arguments
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    // A safety net, not a timing assertion: a follower that never prints what a test
    // waits for is killed, so the read ends instead of hanging the suite.
    let pid = process.processIdentifier
    stopper = DispatchWorkItem { _ = Glibc.kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: stopper)
  }

  /// Complete lines read until one satisfies `done` (included) or the output ends.
  func readLines(until done: (String) -> Bool) -> [String] {
    var lines: [String] = []
    var partial = ""
    while true {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { return lines }
      let text = String(decoding: chunk, as: UTF8.self)
      seen += text
      partial += text
      while let nl = partial.firstIndex(of: "\n") {
        let line = String(partial[..<nl])
        partial = String(partial[partial.index(after: nl)...])
        lines.append(line)
        if done(line) { return lines }
      }
    }
  }

  deinit {
    stopper.cancel()
    if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }
}

/// A scripted stand-in for labeld: it sends its first subscriber alerts 1 and 2 and then
/// `overflow` (seq 2) and hangs up, as labeld does to a subscriber that falls behind; its
/// second subscriber gets alert 3. It records each `subscribe`'s params.
final class OverflowingDaemon: @unchecked Sendable {
  let directory = DaemonProcess.makeTempDirectory()
  var socketPath: String { directory.appendingPathComponent("fake.sock").path }
  private let listener: Int32
  private let lock = NSLock()
  private var subscribes: [JSONValue] = []
  private var stopped = false
  private let finished = DispatchSemaphore(value: 0)

  init() throws {
    listener = try UnixSocket.listen(path: directory.appendingPathComponent("fake.sock").path)
    Thread.detachNewThread { self.serve() }
  }

  var subscribeParams: [JSONValue] { lock.withLock { subscribes } }

  /// Stops listening (a reconnect is refused) and hangs up on the current subscriber.
  func stop() {
    let first = lock.withLock {
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    close(listener)
    finished.signal()
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  private func serve() {
    guard let first = acceptOne() else { return }
    let id1 = readSubscribe(first)
    send(first, #"{"jsonrpc":"2.0","id":\#(id1),"result":{"seq":2}}"#)
    send(first, alert(1))
    send(first, alert(2))
    send(first, #"{"jsonrpc":"2.0","method":"overflow","params":{"seq":2}}"#)
    close(first)
    guard let second = acceptOne() else { return }
    let id2 = readSubscribe(second)
    send(second, #"{"jsonrpc":"2.0","id":\#(id2),"result":{"seq":3}}"#)
    send(second, alert(3))
    finished.wait()
    close(second)
  }

  private func alert(_ seq: Int) -> String {
    #"{"jsonrpc":"2.0","method":"alert","params":{"seq":\#(seq),"#
      + #""id":"printerError:sim:zebra","kind":"printerError","state":"active","#
      + #""time":"2025-01-01T00:00:00Z","message":"zebra: cover open","#
      + #""printer":"sim:zebra","reason":"coverOpen"}}"#
  }

  /// The next connection, made blocking; nil once stopped (or after 30 s of nothing).
  private func acceptOne() -> Int32? {
    var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, 30_000) == 1, p.revents & Int16(POLLIN) != 0,
      let fd = try? UnixSocket.accept(listener)
    else { return nil }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    return fd
  }

  /// Reads one request line, records its params, and returns its id as JSON text.
  private func readSubscribe(_ fd: Int32) -> String {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1 && byte != 0x0A { line.append(byte) }
    let request = try? LabelJSON.decoder().decode(JSONValue.self, from: Data(line))
    lock.withLock { subscribes.append(request?["params"] ?? .null) }
    return request?["id"]?.intValue.map(String.init) ?? "null"
  }

  private func send(_ fd: Int32, _ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }
}
