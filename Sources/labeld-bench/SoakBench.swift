import Foundation
import LabelCore
import LabelKit
import LabelLoad
import LabelSQLite

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// `make soak` (labeld-bench --soak): the mixed load of issue #13 against a fresh labeld for
// a number of minutes, one row every interval, and a verdict on whether throughput and
// memory stayed flat. See docs/benchmarks.md, "Soak".

/// The soak's command-line settings.
struct SoakOptions: Sendable {
  var minutes = 30.0
  /// Seconds per row.
  var interval = 30.0
  /// Rows before the verdict's reference (the median of the rest) is taken.
  var warmup = 2
  /// Rows per window: the verdict compares the windows' medians (a 30-s row of a closed
  /// loop swings with the faults and the backlog they leave; drift is a trend over minutes).
  var window = 10
  /// Printers slower than the submit rate: labels per minute each (nil: instant).
  var slowSpeed: Double?
  /// Bytes of RSS a queued job may account for in the verdict.
  var bytesPerQueuedJob = 2048.0
  /// The load; a submit the waiting queue's bound refuses (1008, issue #37) is what labeld
  /// should answer when the printers fall behind: counted, not a failure.
  var mix: LoadMix = {
    var mix = LoadMix()
    mix.expectedErrorCodes = [1008]
    return mix
  }()
  /// Allowed spread around the median, as a fraction.
  var tolerance = 0.10
  /// Alert events raised before the first row: labeld's retention (10,000), so the journal
  /// is at the size it keeps for good (a fresh one fills at 4 events/s, for 40 minutes).
  var journal = 10_000

  /// The section's deadline: the run, the warm-up of labeld, and the wind-down (clients
  /// finishing their calls, labeld settling, its graceful stop).
  var timeout: Double { minutes * 60 + 300 }

  static let defaultSlowSpeed = 600.0
}

/// One row of the soak.
private struct SoakRow {
  var elapsed: Double
  var load: LoadInterval
  var metrics: ProcessMetrics
  var history: Int?
  var backlog: Int?
  var labeldCPU: Double
  var otherCPU: Double
}

/// Jobs labeld keeps (its history: every row of its jobs table, ended or not) and those not
/// ended yet (pending, held, processing), read from its database: a read-only connection
/// for one query, so nothing stays open. Nil when it cannot be read.
private func jobCounts(_ db: String) -> (history: Int, backlog: Int)? {
  do {
    let d = try Database(path: db, readOnly: true)
    defer { try? d.close() }
    d.setBusyTimeout(milliseconds: 2000)
    let rows = try d.statement("SELECT state, count(*) FROM jobs GROUP BY state").all {
      ($0.string(0) ?? "", $0.int(1))
    }
    let history = rows.reduce(0) { $0 + $1.1 }
    let backlog = rows.filter { ["pending", "held", "processing"].contains($0.0) }.reduce(0) {
      $0 + $1.1
    }
    return (history, backlog)
  } catch {
    return nil
  }
}

