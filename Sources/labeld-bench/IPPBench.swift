import Dispatch
import Foundation
import LabelCUPS
import LabelLanguages
import LabelPOSIX
import LabelRender
import LabelTestKit
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// The IPP front (issue #37) against LPrint 1.1's, in the same run, on the same documents,
// with the same client: a 4 x 6 in label (203 dpi) as PNG, as PWG raster and (labeld
// only: LPrint prints no PDF) as a one-page PDF, each sent by Print-Job and followed by
// Get-Job-Attributes until the job is completed (labeld: the simulated printer took it;
// LPrint: its file device wrote it); then Get-Printer-Attributes from 10 clients at once.
// The client is as thin as it can be (a request encoded once, the answer's status read
// from its bytes), one connection per request, so what is measured is the servers, which
// share the machine's two cores with it.

/// One IPP server under test: where it is and the printer's path.
private struct IPPTarget {
  var name: String
  var port: Int
  var printer: String
  var uri: String { "ipp://127.0.0.1:\(port)/ipp/print/\(printer)" }
}

/// A request's bytes for `operation` on `target`, with `more` operation attributes.
private func request(
  _ operation: Int, _ target: IPPTarget, _ more: [IPPAttribute] = [], id: Int32 = 1
) throws -> [UInt8] {
  try IPPCodec.encode(
    IPPMessage(
      major: 2, minor: 0, code: operation, requestID: id,
      groups: [
        IPPAttributeGroup(
          .operation,
          [
            IPPAttribute("attributes-charset", .charset("utf-8")),
            IPPAttribute("attributes-natural-language", .naturalLanguage("en")),
            IPPAttribute("printer-uri", .uri(target.uri)),
            IPPAttribute("requesting-user-name", .name("bench")),
          ] + more)
      ]))
}

/// Posts `body` and returns the answer's IPP bytes (HTTP 200 only), read to the end its
/// framing gives (Content-Length, or the last chunk): LPrint keeps a connection open after
/// its answer, whatever the request's Connection header says.
private func post(_ target: IPPTarget, _ body: [UInt8]) throws -> [UInt8] {
  let head =
    "POST /ipp/print/\(target.printer) HTTP/1.1\r\nHost: 127.0.0.1:\(target.port)\r\n"
    + "Content-Type: application/ipp\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
  let c = try TCPConnection.connect(host: "127.0.0.1", port: target.port, timeoutMS: 10_000)
  try c.write(Array(head.utf8) + body, timeoutMS: 30_000, cancelled: { false })
  var got: [UInt8] = []
  var headerEnd: Range<Int>?
  var length: Int?
  var chunked = false
  while true {
    if let end = headerEnd {
      if let length, got.count - end.upperBound >= length { break }
      if chunked, got.suffix(5) == [0x30, 13, 10, 13, 10] { break }
    }
    guard let more = try? c.read(maxLength: 65536, timeoutMS: 30_000), !more.isEmpty else { break }
    got += more
    if headerEnd == nil, let end = got.firstRange(of: [13, 10, 13, 10]) {
      headerEnd = end
      for line in String(decoding: got[..<end.lowerBound], as: UTF8.self).lowercased()
        .split(separator: "\r\n")
      {
        if line.hasPrefix("content-length:") {
          length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
        }
        if line.hasPrefix("transfer-encoding:") && line.contains("chunked") { chunked = true }
      }
    }
  }
  guard got.starts(with: Array("HTTP/1.1 200".utf8)), let end = headerEnd else {
    throw BenchError.failed(
      "\(target.name) answered \(String(decoding: got.prefix(40), as: UTF8.self))")
  }
  var ipp = Array(got[end.upperBound...])
  if chunked {
    // De-chunked: size lines and their data.
    var out: [UInt8] = []
    var at = 0
    while let line = ipp[at...].firstRange(of: [13, 10]),
      let size = Int(String(decoding: ipp[at..<line.lowerBound], as: UTF8.self), radix: 16),
      size > 0, line.upperBound + size <= ipp.count
    {
      out += ipp[line.upperBound..<line.upperBound + size]
      at = line.upperBound + size + 2
      if at > ipp.count { break }
    }
    ipp = out
  }
  guard ipp.count >= 8 else { throw BenchError.failed("\(target.name): no IPP answer") }
  return ipp
}

/// The IPP status of an answer.
private func status(_ ipp: [UInt8]) -> Int { Int(ipp[2]) << 8 | Int(ipp[3]) }

