import Foundation
import LabelCore
import Testing

/// The module graph is part of the design: docs/architecture.md lists, in a
/// `module-graph` block, which project modules each module imports. These tests read that
/// block and every `import` in `Sources/` and fail when they differ, so neither the code
/// nor the picture can drift alone.
@Suite struct ModuleGraphTests {
  /// The package root: this file is `Tests/LabelCoreTests/ModuleGraphTests.swift`.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func modules() throws -> [String] {
    let sources = root.appendingPathComponent("Sources")
    return try FileManager.default.contentsOfDirectory(atPath: sources.path)
      .filter { !$0.hasPrefix(".") }.sorted()
  }

  /// The project modules that the Swift files of `module` import.
  static func imports(of module: String, among project: Set<String>) throws -> Set<String> {
    let folder = root.appendingPathComponent("Sources").appendingPathComponent(module)
    guard let walk = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    var found: Set<String> = []
    for case let path as String in walk where path.hasSuffix(".swift") {
      let text = try String(
        contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
      for line in text.split(separator: "\n") {
        if let name = importedModule(line), project.contains(name) { found.insert(name) }
      }
    }
    return found
  }

  /// The module an `import` line names ("@preconcurrency import Glibc", "import struct
  /// Foundation.Date"), or nil for any other line.
  static func importedModule(_ line: Substring) -> String? {
    var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
    while let first = words.first, first.hasPrefix("@") { words = words.dropFirst() }
    guard words.first == "import" else { return nil }
    words = words.dropFirst()
    let kinds: Set<Substring> = [
      "struct", "class", "enum", "protocol", "func", "var", "let", "typealias",
    ]
    if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
    guard let path = words.first else { return nil }
    let name = path.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    return name.isEmpty ? nil : String(name)
  }

  /// The `module-graph` block of docs/architecture.md: module → the modules it imports.
  static func documentedGraph() throws -> [String: Set<String>] {
    let text = try String(
      contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("```module-graph") }) else {
      return [:]
    }
    var graph: [String: Set<String>] = [:]
    for line in lines[(start + 1)...] {
      if line.hasPrefix("```") { break }
      let parts = line.split(separator: "->", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2 else { continue }
      let name = parts[0].trimmingCharacters(in: .whitespaces)
      graph[name] = Set(
        parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
          .filter { !$0.isEmpty })
    }
    return graph
  }

  @Test func everyImportInSources_isTheOneDocumentedInArchitectureMD() throws {
    let modules = try Self.modules()
    let graph = try Self.documentedGraph()
    #expect(!graph.isEmpty, "docs/architecture.md has no ```module-graph block")
    #expect(
      Set(graph.keys) == Set(modules),
      "modules in Sources/ but not in the graph: \(Set(modules).subtracting(graph.keys).sorted()); in the graph but not in Sources/: \(Set(graph.keys).subtracting(modules).sorted())"
    )
    let project = Set(modules)
    for module in modules {
      let actual = try Self.imports(of: module, among: project)
      let documented = graph[module] ?? []
      #expect(
        actual == documented,
        "\(module) imports \(actual.sorted()), the graph says \(documented.sorted())")
    }
  }

  @Test func everyModuleHasARowInTheModuleTable() throws {
    let text = try String(
      contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
    for module in try Self.modules() {
      #expect(text.contains("| `\(module)` |"), "docs/architecture.md has no row for \(module)")
    }
  }

  @Test func aCModule_hasExactlyOneImporter_andLabelCoreImportsNoneOfThem() throws {
    let graph = try Self.documentedGraph()
    let cModules = try Self.modules().filter {
      $0.hasPrefix("C") && $0.dropFirst().first?.isUppercase == true
    }
    #expect(!cModules.isEmpty)
    for c in cModules {
      let importers = graph.filter { $0.value.contains(c) }.map(\.key)
      #expect(importers.count == 1, "\(c) is imported by \(importers.sorted())")
    }
    #expect(graph["LabelCore"] == [], "LabelCore imports \(graph["LabelCore"] ?? [])")
  }

  /// One-way layers: following imports never leads back to where it started.
  @Test func theGraphHasNoCycle() throws {
    let graph = try Self.documentedGraph()
    var done: Set<String> = []
    func visit(_ module: String, _ path: [String]) {
      if done.contains(module) { return }
      if let loop = path.firstIndex(of: module) {
        Issue.record("import cycle: \((path[loop...] + [module]).joined(separator: " -> "))")
        return
      }
      for next in (graph[module] ?? []).sorted() { visit(next, path + [module]) }
      done.insert(module)
    }
    for module in graph.keys.sorted() { visit(module, []) }
  }

  /// LabelCore is the model and nothing else: it imports no project module and no
  /// Dispatch (queues are LabelConcurrency's), and the wire form (JSON reading and
  /// writing, protocol lines) is LabelWire's.
  @Test func theCore_holdsTheModelOnly() throws {
    let graph = try Self.documentedGraph()
    #expect(graph["LabelCore"] == [], "LabelCore imports \(graph["LabelCore"] ?? [])")
    let folder = Self.root.appendingPathComponent("Sources/LabelCore")
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
      let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
      for line in text.split(separator: "\n") {
        #expect(Self.importedModule(line) != "Dispatch", "\(name) imports Dispatch")
        for wire in ["enum Wire", "struct JSONOutput", "protocol JSONWritable", "JSONParseError"] {
          #expect(!line.contains(wire), "\(name): \(wire) belongs in LabelWire")
        }
      }
    }
  }

  /// The scheduler builds on the interfaces: it never sees the SQLite store (the
  /// composition root hands it one as `JobStoring`), nor a transport.
  @Test func theScheduler_seesTheStoreOnlyThroughItsInterface() throws {
    let graph = try Self.documentedGraph()
    let seen = graph["LabelScheduler"] ?? []
    for forbidden in ["LabelStore", "LabelSQLite", "CSQLite"] {
      #expect(!seen.contains(forbidden), "LabelScheduler imports \(forbidden)")
    }
    #expect(seen.contains("LabelInterfaces"))
  }

  /// A transport is a room of its own: it sees the transport interfaces (`LabelInterfaces`,
  /// a leaf), the drivers, the option reader its printer specs are read with
  /// (`LabelCommandLine`, a leaf over the model) and its own C wrapper, never the scheduler,
  /// the store, the channel, the server or another transport.
  @Test func aTransport_seesOnlyTheInterfaces_theDrivers_andItsOwnWrapper() throws {
    let graph = try Self.documentedGraph()
    #expect(
      graph["LabelInterfaces"] == ["LabelCore", "LabelConcurrency"],
      "the interfaces stay a leaf: \(graph["LabelInterfaces"] ?? [])")
    #expect(
      graph["LabelCommandLine"] == ["LabelCore"],
      "the option reader stays a leaf: \(graph["LabelCommandLine"] ?? [])")
    let common: Set<String> = [
      "LabelCore", "LabelInterfaces", "LabelConcurrency", "LabelLanguages", "LabelLog",
      "LabelPOSIX", "LabelCommandLine",
    ]
    let own: [String: Set<String>] = [
      "LabelTransportSim": [], "LabelTransportCUPS": ["LabelCUPS"],
      "LabelTransportUSB": ["LabelUSB"], "LabelTransportNet": ["LabelDNSSD"],
    ]
    let transports = graph.keys.filter { $0.hasPrefix("LabelTransport") }
    #expect(Set(transports) == Set(own.keys), "transports: \(transports.sorted())")
    for transport in transports {
      let extra = (graph[transport] ?? []).subtracting(common.union(own[transport] ?? []))
      #expect(extra.isEmpty, "\(transport) imports \(extra.sorted())")
    }
    // And only the composition root knows the transports (the daemon's command line goes
    // through it too).
    for (module, imports) in graph
    where !imports.filter({ own.keys.contains($0) }).isEmpty {
      #expect(module == "LabelDaemon", "\(module) imports a transport")
    }
  }

  /// Drivers are the seam: no code outside the driver layer (`LabelLanguages`) chooses
  /// by language, so a new language is a driver file, its rows and tests. A language
  /// named as a value (a default argument) is fine; compared or switched on is not.
  @Test func nothingOutsideTheDrivers_switchesOnTheLanguage() throws {
    let cases = PrinterLanguage.allCases.map { String(describing: $0) }
    let alternatives = cases.joined(separator: "|")
    let pattern = try Regex(
      "(case|[=!]=)\\s*(PrinterLanguage)?\\.(\(alternatives))\\b|\\.(\(alternatives))\\s*[=!]=")
    var found: [String] = []
    for module in try Self.modules() where module != "LabelLanguages" {
      let folder = Self.root.appendingPathComponent("Sources").appendingPathComponent(module)
      guard let walk = FileManager.default.enumerator(atPath: folder.path) else { continue }
      for case let path as String in walk where path.hasSuffix(".swift") {
        let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
          .enumerated() where line.contains(pattern)
        {
          found.append("\(module)/\(path):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
        }
      }
    }
    #expect(
      found.isEmpty, "language switches outside the drivers:\n\(found.joined(separator: "\n"))")
    // The pattern does catch one.
    #expect("    case .zpl: return 1".contains(pattern))
    #expect("if p.language == .brotherQL {".contains(pattern))
    #expect(!"init(language: PrinterLanguage = .zpl)".contains(pattern))
  }

  /// labeld stays light at rest, and labelctl starts fast (a shell loop starts one per
  /// label): nothing either links imports full Foundation (which loads CoreFoundation and
  /// ICU, some 6 MB resident); FoundationEssentials has what they need.
  @Test(arguments: ["labeld", "labelctl"])
  func nothingInTheExecutable_importsFullFoundation(executable: String) throws {
    let graph = try Self.documentedGraph()
    var reached: Set<String> = []
    var next = [executable]
    while let module = next.popLast() {
      guard reached.insert(module).inserted else { continue }
      next += graph[module] ?? []
    }
    var found: [String] = []
    for module in reached.sorted() {
      let folder = Self.root.appendingPathComponent("Sources").appendingPathComponent(module)
      guard let walk = FileManager.default.enumerator(atPath: folder.path) else { continue }
      for case let path as String in walk where path.hasSuffix(".swift") {
        let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
        for line in Self.linuxLines(text) where Self.importedModule(line) == "Foundation" {
          found.append("\(module)/\(path)")
        }
      }
    }
    #expect(reached.contains(executable == "labeld" ? "LabelServer" : "LabelKit"))
    #expect(found.isEmpty, "\(executable) links full Foundation through: \(found)")
  }

  /// The lines of `text` that Linux compiles, as far as imports go: the `#else` branch of
  /// `#if canImport(FoundationEssentials)` (full Foundation for Apple platforms, where the
  /// client kit also builds) is left out.
  static func linuxLines(_ text: String) -> [Substring] {
    var out: [Substring] = []
    var skipping = false
    var inEssentials = false
    for line in text.split(separator: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("#if canImport(FoundationEssentials)") {
        inEssentials = true
      } else if inEssentials && trimmed.hasPrefix("#else") {
        skipping = true
      } else if inEssentials && trimmed.hasPrefix("#endif") {
        skipping = false
        inEssentials = false
      } else if !skipping {
        out.append(line)
      }
    }
    return out
  }

  @Test func importLines_areRead() {
    #expect(Self.importedModule("import LabelCore") == "LabelCore")
    #expect(Self.importedModule("  @preconcurrency import Glibc") == "Glibc")
    #expect(Self.importedModule("@testable import LabelDaemon") == "LabelDaemon")
    #expect(Self.importedModule("import struct Foundation.Date") == "Foundation")
    #expect(Self.importedModule("// import LabelCore") == nil)
    #expect(Self.importedModule("let important = 1") == nil)
    let portable =
      "#if canImport(FoundationEssentials)\n  import FoundationEssentials\n#else\n  import Foundation\n#endif\nimport LabelCore"
    #expect(
      Self.linuxLines(portable).compactMap(Self.importedModule) == [
        "FoundationEssentials", "LabelCore",
      ])
  }
}
