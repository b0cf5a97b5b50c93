import Foundation
import Testing

/// labeld has one JSON stack: `JSONWriter` writes every answer, notification, stored row and
/// journal entry, and `JSONValue.parse` reads them. Foundation's coders are the golden
/// tests' reference only: no source file outside that reference uses them.
@Suite struct OneJSONStackTests {
  @Test func noSourceFile_usesFoundationsJSONCoders() throws {
    let sources = ModuleGraphTests.root.appendingPathComponent("Sources")
    let allowed = ["LabelWire/LabelJSON.swift"]
    var found: [String] = []
    for module in try ModuleGraphTests.modules() {
      let folder = sources.appendingPathComponent(module)
      guard let walk = FileManager.default.enumerator(atPath: folder.path) else { continue }
      for case let path as String in walk where path.hasSuffix(".swift") {
        let file = "\(module)/\(path)"
        if allowed.contains(file) { continue }
        let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
        for (n, line) in text.split(separator: "\n").enumerated() {
          let code =
            line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
          for needle in [
            "JSONEncoder", "JSONDecoder", "LabelJSON.encoder()", "LabelJSON.decoder()",
          ]
          where code.contains(needle) {
            found.append("\(file):\(n + 1): \(needle)")
          }
        }
      }
    }
    #expect(found.isEmpty, "Foundation's JSON coders on labeld's paths: \(found)")
  }
}
