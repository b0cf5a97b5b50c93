import Foundation
import LabelCore
import LabelPrint
import LabelWire
import Testing

@testable import LabelEvents
@testable import LabelLog
@testable import LabelScheduler
@testable import LabelServer
@testable import LabelStore
@testable import LabelTransportSim

struct SimulatedPrinterSpecTests {
  @Test func parses_optionsAndDefaults() throws {
    let z = try SimulatedPrinterSpec.parse("zebra=zpl")
    #expect(
      z
        == SimulatedPrinterSpec(
          name: "zebra", language: .zpl, dpi: 203, widthMM: 50.8, lengthMM: 25.4))
    let q = try SimulatedPrinterSpec.parse(
      "ql=brother-ql,dpi=300,width=29,length=90,speed=30,model=ql-1060n,accepting=no")
    #expect(q.language == .brotherQL)
    #expect(q.dpi == 300)
    #expect(q.model == "QL-1060N")
    #expect(q.widthMM == 29 && q.lengthMM == 90)
    #expect(q.speed == 30)
    #expect(q.accepting == false)
    // Tape printers: the cassette's width, the model's one resolution, media kind tape.
    let pt = try SimulatedPrinterSpec.parse("pt=brother-pt,width=3.5")
    #expect(pt.dpi == 180 && pt.widthMM == 3.5 && pt.lengthMM == 0)
    let p9 = try SimulatedPrinterSpec.parse("p9=brother-pt,model=PT-P900W,width=36")
    #expect(p9.dpi == 360 && p9.model == "PT-P900W")
    let lm = try SimulatedPrinterSpec.parse("lm=dymo-lm")
    #expect(lm.dpi == 180 && lm.widthMM == 12)
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID())")
    defer { try? FileManager.default.removeItem(at: state) }
    let printer = try SimulatedPrinter(spec: p9, stateDirectory: state.path)
    #expect(printer.descriptor.media == Media(widthMM: 36, lengthMM: 0, kind: "tape"))
    #expect(printer.descriptor.model == "Simulated Brother PT-P900W")
  }

  @Test(arguments: [
    ("zebra", "NAME=LANGUAGE"), ("=zpl", "must be letters"), ("a b=zpl", "must be letters"),
    ("z=epl", "language must be one of"),
    ("z=zpl,dpi=250", "dpi=250 must be 152, 180, 200, 203, 300, 360 or 600"),
    ("z=zpl,width=abc", "width=abc"),
    ("z=zpl,colour=red", "unknown option"), ("z=zpl,darkness=31", "darkness=31"),
    ("z=zpl,finish=fold", "tear, cut or peel"), ("z=zpl,speed", "needs a value"),
    ("z=zpl,accepting=maybe", "yes or no"), ("z=zpl,keep=0", "keep=0"),
    ("q=brother-ql,dpi=203", "300 dpi"),
    ("q=brother-ql,model=QL-9", "unknown Brother QL model"), ("z=zpl,model=QL-700", "brother-ql"),
    // Tape: its width only, and one the model's head takes.
    ("t=brother-pt,width=12,length=30", "give the tape's width= only"),
    ("t=brother-pt,width=36", "PT-P700 takes no 36 mm tape"),
    ("t=dymo-lm,width=24", "24 mm"), ("t=brother-pt,width=2", "width=2"),
  ])
  func rejects_withAMessageNamingThePart(text: String, fragment: String) {
    do {
      _ = try SimulatedPrinterSpec.parse(text)
      Issue.record("\(text) should not parse")
    } catch {
      #expect(error.description.contains(fragment), "\(error.description)")
    }
  }
}

struct DispatcherTests {
  /// -32603 is for bugs; one reachable path is a subscription without a connection.
  @Test func internalError_whenSubscribingWithoutAConnection() async throws {
    let log = Logger(level: .error, sink: MemorySink())
    let channel = EventChannel(log: log)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("labeld-unit-\(UUID())")
      .path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = StateStore(directory: dir, log: log)
    let jobs = JobStore(store: store)
    let registry = PrinterRegistry(jobs: jobs, channel: channel, log: log)
    let saveErrors = SaveErrors(channel: channel)
    let services = ServerContext(
      channel: channel, printers: registry, products: ProductStore(store: store),
      templates: TemplateStore(store: store), jobStore: jobs,
      jobs: JobManager(jobs: jobs, printers: registry, channel: channel, saveErrors: saveErrors),
      renderer: LabelRenderer(), saveErrors: saveErrors, access: AccessPolicy(adminGroup: nil),
      log: log)
    let dispatcher = Dispatcher(services: services)
    let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#.utf8)
    let reply = try #require(
      await dispatcher.handle(line, peer: .init(pid: 1, uid: 0, gid: 0), connection: nil))
    let v = try LabelJSON.decoder().decode(JSONValue.self, from: Data(reply))
    #expect(v["error"]?["code"] == -32603)
  }

  /// The simulated printer keeps the files of its newest `keep` jobs: older ones go as new
  /// ones are written, files of an earlier run count, an older job printing again takes its
  /// place by id.
  @Test func outputFiles_keepTheNewestJobs() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "labeld-outputs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    func touch(_ job: Int) {
      _ = FileManager.default.createFile(
        atPath: dir.appendingPathComponent("\(job).zpl").path, contents: Data("x".utf8))
    }
    func files() -> [Int] {
      ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
        .compactMap { Int($0.dropLast(4)) }.sorted()
    }
    // An earlier run left five files (and one of another kind, never touched).
    for job in [3, 9, 4, 7, 8] { touch(job) }
    _ = FileManager.default.createFile(
      atPath: dir.appendingPathComponent("notes.txt").path, contents: nil)
    let kept = OutputFiles(directory: dir.path, fileExtension: "zpl", keep: 3)
    #expect(files() == [7, 8, 9])
    for job in 10...12 {
      touch(job)
      kept.written(job: job)
    }
    #expect(files() == [10, 11, 12])
    // Job 5 (resumed after a restart) is older than all three: it is the one to go.
    touch(5)
    kept.written(job: 5)
    #expect(files() == [10, 11, 12])
    touch(11)
    kept.written(job: 11)  // written again: still one file, nothing else goes
    #expect(files() == [10, 11, 12])
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("notes.txt").path))
  }
}
