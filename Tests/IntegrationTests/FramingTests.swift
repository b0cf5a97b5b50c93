import Foundation
import LabelCore
import LabelKit
import LabelTestKit
import LabelWire
import Testing

/// Protocol v1 framing over the real socket: malformed lines, limits, notifications,
/// ordering.
@Suite struct FramingTests {
  @Test func hello_answersServerVersionAndProtocol() throws {
    try withDaemon { d in
      let r = try d.client().call("hello", ["client": "test"], as: HelloResult.self)
      #expect(r.server == "labeld")
      #expect(r.protocol == 1)
      #expect(r.version == LabelVersion.version)
    }
  }

  @Test func malformedLine_getsParseError_andNextLineIsServed() throws {
    try withDaemon { d in
      let c = try d.client()
      try c.sendLine(Array("{this is not json".utf8))
      let error = try c.readMessage()
      #expect(error["error"]?["code"] == .int(-32700))
      #expect(error["id"] == .null)
      let r = try c.call("hello", [:], as: HelloResult.self)
      #expect(r.server == "labeld")
    }
  }

  @Test func invalidUTF8_getsParseError() throws {
    try withDaemon { d in
      let c = try d.client()
      try c.sendLine([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D])
      #expect(try c.readMessage()["error"]?["code"] == .int(-32700))
      #expect(try c.call("printers.list")["printers"] != nil)
    }
  }

  /// JSON-RPC 2.0: the response's id is the request's. Any JSON number is an id, also one
  /// that no Swift number holds (a huge id once killed labeld through a precondition).
  @Test(arguments: [
    "1e400", "-1e400", "123456789012345678901234567890", "9223372036854775808", "-0", "1.0",
    "1E+2", "0.1", "2.5e-400", "-12.5e10", #""caf\u00e9 \"id\"""#, "null",
  ])
  func anyJSONNumberOrStringID_comesBackExactlyAsSent(id: String) throws {
    try withDaemon { d in
      let c = try d.client()
      try c.sendLine(Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"hello"}"#.utf8))
      let answer = String(decoding: try c.readLine(), as: UTF8.self)
      #expect(answer.contains(#""id":\#(id),"#), "\(answer)")
      #expect(answer.contains(#""result":"#))
      // The error path echoes it too.
      try c.sendLine(Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"no.such"}"#.utf8))
      let error = String(decoding: try c.readLine(), as: UTF8.self)
      #expect(error.contains(#""id":\#(id),"#), "\(error)")
      #expect(try JSONValue.parse(Array(error.utf8))["error"]?["code"] == .int(-32601))
      #expect(try c.call("hello")["protocol"] == .int(1))
    }
  }

  /// A number beyond what a Double holds anywhere in params is refused, naming the field;
  /// it is never stored (it could not be sent back).
  @Test func nonFiniteNumberInParams_isInvalidParams_namingTheField() throws {
    try withDaemon { d in
      let c = try d.client()
      try c.sendLine(
        Array(
          #"{"jsonrpc":"2.0","id":1,"method":"products.save","params":{"product":{"sku":"A","name":"n","price":1e400}}}"#
            .utf8))
      let reply = try c.readMessage()
      #expect(reply["error"]?["code"] == .int(-32602))
      #expect(reply["error"]?["data"]?["field"] == "product.price")
      #expect(c.error("products.get", ["sku": "A"])?.code == 1006)
    }
  }

  @Test(arguments: [
    ("[1,2,3]", JSONValue.null),
    ("\"hello\"", JSONValue.null),
    ("{\"jsonrpc\":\"2.0\",\"id\":7}", JSONValue.int(7)),
    ("{\"jsonrpc\":\"1.0\",\"id\":8,\"method\":\"hello\"}", JSONValue.int(8)),
    ("{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"hello\"}", JSONValue.null),
    ("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":42}", JSONValue.string("s")),
  ])
  func invalidRequest_getsMinus32600(line: String, expectedID: JSONValue) throws {
    try withDaemon { d in
      let c = try d.client()
      try c.sendLine(Array(line.utf8))
      let reply = try c.readMessage()
      #expect(reply["error"]?["code"] == .int(-32600))
      #expect(reply["id"] == expectedID)
      // The connection stays usable.
      #expect(try c.call("hello")["protocol"] == .int(1))
    }
  }

