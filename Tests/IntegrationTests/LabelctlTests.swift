#if canImport(Glibc)
  @preconcurrency import Glibc
#endif
import Foundation
import LabelCore
import Testing

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

  @Test func templatesSaveListShow_andRenderIsUnsupported() throws {
    let daemon = try DaemonProcess()
    let path = try daemon.file("shelf.json", shelfTemplate)
    let save = try daemon.ctl("templates", "save", path)
    #expect(save.status == 0, "\(save.stderr)")
    #expect(try daemon.ctl("templates").stdout.contains("shelf  50x25 mm  2"))
    let show = try daemon.ctl("templates", "show", "shelf")
    let template = try show.json()
    #expect(template["name"] == "shelf")
    #expect(template["elements"]?.arrayValue?.count == 2)
    let output = daemon.directory.appendingPathComponent("out.zpl").path
    let render = try daemon.ctl(
      "render", "shelf", "--data", "name=Pencil", "--data", "barcode=4006381333931",
      "--printer", "sim:zebra", "-o", output)
    #expect(render.status == 1)
    #expect(render.stderr.contains("(error 1007)"))
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test func alertsFollow_sinceZero_showsAnAlertRaisedLater() throws {
    let daemon = try DaemonProcess()
    let follower = Process()
    follower.executableURL = URL(fileURLWithPath: DaemonProcess.labelctlPath)
    follower.arguments = ["--socket", daemon.socketPath, "alerts", "--follow", "--since", "0"]
    let pipe = Pipe()
    follower.standardOutput = pipe
    follower.standardError = FileHandle.nullDevice
    try follower.run()
    // A safety net, not a timing assertion: a follower that never prints is killed so the
    // read below ends instead of hanging the suite.
    let pid = follower.processIdentifier
    let stopper = DispatchWorkItem { _ = Glibc.kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: stopper)
    defer {
      stopper.cancel()
      if follower.isRunning { _ = Glibc.kill(pid, SIGKILL) }
      follower.waitUntilExit()
    }
    #expect(try daemon.ctl("simulate", "sim:zebra", "headError").status == 0)
    var seen = ""
    var found: String?
    while found == nil {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      seen += String(decoding: chunk, as: UTF8.self)
      found = seen.split(separator: "\n").first { $0.contains("printerError:sim:zebra") }
        .map(String.init)
    }
    #expect(found?.contains("active") == true, "follower printed: \(seen)")
    #expect(found?.contains("headError") == true)
    #expect(follower.isRunning)
    // Runs until interrupted, and SIGTERM does interrupt it.
    follower.terminate()
    follower.waitUntilExit()
    #expect(follower.terminationReason == .uncaughtSignal)
  }
}
