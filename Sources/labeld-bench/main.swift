import Foundation
import LabelCommandLine

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// labeld-bench (`make bench`): measures a labeld binary section by section and prints a
// Markdown report (docs/benchmarks.md). Each section runs in a process of its own with a
// timeout; its rows appear as it finishes them, and a section that fails or hangs is
// reported and the next one runs. Not run in CI.

/// The command line, read once; a usage error exits 64 with the usage lines.
let arguments: ParsedArguments = {
  let words = Array(CommandLine.arguments.dropFirst())
  do throws(UsageError) {
    let parsed = try ParsedArguments.read(words, specs: BenchOptions.specs)
    if let extra = parsed.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
    return parsed
  } catch {
    FileHandle.standardError.write(
      Data("labeld-bench: \(error.message)\nTry 'labeld-bench --help'.\n".utf8))
    exit(64)
  }
}()

if arguments.flag("--help")
  || CommandLineReader.asksForHelp(Array(CommandLine.arguments.dropFirst()))
{
  print(BenchOptions.help)
  exit(0)
}

let config: BenchConfig = {
  do throws(UsageError) { return try BenchOptions.config(arguments) } catch {
    FileHandle.standardError.write(
      Data("labeld-bench: \(error.message)\nTry 'labeld-bench --help'.\n".utf8))
    exit(64)
  }
}()

let sections: [Section] = [
  Section(name: "latency", title: "Request latency", timeout: 600) { try latencySection() },
  Section(name: "idle", title: "Idle memory", timeout: 120) { try idleSection() },
  Section(name: "fanout", title: "Alert fan-out", timeout: 180) { try fanoutSection() },
  Section(name: "web", title: "Web endpoint (WebSocket)", timeout: 400) { try webSection() },
  Section(name: "kit", title: "Client kit (LabelKit)", timeout: 300) { try kitSection() },
  Section(name: "kitweb", title: "LabelKit over wss:// against the socket", timeout: 300) {
    try kitWebSection()
  },
  Section(name: "hostile", title: "Memory under hostile peers", timeout: 300) {
    try hostilePeersSection()
  },
  Section(name: "store", title: "Store size", timeout: 300) { emitTable(try storeSize()) },
  Section(name: "history", title: "Start-up with history", timeout: 300) {
    emitTable(try startupWithHistory())
  },
  Section(name: "ready", title: "Cold start", timeout: 180) { emitTable(coldStartToReady()) },
  Section(name: "large", title: "Large store", timeout: 900) { try largeSection() },
  Section(name: "zpl", title: "ZPL encoding", timeout: 120) { emitTable(zplEncoding()) },
  Section(name: "json", title: "JSON per product", timeout: 120) { emitTable(jsonCosts()) },
  Section(name: "ql", title: "Brother QL raster encoding", timeout: 180) {
    emitTable(qlEncoding())
  },
  Section(name: "tspl", title: "TSPL, EPL2 and DYMO LabelWriter encoding", timeout: 120) {
    emitTable(tsplEncoding() + epl2Encoding() + dymoLWEncoding() + dymoLW5Encoding())
  },
  Section(name: "ptouch", title: "Brother P-touch raster encoding", timeout: 180) {
    emitTable(ptouchEncoding())
  },
  Section(name: "lm", title: "DYMO LabelManager encoding, against raster2dymolm", timeout: 120) {
    emitTable(dymoLMEncoding())
  },
  Section(name: "peers", title: "The same labels through LPrint", timeout: 400) {
    try peerSection()
  },
  Section(name: "ipp", title: "IPP front, against LPrint 1.1", timeout: 600) { try ippSection() },
  Section(name: "net", title: "Network printer (emulated Zebra on 127.0.0.1)", timeout: 300) {
    try networkSection()
  },
  Section(name: "render", title: "Rendering", timeout: 180) { emitTable(rendering()) },
  Section(name: "usb", title: "USB (emulated QL-820NWB)", timeout: 300) {
    emitTable(usbThroughput(labeld: config.labeld))
  },
  Section(name: "cups", title: "CUPS transport", timeout: 300) { try cupsBenchmarks() },
]

/// Not a section of the report: 30,000 `hello` calls through `BlockingConnection`, one
/// after another, for a profiler (`perf record -- labeld-bench --section kitloop`).
let kitLoop = Section(name: "kitloop", title: "Kit calls for a profiler", timeout: 120) {
  let home = config.work.appendingPathComponent("kitloop")
  let (daemon, socket) = try startDaemon(home, benchPrinters)
  defer { stopDaemon(daemon) }
  try kitLoopCalls(socket)
}

/// Not one of the report's sections: `--soak` runs it alone.
let soak = Section(name: "soak", title: "Soak", timeout: config.soak.timeout) {
  try soakSection()
}

if arguments.flag("--list") {
  for s in sections { print("\(s.name)\t\(Int(s.timeout)) s\t\(s.title)") }
  exit(0)
}
if let name = arguments.value("--section") {
  // One section, in the child the runner started.
  guard let section = (sections + [soak, kitLoop]).first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("labeld-bench: no section \(name)\n".utf8))
    exit(64)
  }
  do {
    try MainActor.assumeIsolated { try section.run() }
    exit(0)
  } catch {
    emit("| \(name) | failed: \(error) |")
    exit(1)
  }
}
var selected = config.soakMode ? [soak] : sections
if let only = arguments.value("--only") ?? (arguments.flag("--cups-only") ? "cups" : nil) {
  let names = only.split(separator: ",").map(String.init)
  selected = sections.filter { names.contains($0.name) }
  guard selected.count == names.count else {
    FileHandle.standardError.write(
      Data("labeld-bench: unknown section in \(only); --list shows them\n".utf8))
    exit(64)
  }
}
try? FileManager.default.createDirectory(at: config.work, withIntermediateDirectories: true)
exit(runSections(selected) == 0 ? 0 : 1)
