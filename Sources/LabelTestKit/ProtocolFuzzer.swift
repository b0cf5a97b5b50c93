import Foundation
import LabelCore
import LabelKit
import LabelLoad
import LabelPOSIX
import LabelWire

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A seeded, bounded fuzzer for the socket protocol: valid requests for every method,
/// mutated in their structure (values swapped for hostile ones, members dropped or added,
/// methods crossed) and in their bytes (flips, cuts, splices), plus hand-picked nasty
/// lines. It drives a real labeld over its socket and checks every line that comes back:
/// well-formed JSON-RPC 2.0, a known error code, never -32603, and labeld alive.
///
/// Each fuzzed line is followed by a sentinel request; answers come back in request
/// order, so everything read up to the sentinel's answer belongs to the fuzzed line.
package struct ProtocolFuzzer {
  /// What went wrong, with the line that caused it (for the failure message).
  package struct Failure: Error, CustomStringConvertible {
    package var seed: UInt64
    package var iteration: Int
    package var request: String
    package var problem: String
    package var description: String {
      "seed \(seed), iteration \(iteration): \(problem)\n  request: \(request.prefix(600))"
    }

    package init(seed: UInt64, iteration: Int, request: String, problem: String) {
      self.seed = seed
      self.iteration = iteration
      self.request = request
      self.problem = problem
    }
  }

  package let seed: UInt64
  private var rng: SplitMix64
  private var sentinel = 0
  /// Method → how many requests for it were sent (mutated or not).
  package private(set) var sentByMethod: [String: Int] = [:]
  package private(set) var answers = 0

  package init(seed: UInt64) {
    self.seed = seed
    rng = SplitMix64(seed: seed)
  }

  // MARK: the corpus

  /// A valid request's params for every method (the fuzzer's seeds). A method without an
  /// entry fails the fuzz test, so a new method is fuzzed from the day it exists.
  package static let corpus: [Method: [JSONValue]] = [
    .hello: [["client": "fuzz"], [:]],
    .printersList: [[:]],
    .printersGet: [["printer": "sim:zebra"], ["printer": "sim:ql"]],
    .printersRefresh: [[:]],
    .printersSimulate: [
      ["printer": "sim:ql", "fault": "coverOpen"], ["printer": "sim:ql", "fault": nil],
      ["printer": "sim:zebra", "fault": "mediaEmpty"], ["printer": "sim:zebra", "fault": nil],
    ],
    .productsSave: [
      [
        "product": [
          "sku": "FUZZ-1", "name": "Fuzzed milk", "price": 1.29, "currency": "EUR",
          "barcode": "4006381333931", "fields": ["origin": "DE"],
        ]
      ],
      [
        "product": ["sku": "FUZZ-2", "name": "Printed too", "barcode": "036000291452"],
        "print": ["printer": "sim:zebra", "template": "fuzz-shelf", "copies": 2],
      ],
      ["product": ["sku": "FUZZ-1", "name": "Versioned"], "expectedVersion": 1],
    ],
    .productsGet: [["sku": "FUZZ-1"], ["sku": "nope"]],
    .productsDelete: [["sku": "FUZZ-3"]],
    .productsList: [[:]],
    .templatesList: [[:]],
    .templatesGet: [["name": "fuzz-shelf"]],
    .templatesSave: [["template": fuzzTemplate]],
    .labelsRender: [
      ["template": "fuzz-shelf", "sku": "FUZZ-1", "printer": "sim:zebra", "format": "native"],
      ["template": "fuzz-shelf", "sku": "FUZZ-1", "printer": "sim:ql", "format": "png"],
      [
        "template": "fuzz-shelf", "data": ["name": "Data", "barcode": "4006381333931"],
        "language": "zpl", "format": "png",
      ],
    ],
    .jobsSubmit: [
      ["printer": "sim:zebra", "document": ["format": "native", "data": "Xlhh"], "copies": 1],
      ["printer": "sim:ql", "template": "fuzz-shelf", "sku": "FUZZ-1"],
      [
        "printer": "sim:zebra", "template": "fuzz-shelf",
        "data": ["name": "x", "barcode": "4006381333931"],
      ],
      ["printer": "sim:ql", "document": ["format": "png", "data": .string(tinyPNG)]],
    ],
    .jobsGet: [["job": 1]],
    .jobsCancel: [["job": 2]],
    .jobsList: [[:], ["printer": "sim:zebra", "states": ["pending", "completed"]]],
    .alertsActive: [[:]],
    .alertsDismiss: [["id": "printerError:sim:ql"]],
    .subscribe: [[:], ["topics": ["alerts", "jobs", "printers"], "since": 0]],
    .devicesList: [[:]],
    .tokensCreate: [["name": "fuzz", "role": "viewer"], ["name": "fuzz-admin", "role": "admin"]],
    .tokensList: [[:]],
    .tokensRevoke: [["name": "fuzz"]],
  ]

  /// The shelf template of the other tests, with a QR code and a line as well.
  package static let fuzzTemplate: JSONValue = {
    guard case .object(var t) = Fixtures.shelfTemplate,
      case .array(var elements)? = t["elements"]
    else { return Fixtures.shelfTemplate }
    elements += [
      ["type": "barcode", "x": 30, "y": 9, "height": 10, "symbology": "qr", "data": "${sku}"],
      ["type": "line", "x1": 1, "y1": 20, "x2": 49, "y2": 20, "thickness": 0.3],
    ]
    t["name"] = "fuzz-shelf"
    t["elements"] = .array(elements)
    return .object(t)
  }()

  /// A 2 x 2 grey PNG, base64.
  package static let tinyPNG =
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAAAAABX3VL4AAAADklEQVR4nGNgYGBgYGAAAAAFAAGKM+MAAAAAAElFTkSuQmCC"

  /// Makes the corpus's references valid (a template and products to print).
  package static func prepare(_ c: BlockingConnection) throws {
    try c.call("templates.save", ["template": fuzzTemplate])
    for sku in ["FUZZ-1", "FUZZ-3"] {
      try c.call(
        "products.save",
        ["product": ["sku": .string(sku), "name": "n", "barcode": "4006381333931"]])
    }
  }

  // MARK: hostile values

  /// JSON number texts no Swift number holds exactly, spliced in as raw text.
  package static let rawNumbers = [
    "1e400", "-1e400", "123456789012345678901234567890", "9223372036854775808",
    "-9223372036854775809", "-0", "1e-400", "0.1", "4.9e-324", "1.7976931348623157e308",
  ]

  private mutating func hostileValue() -> JSONValue {
    switch rng.below(22) {
    case 0: return .int(Int.max)
    case 1: return .int(Int.min)
    case 2: return .int(-1)
    case 3: return .int(0)
    case 4: return .int(rng.below(2) == 0 ? 4_294_967_296 : 65_536)
    case 5: return .double(1e308)
    case 6: return .double(-1e-300)
    case 7: return .string("")
    case 8: return .string(String(repeating: "W", count: 1 + rng.below(20_000)))
    case 9: return .string("^XA^FDinjected^FS^XZ~JR\u{0}\r\n\t${name}${")
    case 10: return .string("\u{202E}évêque 漢字 🧾 \u{FEFF}")
    case 11: return .null
    case 12: return .bool(rng.below(2) == 0)
    case 13: return .array((0..<rng.below(50)).map { _ in .int(rng.below(1000)) })
    case 14: return .object(["x": .int(1), "\u{0}": .null])
    case 15: return .string("sim:" + String(repeating: "q", count: rng.below(300)))
    case 16: return .int(rng.below(1_000_000))
    case 17: return .double(Double(rng.below(100_000)) / 7)
    case 18: return .string(Self.rawMarker(rng.below(Self.rawNumbers.count)))
    case 19: return nested(depth: 1 + rng.below(700))
    case 20: return .string("4006381333932")  // a wrong check digit
    default: return .string("../../../../etc/passwd")
    }
  }

  private func nested(depth: Int) -> JSONValue {
    var v: JSONValue = .int(1)
    for _ in 0..<depth { v = .array([v]) }
    return v
  }

  private static func rawMarker(_ i: Int) -> String { "\u{1}RAW\(i)\u{1}" }

  // MARK: mutation

  /// Replaces, removes or adds somewhere in `value` (a walk to a random node).
  private mutating func mutate(_ value: JSONValue, depth: Int = 0) -> JSONValue {
    if depth > 6 || rng.below(4) == 0 { return hostileValue() }
    switch value {
    case .object(var members):
      let action = rng.below(5)
      if action == 0 || members.isEmpty {
        members[
          [
            "printer", "sku", "copies", "fault", "x", "widthMM", "format", "data", "since", "job",
            "\u{0}",
          ][rng.below(11)]] = hostileValue()
      } else {
        let key = members.keys.sorted()[rng.below(members.count)]
        if action == 1 {
          members[key] = nil
        } else {
          members[key] = mutate(members[key] ?? .null, depth: depth + 1)
        }
      }
      return .object(members)
    case .array(var items):
      if items.isEmpty || rng.below(5) == 0 {
        items.append(hostileValue())
      } else {
        let i = rng.below(items.count)
        items[i] = mutate(items[i], depth: depth + 1)
      }
      return .array(items)
    default:
      return hostileValue()
    }
  }

  /// One fuzzed line: a corpus request, mutated in structure and sometimes in bytes.
  package mutating func nextLine() -> (method: String, line: [UInt8]) {
    let methods = Method.allCases
    let method = methods[rng.below(methods.count)]
    let seeds = Self.corpus[method] ?? [[:]]
    var params = seeds[rng.below(seeds.count)]
    for _ in 0..<rng.below(4) { params = mutate(params) }
    var request: JSONValue = [
      "jsonrpc": "2.0", "id": .int(rng.below(1_000_000)), "method": .string(method.rawValue),
      "params": params,
    ]
    switch rng.below(12) {
    case 0: request = mutate(request)  // the envelope itself
    case 1:  // another method's params
      request = [
        "jsonrpc": "2.0", "id": .string("x"),
        "method": .string(methods[rng.below(methods.count)].rawValue), "params": params,
      ]
    default: break
    }
    var bytes = splice(request.serialized())
    if rng.below(8) == 0 { bytes = mutateBytes(bytes) }
    sentByMethod[method.rawValue, default: 0] += 1
    return (method.rawValue, bytes)
  }

  /// Replaces raw-number markers by the raw number texts.
  private func splice(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.contains(0x01) else { return bytes }
    var text = String(decoding: bytes, as: UTF8.self)
    for (i, raw) in Self.rawNumbers.enumerated() {
      text = text.replacingOccurrences(of: "\"\\u0001RAW\(i)\\u0001\"", with: raw)
    }
    return Array(text.utf8)
  }

  private mutating func mutateBytes(_ input: [UInt8]) -> [UInt8] {
    var bytes = input
    guard !bytes.isEmpty else { return [0xFF] }
    for _ in 0..<(1 + rng.below(4)) {
      let i = rng.below(bytes.count)
      switch rng.below(5) {
      case 0: bytes[i] = UInt8(truncatingIfNeeded: rng.next())
      case 1: bytes = Array(bytes[..<i])
      case 2: bytes.insert(contentsOf: [0xC3, 0x28, 0x00, 0x5C, 0x22][rng.below(5)...], at: i)
      case 3: bytes += bytes[i...]
      default: bytes.remove(at: i)
      }
      if bytes.isEmpty { break }
    }
    // A raw newline would only split the line into two fuzzed lines: allowed, but keep
    // most lines whole so that the sentinel accounting stays simple.
    return bytes.map { $0 == 0x0A ? 0x20 : $0 }
  }

  // MARK: the run

  /// Hand-picked lines that once crashed labeld or could.
  package static let nastyLines: [String] = [
    #"{"jsonrpc":"2.0","id":1e400,"method":"hello"}"#,
    #"{"jsonrpc":"2.0","id":-1e400,"method":"nope"}"#,
    #"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"hello"}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.get","params":{"job":9223372036854775807}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.get","params":{"job":1e300}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"since":18446744073709551615}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"since":9223372036854775807}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"sim:zebra","copies":9223372036854775807,"document":{"format":"native","data":"QQ=="}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"products.save","params":{"product":{"sku":"N","name":"n","price":1e400}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"products.save","params":{"product":{"sku":"N","name":"n","price":-0,"barcode":"00000000000000000000"}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"templates.save","params":{"template":{"name":"big","media":{"widthMM":1e9,"lengthMM":1e9},"elements":[]}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"templates.save","params":{"template":{"name":"neg","media":{"widthMM":-5,"lengthMM":1e-300},"elements":[]}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"labels.render","params":{"template":"fuzz-shelf","sku":"FUZZ-1","printer":"sim:zebra","format":"png"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"sim:ql","document":{"format":"png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg=="}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"sim:ql","document":{"format":"png","data":"iVBORw0KGgoAAAANSUhEUgAAQAAAAEAACAAAAAA"}}}"#,
    #"{"jsonrpc":"2.0","id":"\ud800","method":"hello"}"#,
    #"{"jsonrpc":"2.0","id":"\u0000","method":"hello\u0000"}"#,
    #"{"jsonrpc":"2.0","id":[],"method":"hello"}"#,
    #"{"jsonrpc":"2.0","method":"hello","params":{"client":"no id, no answer"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"hello","params":[1,2,3]}"#,
    #"{"jsonrpc":"2.0","id":1,"id":2,"method":"hello"}"#,
    // Rendering: sizes that overflowed conversions, a canvas beyond the pixel budget,
    // placeholders that expand without bound, images that pile up.
    #"{"jsonrpc":"2.0","id":1,"method":"templates.save","params":{"template":{"name":"huge","media":{"widthMM":50,"lengthMM":30},"elements":[{"type":"text","x":0,"y":0,"width":10,"height":10,"text":"x","size":3e6}]}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"templates.save","params":{"template":{"name":"huge","media":{"widthMM":50,"lengthMM":30},"elements":[{"type":"barcode","x":0,"y":0,"height":10,"symbology":"qr","data":"x","moduleWidth":1e300}]}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"templates.save","params":{"template":{"name":"huge","media":{"widthMM":50,"lengthMM":30},"elements":[{"type":"line","x1":0,"y1":0,"x2":5,"y2":5,"thickness":1e300}]}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"templates.save","params":{"template":{"name":"poster","media":{"widthMM":300,"lengthMM":600},"elements":[{"type":"text","x":0,"y":0,"width":300,"height":600,"text":"${a}${a}${a}${a}${a}${a}${a}${a}"}]}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"labels.render","params":{"template":"poster","data":{"a":"x"},"language":"zpl","format":"png","dpi":1200}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"labels.render","params":{"template":"poster","data":{"a":"x"},"language":"brother-ql","format":"png"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"sim:ql","template":"poster","data":{"a":"x"}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"labels.render","params":{"template":"fuzz-shelf","data":{"name":"x","barcode":"4006381333932"},"language":"zpl","format":"native"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"sim:zebra","document":{"format":"png","data":"iVBORw0KGgoAAAANSUhEUgAAQAAAAEAACAAAAAA"}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.submit","params":{"printer":"sim:ql","document":{"format":"native","data":"AAAAG0AbaWEBG2l6hgo+AEBCDwAAABoa"}}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"printer":"usb:0000:0000:NONE","states":["pending"]}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.cancel","params":{"job":-1}}"#,
    // Paging: limits and cursors at and beyond their bounds, times that do not parse.
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"limit":0}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"limit":10001,"after":-1}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"limit":1e300,"after":9223372036854775807}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"after":18446744073709551615,"owner":-1}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"owner":4294967296,"since":"1970-01-01T00:00:00Z"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"since":"9999-99-99T99:99:99Z","states":["completed","aborted","canceled"]}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"jobs.list","params":{"since":"-292277022657-01-27T08:29:52Z"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"products.list","params":{"limit":1,"after":"\u0000"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"products.list","params":{"limit":-5,"after":7}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"templates.list","params":{"limit":10000,"after":"\uffff\uffff"}}"#,
    #"{"jsonrpc":"2.0","id":1,"method":"templates.list","params":{"after":[],"limit":"1"}}"#,
    "", "   ", "\r", "null", "0", "[]", "{}", "\u{FEFF}{}",
    String(repeating: "[", count: 100_000),
    String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600),
  ]

  /// Sends `line` and a sentinel over `c`, reads up to the sentinel's answer and checks
  /// every line. Returns false when labeld closed the connection (allowed only for a
  /// line over the size limit); throws a Failure for anything else wrong.
  package mutating func exchange(_ c: BlockingConnection, _ line: [UInt8], iteration: Int) throws
    -> Bool
  {
    sentinel += 1
    let tag = "sentinel-\(sentinel)"
    let request = String(decoding: line.prefix(2000), as: UTF8.self)
    func fail(_ problem: String) -> Failure {
      Failure(seed: seed, iteration: iteration, request: request, problem: problem)
    }
    do {
      try c.sendLine(line)
      try c.sendLine(Array(#"{"jsonrpc":"2.0","id":"\#(tag)","method":"hello"}"#.utf8))
    } catch {
      return false
    }
    while true {
      let answer: [UInt8]
      do {
        answer = try c.readLine()
      } catch .connectionLost {
        return false
      } catch {
        throw fail("no answer: \(error)")
      }
      answers += 1
      let text = String(decoding: answer.prefix(600), as: UTF8.self)
      guard let message = try? JSONValue.parse(answer), case .object(let m) = message else {
        throw fail("an answer that is not a JSON object: \(text)")
      }
      guard m["jsonrpc"] == "2.0" else { throw fail("no \"jsonrpc\":\"2.0\": \(text)") }
      if let method = m["method"] {
        guard m["id"] == nil, let name = method.stringValue,
          NotificationMethod(rawValue: name) != nil, m["params"]?.objectValue != nil
        else { throw fail("a malformed notification: \(text)") }
        continue
      }
      guard let id = m["id"] else { throw fail("an answer without id: \(text)") }
      switch (m["result"], m["error"]) {
      case (_?, nil):
        if id == .string(tag) { return true }
      case (nil, let error?):
        guard let code = error["code"]?.intValue, error["message"]?.stringValue != nil else {
          throw fail("a malformed error: \(text)")
        }
        guard Self.knownCodes.contains(code) else { throw fail("unknown error code: \(text)") }
        guard code != -32603 else { throw fail("an internal error (a bug): \(text)") }
        if id == .string(tag) { throw fail("the sentinel failed: \(text)") }
      default:
        throw fail("an answer with neither or both of result and error: \(text)")
      }
    }
  }

  package static let knownCodes: Set<Int> = [
    -32700, -32600, -32601, -32602, -32603, 1001, 1002, 1003, 1004, 1005, 1006, 1007,
  ]
}
