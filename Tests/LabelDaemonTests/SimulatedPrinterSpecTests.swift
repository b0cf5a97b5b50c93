import Foundation
import LabelCore
import Testing

@testable import LabelDaemon

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
  }

  @Test(arguments: [
    ("zebra", "NAME=LANGUAGE"), ("=zpl", "must be letters"), ("a b=zpl", "must be letters"),
    ("z=epl", "language must be one of"), ("z=zpl,dpi=250", "dpi must be"),
    ("z=zpl,width=abc", "width=abc"),
    ("z=zpl,colour=red", "unknown option"), ("z=zpl,darkness=31", "darkness=31"),
    ("z=zpl,finish=fold", "tear, cut or peel"), ("z=zpl,speed", "needs a value"),
    ("z=zpl,accepting=maybe", "yes or no"), ("q=brother-ql,dpi=203", "300 dpi"),
    ("q=brother-ql,model=QL-9", "unknown Brother QL model"), ("z=zpl,model=QL-700", "brother-ql"),
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
    let registry = PrinterRegistry()
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("labeld-unit-\(UUID())")
      .path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = StateStore(directory: dir, log: log)
    let jobs = JobStore(store: store)
    let saveErrors = SaveErrors(channel: channel)
    let services = Services(
      channel: channel, printers: registry, products: ProductStore(store: store),
      templates: TemplateStore(store: store),
      jobs: JobService(jobs: jobs, printers: registry, channel: channel, saveErrors: saveErrors),
      renderer: LabelRenderer(), saveErrors: saveErrors, access: AccessPolicy(adminGroup: nil),
      log: log)
    let dispatcher = Dispatcher(services: services)
    let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#.utf8)
    let reply = try #require(
      await dispatcher.handle(line, peer: .init(pid: 1, uid: 0, gid: 0), connection: nil))
    let v = try LabelJSON.decoder().decode(JSONValue.self, from: Data(reply))
    #expect(v["error"]?["code"] == -32603)
  }
}
