import Foundation
import LabelCore
import LabelTestKit
import Testing

/// The dispatcher on the test kit: requests in, response lines out, and what they did at
/// the fake printer and in the store.
@Suite struct DispatcherUnitTests {
  static func decode(_ line: [UInt8]?) throws -> JSONValue {
    try JSONValue.parse(try #require(line))
  }

  @Test func jobsSubmit_native_reachesThePrinter_byteForByte() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:p")
    await stack.add(printer)
    let zpl = "^XA^FO10,10^FDdispatched^FS^XZ"
    let reply = try Self.decode(
      await stack.call(
        #"{"jsonrpc":"2.0","id":7,"method":"jobs.submit","params":{"printer":"fake:p","copies":2,"document":{"format":"native","data":"\#(Data(zpl.utf8).base64EncodedString())"}}}"#
      ))
    #expect(reply["id"] == .int(7))
    let id = try #require(reply["result"]?["job"]?["id"]?.intValue)
    #expect(try await stack.wait(for: id, in: [.completed]).printed == 2)
    #expect(printer.copies.map(\.bytes) == [Array(zpl.utf8), Array(zpl.utf8)])
    #expect(printer.copies.allSatisfy { $0.job == id })
  }

  @Test func printersSimulate_goesThroughTheTransport_andNeedsAnAdmin() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:s")
    await stack.add(printer)
    let request =
      #"{"jsonrpc":"2.0","id":1,"method":"printers.simulate","params":{"printer":"fake:s","fault":"mediaEmpty"}}"#
    let refused = try Self.decode(await stack.call(request, uid: 1000))
    #expect(refused["error"]?["code"] == .int(RPCErrorCode.notPermitted.rawValue))
    #expect(stack.registry.queue("fake:s")?.snapshot.reasons == [])
    let done = try Self.decode(await stack.call(request, uid: 0))
    #expect(done["result"]?["printer"]?["reasons"] == .array([.string("mediaEmpty")]))
    #expect(done["result"]?["printer"]?["state"] == .string("stopped"))
    #expect(stack.channel.activeEvent(id: "printerError:fake:s") != nil)
  }

  @Test func badRequests_getTheirCodes_andNothingReachesThePrinter() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let printer = FakeTransport(id: "fake:x")
    await stack.add(printer)
    let cases: [(String, Int)] = [
      (#"{"jsonrpc":"2.0","id":1,"method":"jobs.submit""#, -32700),
      (#"{"jsonrpc":"2.0","id":1,"method":"no.such"}"#, -32601),
      (#"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"fake:x"}}"#, -32602),
      (
        #"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"fake:nope","document":{"format":"native","data":"eA=="}}}"#,
        1001
      ),
      (#"{"jsonrpc":"2.0","id":1,"method":"jobs.get","params":{"job":99}}"#, 1003),
    ]
    for (line, code) in cases {
      let reply = try Self.decode(await stack.call(line))
      #expect(reply["error"]?["code"] == .int(code), "\(line)")
    }
    #expect(printer.started == 0)
  }
}
