import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// labeld-bench (`make bench`): measures a labeld binary section by section and prints a
// Markdown report (docs/benchmarks.md). Each section runs in a process of its own with a
// timeout; its rows appear as it finishes them, and a section that fails or hangs is
// reported and the next one runs. Not run in CI.

let usage = """
  usage: labeld-bench [--labeld PATH] [--requests N] [--only NAME[,NAME…]] [--list]
         labeld-bench --soak [--labeld PATH] [--minutes M] [--interval S] [--warmup ROWS]
                      [--window ROWS] [--slow | --slow-speed LABELS_PER_MIN] [--clients N]
                      [--rate CALLS_PER_S] [--weights NAME=N,…] [--bytes-per-queued-job B]
                      [--journal EVENTS]

  Runs every benchmark section (or the named ones) against the labeld binary at PATH
  (default .build/release/labeld), each in its own process with a timeout, and prints a
  Markdown report on stdout as rows are measured; progress goes to stderr. Exits 1 when
  a section failed or timed out (the report says which), 64 on a usage error.

  --soak runs the mixed load of issue #13 (16 clients, default 30 minutes, a row every
  30 s) against a fresh labeld with two simulated printers, instant or (--slow) at
  600 labels/min each, and ends with a verdict: PASS, or FAIL (exit 1) naming what drifted
  after the warm-up rows (default 2): requests/s judged on the medians of windows of
  --window rows (default 10: five minutes), within 10% of the run's; RSS within 10% of the
  warm-up's plus --bytes-per-queued-job (default 2048) for each job queued since (printers
  slower than the submits leave a legitimate backlog; memory may follow it, no further);
  any failed call, descriptor growth, or labeld dying fails it too. Its deadline is the minutes plus 5. --weights sets the mix (names:
  submitNative, submitTemplate, save, renderPNG, renderNative, printersList, jobsList,
  subscribeReplay); --rate paces the clients instead of a closed loop. Before the first
  row, --journal EVENTS alert events (default 10000, labeld's --alert-retention) are
  raised and cleared so the alert journal starts as full as weeks of faults leave it
  (0: start empty).
  """

/// The command line, read once.
let config: BenchConfig = {
  var c = BenchConfig()
  var args = CommandLine.arguments.dropFirst()
  while let a = args.popFirst() {
    switch a {
    case "--labeld": c.labeld = args.popFirst() ?? c.labeld
    case "--requests": c.requests = Int(args.popFirst() ?? "") ?? c.requests
    case "--work": c.work = URL(fileURLWithPath: args.popFirst() ?? c.work.path)
    case "--section", "--only": _ = args.popFirst()
    case "--list", "--cups-only": break
    default:
      if parseSoakFlag(a, &args, &c) { continue }
      FileHandle.standardError.write(Data((usage + "\n").utf8))
      exit(64)
    }
  }
  return c
}()

/// The value of `flag` on the command line, if given.
func argument(_ flag: String) -> String? {
  let args = Array(CommandLine.arguments)
  guard let i = args.firstIndex(of: flag), i + 1 < args.count else { return nil }
  return args[i + 1]
}

let sections: [Section] = [
  Section(name: "latency", title: "Request latency", timeout: 600) { try latencySection() },
  Section(name: "idle", title: "Idle memory", timeout: 120) { try idleSection() },
  Section(name: "fanout", title: "Alert fan-out", timeout: 180) { try fanoutSection() },
  Section(name: "kit", title: "Client kit (LabelKit)", timeout: 300) { try kitSection() },
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
  Section(name: "peers", title: "The same labels through LPrint", timeout: 400) {
    try peerSection()
  },
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

if CommandLine.arguments.contains("--list") {
  for s in sections { print("\(s.name)\t\(Int(s.timeout)) s\t\(s.title)") }
  exit(0)
}
if let name = argument("--section") {
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
if let only = argument("--only") ?? (CommandLine.arguments.contains("--cups-only") ? "cups" : nil) {
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
