import Foundation
import LabelCore
import LabelPOSIX
import LabelServer
import LabelTestKit
import LabelWire
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

  /// Params are decoded straight from the parsed request: a member of the wrong kind is
  /// named down to its path (where decoding through JSONDecoder named no field for a
  /// fraction in an integer), and nothing is saved.
  @Test func aBadMemberDeepInParams_isNamed_andNothingIsSaved() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    let template =
      #"{"name":"t","media":{"widthMM":50,"lengthMM":25},"elements":[{"type":"text","x":1,"y":1,"width":20,"height":5,"text":"hi","rotation":1.5}]}"#
    let reply = try Self.decode(
      await stack.call(
        #"{"jsonrpc":"2.0","id":1,"method":"templates.save","params":{"template":\#(template)}}"#))
    #expect(reply["error"]?["code"] == .int(-32602))
    #expect(reply["error"]?["data"]?["field"] == .string("template.elements[0].rotation"))
    let product = try Self.decode(
      await stack.call(
        #"{"jsonrpc":"2.0","id":2,"method":"products.save","params":{"product":{"sku":"A","name":"Tea","price":"1.00"}}}"#
      ))
    #expect(product["error"]?["code"] == .int(-32602))
    #expect(product["error"]?["data"]?["field"] == .string("product.price"))
    for (method, key, value) in [("templates.get", "name", "t"), ("products.get", "sku", "A")] {
      let got = try Self.decode(
        await stack.call(
          #"{"jsonrpc":"2.0","id":3,"method":"\#(method)","params":{"\#(key)":"\#(value)"}}"#))
      #expect(got["error"]?["code"] == .int(RPCErrorCode.notFound.rawValue), "\(method)")
    }
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

  /// Reads from memory are answered on the reading thread (no task): the same answer as
  /// the async path, byte for byte; anything that waits goes the async way.
  @Test func readsFromMemory_areAnsweredAtOnce_theSameAsByTheAsyncPath() async throws {
    let stack = try TestStack()
    defer { stack.close() }
    await stack.add(FakeTransport(id: "fake:a"))
    let peer = PeerCredentials(pid: 1, uid: 1000, gid: 1000)
    for request in [
      #"{"jsonrpc":"2.0","id":1,"method":"printers.list"}"#,
      #"{"jsonrpc":"2.0","id":"x","method":"printers.get","params":{"printer":"fake:a"}}"#,
      #"{"jsonrpc":"2.0","id":2,"method":"printers.get","params":{"printer":"fake:nope"}}"#,
      #"{"jsonrpc":"2.0","id":3,"method":"hello","params":{"client":"t"}}"#,
      #"{"jsonrpc":"2.0","id":4,"method":"alerts.active"}"#,
    ] {
      guard
        case .answered(let line) = stack.dispatcher.handleAtOnce(Array(request.utf8), peer: peer)
      else {
        Issue.record("not answered at once: \(request)")
        continue
      }
      #expect(line == (await stack.call(request)), "\(request)")
    }
    // The second printers.list comes from the kept encoding; a change is seen at once.
    let before = try Self.decode(
      await stack.call(#"{"jsonrpc":"2.0","id":1,"method":"printers.list"}"#))
    await stack.add(FakeTransport(id: "fake:b"))
    let after = try Self.decode(
      await stack.call(#"{"jsonrpc":"2.0","id":1,"method":"printers.list"}"#))
    #expect(before["result"]?["printers"]?.arrayValue?.count == 1)
    #expect(after["result"]?["printers"]?.arrayValue?.count == 2)
    // Writes, and lines that only mention a read, take the async path.
    for request in [
      #"{"jsonrpc":"2.0","id":5,"method":"products.get","params":{"sku":"printers.list"}}"#,
      #"{"jsonrpc":"2.0","id":6,"method":"jobs.list"}"#,
      #"not json "printers.list""#,
      #"{"jsonrpc":"2.0","id":7,"method":"printers.list","params":{"pad":""#
        + String(repeating: "x", count: Dispatcher.immediateLineLimit) + #""}}"#,
    ] {
      guard case .later = stack.dispatcher.handleAtOnce(Array(request.utf8), peer: peer) else {
        Issue.record("answered at once: \(request)")
        continue
      }
    }
  }
}