/// Print-Job of `document`, then Get-Job-Attributes every 0.1 ms until the job is
/// completed: milliseconds. Throws when it ends otherwise or takes more than 30 s.
private func printToCompleted(_ target: IPPTarget, _ format: String, _ document: [UInt8])
  throws -> Double
{
  let t0 = now()
  let answer = try post(
    target,
    try request(
      0x0002, target,
      [
        IPPAttribute("job-name", .name("bench-\(t0)")),
        IPPAttribute("document-format", .mimeMediaType(format)),
      ]) + document)
  guard status(answer) < 0x0100, let message = try? IPPCodec.decode(answer[...]),
    let id = message.group(.job)?["job-id"]?.integer
  else {
    throw BenchError.failed("\(target.name) refused the \(format) job: status \(status(answer))")
  }
  let poll = try request(
    0x0009, target,
    [
      IPPAttribute("job-id", .integer(Int32(id))),
      IPPAttribute("requested-attributes", .keyword("job-state")),
    ])
  while now() - t0 < 30_000_000_000 {
    let state = try IPPCodec.decode(try post(target, poll)[...]).group(.job)?["job-state"]?.integer
    switch state {
    case 9: return Double(now() - t0) / 1e6
    case 7, 8: throw BenchError.failed("\(target.name)'s job \(id) ended in state \(state ?? 0)")
    default: usleep(100)
    }
  }
  throw BenchError.failed("\(target.name)'s job \(id) did not complete within 30 s")
}

/// `count` Print-Jobs back to back, then waits (at most 30 s) until every one has
/// completed: milliseconds per label, or how many completed.
private func burst(_ target: IPPTarget, _ format: String, _ document: [UInt8], count: Int)
  throws -> Result<Double, BenchError>
{
  let t0 = now()
  var ids: [Int] = []
  for n in 0..<count {
    let answer: [UInt8]
    do {
      answer = try post(
        target,
        try request(
          0x0002, target,
          [
            IPPAttribute("job-name", .name("burst-\(t0)-\(n)")),
            IPPAttribute("document-format", .mimeMediaType(format)),
          ]) + document)
    } catch {
      return .failure(
        BenchError.failed("\(n) of \(count) Print-Jobs answered, then no answer (\(error))"))
    }
    guard let id = (try? IPPCodec.decode(answer[...]))?.group(.job)?["job-id"]?.integer else {
      throw BenchError.failed("\(target.name) refused burst job \(n): status \(status(answer))")
    }
    ids.append(id)
  }
  var done = Set<Int>()
  while now() - t0 < 30_000_000_000 {
    for id in ids where !done.contains(id) {
      let answer = try post(
        target,
        try request(
          0x0009, target,
          [
            IPPAttribute("job-id", .integer(Int32(id))),
            IPPAttribute("requested-attributes", .keyword("job-state")),
          ]))
      if (try? IPPCodec.decode(answer[...]))?.group(.job)?["job-state"]?.integer == 9 {
        done.insert(id)
      }
    }
    if done.count == ids.count { return .success(Double(now() - t0) / 1e6 / Double(count)) }
    usleep(2000)
  }
  return .failure(BenchError.failed("\(done.count) of \(count) completed within 30 s"))
}

/// Get-Printer-Attributes of `what` from `clients` threads for `seconds`: answers a second.
private func attributesPerSecond(
  _ target: IPPTarget, _ what: [String], clients: Int, seconds: Double
) throws -> Double {
  let body = try request(
    0x000B, target, [IPPAttribute("requested-attributes", what.map { .keyword($0) })])
  let answered = Atomic<Int>(0)
  let failed = Mutex<String?>(nil)
  let group = DispatchGroup()
  let t0 = now()
  let end = t0 + UInt64(seconds * 1e9)
  for _ in 0..<clients {
    group.enter()
    Thread {
      defer { group.leave() }
      while now() < end {
        do {
          let answer = try post(target, body)
          guard status(answer) == 0 else {
            throw BenchError.failed("\(target.name): status \(status(answer))")
          }
          answered.add(1, ordering: .relaxed)
        } catch {
          failed.withLock { $0 = $0 ?? "\(error)" }
          return
        }
      }
    }.start()
  }
  guard group.wait(timeout: .now() + seconds + 60) == .success else {
    throw BenchError.failed("\(target.name): a client did not finish")
  }
  if let why = failed.withLock({ $0 }) { throw BenchError.failed(why) }
  return Double(answered.load(ordering: .relaxed)) / (Double(now() - t0) / 1e9)
}

/// LPrint 1.1 serving one ZPL 4-inch printer on `port` (scripts/lprint-ipp-server.sh);
/// nil when it cannot run here (it needs root and Debian's lprint).
private func startLPrint(_ home: URL, port: Int) -> Process? {
  guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/lprint"),
    FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
  else { return nil }
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/bin/sh")
  p.arguments = [
    URL(fileURLWithPath: "scripts/lprint-ipp-server.sh").path, String(port),
    "zpl_4inch-203dpi-dt", home.appendingPathComponent("lprint").path,
  ]
  let out = Pipe()
  p.standardOutput = out
  p.standardError = FileHandle.nullDevice
  do { try p.run() } catch { return nil }
  // "ready" once its printer is added (bounded: the script's own timeout ends it).
  let ready = out.fileHandleForReading.availableData
  guard String(decoding: ready, as: UTF8.self).contains("ready") else {
    p.terminate()
    return nil
  }
  return p
}

/// Ends LPrint: its process group (`timeout`, `unshare` and LPrint share it) is asked to
/// stop, then killed after 3 s (a hung LPrint does not stop when asked, and unshare
/// ignores SIGTERM).
private func stopLPrint(_ p: Process) {
  let group = -p.processIdentifier
  kill(group, SIGTERM)
  let deadline = now() + 3_000_000_000
  while p.isRunning && now() < deadline { usleep(20_000) }
  if p.isRunning { kill(group, SIGKILL) }
  p.waitUntilExit()
}