  @Test func lineOverTheLimit_getsMessageTooLarge_thenClose() throws {
    try withDaemon { d in
      let c = try d.client()
      // Default limit: 1 MiB not counting the newline. One byte more is too large.
      var huge = Array(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"client\":\"".utf8)
      huge += [UInt8](repeating: 0x61, count: (1 << 20) - huge.count - 2)
      huge += Array("\"}}".utf8)
      #expect(huge.count == (1 << 20) + 1)
      try c.sendLine(huge)
      let lines = try c.readUntilClosed()
      #expect(lines.count == 1)
      let reply = try LabelJSON.decoder().decode(JSONValue.self, from: Data(lines[0]))
      #expect(reply["error"]?["code"] == .int(-32600))
      #expect(
        reply["error"]?["message"]?.stringValue == "message too large: the limit is 1048576 bytes")
      #expect(reply["error"]?["data"] == ["limitBytes": 1_048_576])
      // The daemon keeps serving everyone else.
      #expect(try d.client().call("hello")["protocol"] == .int(1))
    }
  }

  @Test func lineExactlyAtTheLimit_isServed() throws {
    try withDaemon { d in
      let c = try d.client()
      var line = Array(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"client\":\"".utf8)
      line += [UInt8](repeating: 0x62, count: (1 << 20) - line.count - 3)
      line += Array("\"}}".utf8)
      #expect(line.count == 1 << 20)
      try c.sendLine(line)
      #expect(try c.readMessage()["result"]?["server"] == "labeld")
    }
  }

  @Test func smallerConfiguredLimit_isEnforced() throws {
    try withDaemon(["--max-message-bytes", "2048", "--simulate", "zebra=zpl"]) { d in
      let c = try d.client()
      let big = JSONValue.string(String(repeating: "x", count: 3000))
      #expect(throws: LabelError.self) { try c.call("hello", ["client": big]) }
      #expect(try d.client().call("hello", ["client": "small"])["protocol"] == .int(1))
    }
  }

  @Test func requestWithoutID_isExecutedButNeverAnswered() throws {
    try withDaemon { d in
      let c = try d.client()
      let save =
        #"{"jsonrpc":"2.0","method":"products.save","params":{"product":{"sku":"N1","name":"Quiet"}}}"#
      try c.sendLine(Array(save.utf8))
      // Even a failing notification gets no answer.
      try c.sendLine(Array(#"{"jsonrpc":"2.0","method":"no.such.method"}"#.utf8))
      // The first line that comes back answers the request with an id.
      let product = try c.call("products.get", ["sku": "N1"])
      #expect(product["product"]?["name"] == "Quiet")
      #expect(product["product"]?["version"] == .int(1))
    }
  }

  @Test func fiftyPipelinedRequests_areAnsweredInOrder() throws {
    try withDaemon { d in
      let c = try d.client()
      var batch: [UInt8] = []
      let methods = ["hello", "printers.list", "alerts.active", "products.list", "jobs.list"]
      for i in 0..<50 {
        // Mix ids of both kinds and methods of different cost.
        let id = i % 2 == 0 ? "\(i)" : "\"r\(i)\""
        batch +=
          Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(methods[i % 5])"}"#.utf8) + [0x0A]
      }
      try c.sendRaw(batch)
      for i in 0..<50 {
        let reply = try c.readMessage()
        let expected: JSONValue = i % 2 == 0 ? .int(i) : .string("r\(i)")
        #expect(reply["id"] == expected)
        #expect(reply["result"] != nil)
      }
    }
  }

  @Test func unknownMethod_namesIt() throws {
    try withDaemon { d in
      let e = try #require(try d.client().error("printers.explode"))
      #expect(e.code == -32601)
      #expect(e.data == ["method": "printers.explode"])
    }
  }

  @Test func paramsThatAreNotAnObject_areInvalidParams() throws {
    try withDaemon { d in
      let e = try #require(try d.client().error("printers.get", [1, 2]))
      #expect(e.code == -32602)
      #expect(e.data?["field"] == "params")
    }
  }
}
