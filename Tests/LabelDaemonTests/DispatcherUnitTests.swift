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
}