@MainActor func ippSection() throws {
  let home = config.work.appendingPathComponent("ipp")
  try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
  let labeldPort = freePort()
  let (daemon, _) = try startDaemon(
    home,
    [
      "--no-usb", "--no-cups", "--simulate", "z46=zpl,dpi=203,width=101.6,length=152.4,keep=10",
      "--listen-ipp", "127.0.0.1:\(labeldPort)", "--ipp-print", "anyone",
    ])
  defer { stopDaemon(daemon) }
  let labeld = IPPTarget(name: "labeld", port: labeldPort, printer: "sim:z46")
  let lprintPort = freePort()
  let lprintProcess = startLPrint(home, port: lprintPort)
  defer { if let lprintProcess { stopLPrint(lprintProcess) } }
  let lprint = lprintProcess.map { _ in
    IPPTarget(name: "LPrint", port: lprintPort, printer: "peer")
  }
  if lprint == nil {
    emit("LPrint not run: it needs root, /usr/bin/lprint (make deps) and unshare.")
  }

  // The documents: one 4 x 6 in label at 203 dpi (boxes on white), each way.
  let pngPath = home.appendingPathComponent("label.png").path
  try greyPNG(width: 812, height: 1218, dpi: 203, to: pngPath)
  let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pngPath)))
  let bitmap = try PNGCodec.decodeBitmap(png)
  let pwg = try IPPSamples.raster([bitmap], dpi: 203, format: .pwg)
  let pdf = try PDFWriter.document(pages: [bitmap], dpi: 203)

  var rows = ""
  // Rounds of 10 labels a server, taking turns, so that a slower minute of this shared
  // machine weighs on both alike; the median of each server's 50.
  let rounds = 5
  let perRound = 10
  for (label, format, document, both) in [
    ("4 x 6 in PNG", "image/png", png, true),
    ("4 x 6 in PWG raster", "image/pwg-raster", pwg, true),
    ("4 x 6 in one-page PDF", "application/pdf", pdf, false),
  ] {
    let targets = [labeld] + (both ? [lprint].compactMap { $0 } : [])
    progress("\(label): \(rounds * perRound) labels one at a time, each of \(targets.map(\.name))")
    var times: [String: [Double]] = [:]
    var failed: [String: String] = [:]
    for target in targets {
      do { _ = try printToCompleted(target, format, document) } catch {  // warm
        failed[target.name] = "\(error)"
      }
    }
    for _ in 0..<rounds {
      for target in targets where failed[target.name] == nil {
        do {
          for _ in 0..<perRound {
            times[target.name, default: []].append(try printToCompleted(target, format, document))
          }
        } catch {
          failed[target.name] = "\(error)"
        }
      }
    }
    for target in targets {
      if let why = failed[target.name] {
        rows += "| \(label) by IPP: \(target.name) | failed: \(why) |\n"
      } else if let all = times[target.name]?.sorted(), !all.isEmpty {
        rows += String(
          format: "| %@ by IPP, Print-Job to completed, median of %d (ms): %@ | %.1f |\n", label,
          all.count, target.name, all[all.count / 2])
      }
    }
  }
  let state = [
    "printer-state", "printer-state-reasons", "printer-state-message", "printer-is-accepting-jobs",
  ]
  for (what, attributes) in [("all", ["all"]), ("the printer's state", state)] {
    for target in [labeld] + [lprint].compactMap({ $0 }) {
      progress("Get-Printer-Attributes (\(what)) from 10 clients: \(target.name)")
      do {
        rows += String(
          format: "| Get-Printer-Attributes (%@), 10 clients (calls/s): %@ | %.0f |\n", what,
          target.name, try attributesPerSecond(target, attributes, clients: 10, seconds: 5))
      } catch {
        rows += "| Get-Printer-Attributes (\(what)): \(target.name) | failed: \(error) |\n"
      }
    }
  }
  // Last: LPrint 1.1 may not survive it (a burst of Print-Jobs left jobs that never
  // finished, and answers that never came, when this was written).
  for target in [labeld] + [lprint].compactMap({ $0 }) {
    progress("20 PNG Print-Jobs back to back through \(target.name)")
    do {
      switch try burst(target, "image/png", png, count: 20) {
      case .success(let ms):
        rows += String(
          format: "| 20 PNG Print-Jobs back to back, all completed (ms a label): %@ | %.1f |\n",
          target.name, ms)
      case .failure(let why):
        let exited =
          target.name == "LPrint" && lprintProcess?.isRunning == false ? "; LPrint had exited" : ""
        rows += "| 20 PNG Print-Jobs back to back: \(target.name) | \(why)\(exited) |\n"
      }
    } catch {
      rows += "| 20 PNG Print-Jobs back to back: \(target.name) | failed: \(error) |\n"
    }
  }
  rows += String(
    format: "| labeld's peak resident memory over the section (MB) | %.1f |\n",
    Double(peakRSSKB(daemon.processIdentifier)) / 1024)
  emitTable(rows)
}
