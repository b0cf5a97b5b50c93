import LabelCore
import LabelLanguages
import LabelPOSIX
import LabelRender

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The process that draws a PDF's pages (`labeld --render-pdf ...`): the PDF on standard
/// input, the labels on standard output, each as its width and height (4 bytes each, big
/// endian) and its rows of dots; a failure as `formatError: ...` or `unprintable: ...` on
/// standard error with exit status 65. It limits itself first (address space, CPU time),
/// so a PDF that would take the machine takes only this process.
package enum DocumentWorker {
  package static let flag = "--render-pdf"

  /// Runs the worker with `arguments` (after the flag); returns the exit status.
  package static func main(_ arguments: [String]) -> Int32 {
    var values: [String: String] = [:]
    var i = 0
    while i + 1 < arguments.count {
      values[arguments[i]] = arguments[i + 1]
      i += 2
    }
    func int(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
    guard let width = int("--width"), let dpi = int("--dpi"), let maxLength = int("--max-length"),
      let memory = int("--memory"), let cpu = int("--cpu"), width > 0, dpi > 0
    else {
      fail("usage: labeld \(flag) --width N --length N --max-length N --dpi N ...")
      return 64
    }
    // Fails closed: a renderer that cannot bound itself (a sandbox that forbids it) draws
    // nothing, and the job says why.
    let bounds: [(__rlimit_resource, rlim_t, rlim_t)] = [
      (RLIMIT_AS, rlim_t(clamping: max(0, memory)), rlim_t(clamping: max(0, memory))),
      (RLIMIT_CPU, rlim_t(clamping: max(1, cpu)), rlim_t(clamping: max(1, cpu) + 1)),
      (RLIMIT_FSIZE, 0, 0),
    ]
    for (resource, soft, hard) in bounds {
      var limit = rlimit(rlim_cur: soft, rlim_max: hard)
      guard setrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0 else {
        fail("unprintable: labeld's PDF renderer cannot limit itself (setrlimit: errno \(errno))")
        return 65
      }
    }
    var settings = DocumentSettings()
    settings.scaling = values["--scaling"].flatMap(PrintScaling.init(rawValue:)) ?? .auto
    settings.orientation = int("--orientation").flatMap(PageOrientation.init(rawValue:))
    settings.halftone = values["--halftone"].map { $0 == "ordered" ? .ordered : .threshold }
    settings.pageRanges = values["--pages"].flatMap(Self.ranges)
    var limits = DocumentLimits()
    limits.maxPages = int("--max-pages") ?? limits.maxPages
    limits.maxDots = int("--max-dots") ?? limits.maxDots
    let length = int("--length") ?? 0
    let area = LabelArea(
      width: width, length: length > 0 ? length : nil, maxLength: maxLength, dpi: dpi)
    let input: [UInt8]
    do {
      input = try PlainFile.read(descriptor: 0, name: "standard input", limit: Int(Int32.max))
    } catch {
      fail("formatError: cannot read the PDF: \(error)")
      return 65
    }
    do throws(DocumentFailure) {
      let labels = try DocumentConverter.pdfLabels(input, settings, area, limits)
      var out: [UInt8] = []
      for label in labels {
        for value in [label.width, label.height] {
          out += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        }
        out += label.bytes
      }
      var at = 0
      while at < out.count {
        let n = out[at...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if n <= 0 { return 74 }
        at += n
      }
      return 0
    } catch {
      fail("\(error.fault.rawValue): \(error.message)")
      return 65
    }
  }

  /// "1-3,5" as ranges; nil for anything else.
  static func ranges(_ text: String) -> [ClosedRange<Int>]? {
    var out: [ClosedRange<Int>] = []
    for part in text.split(separator: ",") {
      let bounds = part.split(separator: "-").compactMap { Int($0) }
      guard (1...2).contains(bounds.count), let low = bounds.first, let high = bounds.last,
        low >= 1, low <= high
      else { return nil }
      out.append(low...high)
    }
    return out.isEmpty ? nil : out
  }

  private static func fail(_ message: String) {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  }
}

/// The daemon's side: runs the worker on a PDF and reads its labels back, each checked
/// against the area asked for; a worker that fails, crashes, runs out of its limits or time
/// is a document that cannot print, with the reason.
enum PDFInWorker {
  static func labels(
    _ document: DocumentInput, area: LabelArea, worker: String, limits: DocumentLimits
  ) throws(DocumentFailure) -> [Bitmap] {
    let s = document.settings
    var arguments = [
      DocumentWorker.flag, "--width", String(area.width), "--length", String(area.length ?? 0),
      "--max-length", String(area.maxLength), "--dpi", String(area.dpi), "--scaling",
      s.scaling.rawValue, "--memory", String(limits.pdfMemoryBytes), "--cpu",
      String(limits.pdfCPUSeconds), "--max-pages", String(limits.maxPages), "--max-dots",
      String(limits.maxDots),
    ]
    if let o = s.orientation { arguments += ["--orientation", String(o.rawValue)] }
    if let h = s.halftone { arguments += ["--halftone", h == .ordered ? "ordered" : "threshold"] }
    if let ranges = s.pageRanges {
      arguments += [
        "--pages", ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ","),
      ]
    }
    let outcome: ChildProcess.Outcome
    do {
      outcome = try ChildProcess.run(
        worker, arguments, input: document.bytes,
        outputLimit: limits.maxDots / 8 + 8 * limits.maxPages,
        seconds: limits.pdfSeconds)
    } catch {
      throw DocumentFailure(.unprintable, "labeld cannot start its PDF renderer: \(error)")
    }
    if outcome.timedOut {
      throw DocumentFailure(
        .unprintable, "the PDF took more than \(Int(limits.pdfSeconds)) s to draw; it was stopped")
    }
    if outcome.readFailed {
      throw DocumentFailure(.unprintable, "labeld could not read its PDF renderer's answer")
    }
    if outcome.outputTooLarge {
      throw DocumentFailure(
        .unprintable, "the PDF's labels come to more than \(limits.maxDots) dots")
    }
    guard outcome.status == 0 else {
      let said = outcome.error.split(separator: "\n").first.map(String.init) ?? ""
      if outcome.status == 65, let colon = said.firstIndex(of: ":"),
        let fault = DocumentFault(rawValue: String(said[..<colon]))
      {
        throw DocumentFailure(fault, String(said[said.index(after: colon)...].drop { $0 == " " }))
      }
      let why =
        outcome.signal == 9 || outcome.signal == 24
        ? "it ran out of its CPU time"
        : outcome.signal.map { "it died of signal \($0)" }
          ?? "it exited with status \(outcome.status ?? -1)"
      throw DocumentFailure(
        .unprintable, "the PDF could not be drawn: \(why)\(said.isEmpty ? "" : " (\(said))")")
    }
    var labels: [Bitmap] = []
    var at = 0
    let out = outcome.output
    func be32(_ i: Int) -> Int { out[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
    while at < out.count {
      guard at + 8 <= out.count else { break }
      let width = be32(at)
      let height = be32(at + 4)
      let size = (width + 7) / 8 * height
      guard width == area.width, height > 0, height <= max(area.length ?? 0, area.maxLength),
        at + 8 + size <= out.count
      else {
        throw DocumentFailure(.unprintable, "the PDF renderer answered what labeld did not ask for")
      }
      labels.append(Bitmap(width: width, height: height, bytes: Array(out[at + 8..<at + 8 + size])))
      at += 8 + size
    }
    guard !labels.isEmpty, at == out.count else {
      throw DocumentFailure(.unprintable, "the PDF renderer answered no label")
    }
    return labels
  }
}