private func median(_ values: [Double]) -> Double {
  let s = values.sorted()
  guard !s.isEmpty else { return 0 }
  return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The medians of consecutive windows of `size` values, each at the time of its last value
/// (a last window of fewer than half `size` values is left out).
private func windows(_ values: [(time: Double, value: Double)], size: Int) -> [(
  time: Double, value: Double
)] {
  stride(from: 0, to: values.count, by: size).compactMap { start in
    let part = values[start..<min(start + size, values.count)]
    guard part.count * 2 >= size, let last = part.last else { return nil }
    return (last.time, median(part.map(\.value)))
  }
}

/// Nil when every value lies within `tolerance` of their median, else one line saying how
/// many did not and how far they went.
private func drift(
  _ name: String, _ values: [(time: Double, value: Double)], tolerance: Double, format: String,
  unit: String = "rows"
) -> String? {
  let reference = median(values.map(\.value))
  let outside = values.filter { abs($0.value - reference) > tolerance * reference }
  guard !outside.isEmpty, let low = values.min(by: { $0.value < $1.value }),
    let high = values.max(by: { $0.value < $1.value })
  else { return nil }
  func show(_ v: (time: Double, value: Double)) -> String {
    String(format: format, v.value) + " at " + clock(v.time)
      + String(format: " (%+.0f%%)", (v.value / reference - 1) * 100)
  }
  return "\(name) drifted: \(outside.count) of \(values.count) \(unit) beyond ±"
    + String(format: "%.0f%% of the median ", tolerance * 100) + String(format: format, reference)
    + "; lowest \(show(low)), highest \(show(high))"
}

private func clock(_ seconds: Double) -> String {
  let s = Int(seconds.rounded())
  return String(format: "%d:%02d", s / 60, s % 60)
}

@MainActor func soakSection() throws {
  let o = config.soak
  var printers = benchPrinters
  if let speed = o.slowSpeed {
    let s = String(format: "%g", speed)
    printers = ["--simulate", "zebra=zpl,speed=\(s)", "--simulate", "ql=brother-ql,speed=\(s)"]
  }
  let home = config.work.appendingPathComponent("soak")
  let (daemon, socket) = try startDaemon(home, printers + ["--no-config"])
  defer { stopDaemon(daemon) }
  let pid = daemon.processIdentifier
  let db = home.appendingPathComponent("state/labeld.db").path
  try LoadGenerator.prepare(socketPath: socket)
  if o.journal > 0 {
    try LoadGenerator.fillJournal(
      socketPath: socket, printer: o.mix.faultPrinter, events: o.journal
    ) { done in progress("journal: \(done) of \(o.journal) alert events") }
  }
  let idleBefore = ProcessMetrics.steadyDescriptors(pid) ?? -1
  let targetsBefore = ProcessMetrics.descriptorTargets(pid)

  emit(
    "- labeld: `\(config.labeld)` \(printers.joined(separator: " ")) (fresh state dir, CUPS and USB as by default)"
  )
  emit(
    "- load: \(o.mix.clients) clients, "
      + (o.mix.rate.map { String(format: "%.0f calls/s offered", $0) } ?? "closed loop (flat out)")
      + "; \(o.mix.summary); \(o.mix.faultPrinter) toggles mediaEmpty every "
      + String(format: "%g s", o.mix.faultInterval ?? 0))
  emit(
    "- before the rows: \(o.journal) alert events raised and cleared (\(o.mix.faultPrinter) mediaEmpty), so the alert journal is at labeld's retention (10,000) from the first row, as after weeks of faults"
  )
  emit(
    "- \(String(format: "%g", o.minutes)) minutes, a row every \(Int(o.interval)) s; verdict on the medians of \(o.window)-row windows after the first \(o.warmup) rows"
  )
  emit("")
  emit(
    "| time | req/s | p50 ms | p99 ms | RSS MB | fds | threads | jobs in history | backlog | labeld CPU % | other CPU % | errors |"
  )
  emit("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")

  let generator = LoadGenerator(socketPath: socket, mix: o.mix)
  var rows: [SoakRow] = []
  var totals = LoadInterval()
  var died: String?
  let t0 = now()
  let end = t0 + UInt64(o.minutes * 60 * 1e9)
  var cpuBefore = (
    labeld: ProcessMetrics.read(pid)?.cpuTicks ?? 0,
    me: ProcessMetrics.read(getpid())?.cpuTicks ?? 0,
    machine: MachineCPU.read() ?? MachineCPU(busyTicks: 0, totalTicks: 0)
  )
  generator.start()
  var nextRow = t0 + UInt64(o.interval * 1e9)
  while died == nil && nextRow <= end + 500_000_000 {
    // Look at labeld every second: a dead daemon ends the run at once.
    while now() < nextRow && daemon.isRunning { usleep(200_000) }
    guard daemon.isRunning, let m = ProcessMetrics.read(pid) else {
      died =
        daemon.isRunning
        ? "cannot read /proc/\(pid)"
        : "labeld exited (\(daemon.terminationReason == .uncaughtSignal ? "signal" : "status") \(daemon.terminationStatus)) after \(clock(Double(now() - t0) / 1e9))"
      break
    }
    let load = generator.takeInterval()
    totals.merge(load)
    let me = ProcessMetrics.read(getpid())?.cpuTicks ?? 0
    let machine = MachineCPU.read() ?? cpuBefore.machine
    let wall = max(1, machine.totalTicks - cpuBefore.machine.totalTicks)
    let labeldTicks = m.cpuTicks - cpuBefore.labeld
    let other = machine.busyTicks - cpuBefore.machine.busyTicks - labeldTicks - (me - cpuBefore.me)
    cpuBefore = (m.cpuTicks, me, machine)
    let counts = jobCounts(db)
    let row = SoakRow(
      elapsed: Double(now() - t0) / 1e9, load: load, metrics: m, history: counts?.history,
      backlog: counts?.backlog,
      // Of one core (labeld may use up to cores × 100), and of the whole machine.
      labeldCPU: Double(labeldTicks) * 100 * Double(MachineCPU.cores) / Double(wall),
      otherCPU: max(0, Double(other)) * 100 / Double(wall))
    rows.append(row)
    emit(
      String(
        format: "| %@ | %.0f | %.2f | %.1f | %.1f | %d | %d | %@ | %@ | %.0f | %.0f | %@ |",
        clock(row.elapsed), load.requestsPerSecond, load.overall.percentile(0.5),
        load.overall.percentile(0.99), Double(m.rssKB) / 1024, m.descriptors, m.threads,
        row.history.map(String.init) ?? "?", row.backlog.map(String.init) ?? "?", row.labeldCPU,
        row.otherCPU, load.failures.isEmpty ? "0" : load.failureSummary))
    progress(
      "soak \(clock(row.elapsed)) of \(clock(o.minutes * 60)): "
        + String(format: "%.0f req/s, RSS %.1f MB", load.requestsPerSecond, Double(m.rssKB) / 1024))
    nextRow += UInt64(o.interval * 1e9)
  }
  progress("stopping the clients")
  let stopped = generator.stop(timeout: o.mix.callTimeout + 30)
  totals.merge(generator.takeInterval())

  // Idle again: every load connection closed (and, with instant printers, the queue empty).
  var idleAfter = -1
  var targetsAfter: [String] = []
  if died == nil, daemon.isRunning {
    idleAfter = ProcessMetrics.steadyDescriptors(pid) ?? -1
    targetsAfter = ProcessMetrics.descriptorTargets(pid)
  }
  let final = ProcessMetrics.read(pid)

  emit("")
  emit("| operation | calls | p50 ms | p99 ms | max ms | failures |")
  emit("|---|---:|---:|---:|---:|---:|")
  for op in LoadOperation.allCases {
    guard let h = totals.latency[op] else { continue }
    emit(
      String(
        format: "| %@ | %d | %.2f | %.1f | %.1f | %@ |", op.rawValue, totals.calls[op] ?? 0,
        h.percentile(0.5), h.percentile(0.99), Double(h.maximum) / 1e6,
        "\(totals.failed[op] ?? 0)"))
  }
  emit("")
  emit("| measurement | value |\n|---|---:|")
  emit("| calls, all told | \(totals.requests) |")
  emit("| failures | \(totals.failureSummary) |")
  if !totals.expected.isEmpty {
    emit(
      "| expected RPC errors (1008: refused by the waiting queue's bound) | \(totals.expected.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")) |"
    )
  }
  emit("| highest job id | \(totals.highestJobID) |")
  if let final {
    emit(String(format: "| labeld peak RSS (VmHWM, MB) | %.1f |", Double(final.peakRSSKB) / 1024))
  }
  emit("| labeld fds idle before / after the load | \(idleBefore) / \(idleAfter) |")
  for sample in totals.failureSamples { emit("- failure: \(sample)") }

  // The verdict.
  var problems: [String] = []
  if let died { problems.append(died) }
  if !stopped {
    problems.append("a load thread had not ended \(Int(o.mix.callTimeout + 30)) s after stop")
  }
  if totals.failureCount > 0 {
    problems.append("\(totals.failureCount) failed calls (\(totals.failureSummary))")
  }
  if died == nil && idleAfter > idleBefore {
    problems.append(
      "labeld holds \(idleAfter - idleBefore) more descriptors idle after the load than before")
    let gone = Set(targetsBefore)
    emit("- descriptors idle before: \(targetsBefore.joined(separator: ", "))")
    emit("- new since: \(targetsAfter.filter { !gone.contains($0) }.joined(separator: ", "))")
  }
  let judged = Array(rows.dropFirst(o.warmup))
  if judged.isEmpty {
    problems.append("no row after the \(o.warmup) warm-up rows to judge")
  } else {
    let minutes = String(format: "%g-minute medians", Double(o.window) * o.interval / 60)
    let rate = windows(judged.map { ($0.elapsed, $0.load.requestsPerSecond) }, size: o.window)
    let rss = windows(judged.map { ($0.elapsed, Double($0.metrics.rssKB) / 1024) }, size: o.window)
    // What a request costs labeld (its CPU, printers' work included, over the requests
    // answered): the cost that must not grow with history, whatever the machine's other
    // load does to the rate. Judged when the load is paced (below).
    let cost = windows(
      judged.map { ($0.elapsed, $0.labeldCPU * 10 / max(1, $0.load.requestsPerSecond)) },
      size: o.window)
    emit("")
    emit(
      "| window ending | requests/s (median) | RSS MB (median) | labeld CPU ms per request (median) |"
    )
    emit("|---:|---:|---:|---:|")
    for ((r, m), c) in zip(zip(rate, rss), cost) {
      emit(String(format: "| %@ | %.0f | %.1f | %.3f |", clock(r.time), r.value, m.value, c.value))
    }
    if let low = judged.min(by: { $0.load.requestsPerSecond < $1.load.requestsPerSecond }),
      let high = judged.max(by: { $0.load.requestsPerSecond < $1.load.requestsPerSecond })
    {
      emit(
        String(
          format: "- single rows (30 s) ranged from %.0f req/s at %@ to %.0f at %@",
          low.load.requestsPerSecond, clock(low.elapsed), high.load.requestsPerSecond,
          clock(high.elapsed)))
    }
    if let offered = o.mix.rate {
      // Paced (an open loop): labeld must serve what is offered, and a request must cost it
      // the same throughout. A window above the offered rate is the clients making up for
      // calls the machine held back (each client keeps its schedule), not labeld: only a
      // shortfall counts.
      let floor = offered * (1 - o.tolerance)
      if let low = rate.min(by: { $0.value < $1.value }), low.value < floor {
        problems.append(
          String(
            format: "requests/s fell short of the %.0f offered: %.0f at %@ (%+.0f%%)", offered,
            low.value, clock(low.time), (low.value / offered - 1) * 100))
      }
      if let drift = drift(
        "labeld CPU per request", cost, tolerance: o.tolerance, format: "%.3f ms", unit: minutes)
      {
        problems.append(drift)
      }
    } else if let drift = drift(
      "requests/s", rate, tolerance: o.tolerance, format: "%.0f", unit: minutes)
    {
      problems.append(drift)
    }
    // RSS may grow only with what is queued: by at most `bytesPerQueuedJob` per job
    // queued since the end of the warm-up (plus the same 10%). With a steady backlog this
    // is "within 10%"; with printers slower than the submits (`--slow`, or a printer whose
    // faults take half its time while labeld accepts jobs faster than it can print them)
    // the backlog is legitimate and labeld's memory may follow it, no further.
    do {
      let base = rows[max(0, o.warmup - 1)]
      let baseRSS = Double(base.metrics.rssKB) * 1024
      let baseBacklog = Double(base.backlog ?? 0)
      var slope: (n: Double, sx: Double, sy: Double, sxx: Double, sxy: Double) = (0, 0, 0, 0, 0)
      var beyond: [(row: SoakRow, rss: Double, allowed: Double)] = []
      for r in judged {
        let queued = Double(r.backlog ?? 0)
        let rss = Double(r.metrics.rssKB) * 1024
        slope.n += 1
        slope.sx += queued
        slope.sy += rss
        slope.sxx += queued * queued
        slope.sxy += queued * rss
        let allowed =
          baseRSS * (1 + o.tolerance) + o.bytesPerQueuedJob * max(0, queued - baseBacklog)
        if rss > allowed { beyond.append((r, rss, allowed)) }
      }
      if let worst = beyond.max(by: { $0.rss - $0.allowed < $1.rss - $1.allowed }) {
        problems.append(
          String(
            format:
              "RSS beyond what is queued in %d of %d rows; worst %.1f MB at %@ with %d jobs queued, allowed %.1f MB (%.1f MB at the end of the warm-up + 10%% + %.0f B for each of %.0f more jobs queued)",
            beyond.count, judged.count, worst.rss / 1_048_576, clock(worst.row.elapsed),
            worst.row.backlog ?? 0, worst.allowed / 1_048_576, baseRSS / 1_048_576,
            o.bytesPerQueuedJob, max(0, Double(worst.row.backlog ?? 0) - baseBacklog)))
      }
      let d = slope.n * slope.sxx - slope.sx * slope.sx
      if d > 0 {
        let b = (slope.n * slope.sxy - slope.sx * slope.sy) / d
        emit(
          String(
            format: "| RSS per queued job, least squares over the judged rows (bytes) | %.0f |", b))
      }
      if let last = judged.last?.backlog {
        emit("| backlog at the end (jobs not ended) | \(last) |")
      }
    }
  }
  emit("")
  if problems.isEmpty, let offered = o.mix.rate {
    emit(
      "**Verdict: PASS** (paced at \(Int(offered)) calls/s: after warm-up, no \(String(format: "%g", Double(o.window) * o.interval / 60))-minute median of requests/s more than \(Int(o.tolerance * 100))% short of it, labeld's CPU per request within ±\(Int(o.tolerance * 100))% of the run's median, RSS within \(Int(o.tolerance * 100))% of the warm-up's plus \(Int(o.bytesPerQueuedJob)) B a job queued since, no error, no descriptor growth)"
    )
  } else if problems.isEmpty {
    emit(
      "**Verdict: PASS** (after warm-up, every \(String(format: "%g", Double(o.window) * o.interval / 60))-minute median of requests/s within ±\(Int(o.tolerance * 100))% of the run's, RSS within \(Int(o.tolerance * 100))% of the warm-up's plus \(Int(o.bytesPerQueuedJob)) B a job queued since, no error, no descriptor growth)"
    )
  } else {
    emit("**Verdict: FAIL**")
    for p in problems.prefix(20) { emit("- \(p)") }
    if problems.count > 20 { emit("- … and \(problems.count - 20) more") }
    throw BenchError.failed("soak verdict FAIL")
  }
}
