import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A process as /proc shows it at one moment: resident memory, open descriptors, threads,
/// CPU time. Linux only.
public struct ProcessMetrics: Sendable, Equatable {
  /// VmRSS, KiB.
  public var rssKB: Int
  /// VmHWM (peak resident set), KiB.
  public var peakRSSKB: Int
  /// Entries of /proc/PID/fd.
  public var descriptors: Int
  public var threads: Int
  /// utime + stime, in clock ticks (`ticksPerSecond`).
  public var cpuTicks: Int

  public static let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))

  /// Nil when the process is gone (or /proc cannot be read).
  public static func read(_ pid: Int32) -> ProcessMetrics? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
    else { return nil }
    func field(_ name: String) -> Int {
      for line in status.split(separator: "\n") where line.hasPrefix(name) {
        // "VmRSS:\t   33280 kB", "Threads:\t5"
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
          ?? 0
      }
      return 0
    }
    // After "(comm) ": state is field 3, utime field 14, stime field 15.
    var ticks = 0
    if let close = stat.lastIndex(of: ")") {
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 13 { ticks = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) }
    }
    return ProcessMetrics(
      rssKB: field("VmRSS:"), peakRSSKB: field("VmHWM:"), descriptors: fds.count,
      threads: field("Threads:"), cpuTicks: ticks)
  }

  /// What each open descriptor of `pid` refers to ("socket:[123]", a path, "anon_inode:…"),
  /// sorted by descriptor number, for a report when their count changed.
  public static func descriptorTargets(_ pid: Int32) -> [String] {
    let dir = "/proc/\(pid)/fd"
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).compactMap {
      Int($0)
    }.sorted()
    return names.map { n in
      let target =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(dir)/\(n)")) ?? "?"
      return "\(n) -> \(target)"
    }
  }

  /// The descriptor count of `pid` once it has stopped changing: the same for `steadyPolls`
  /// polls in a row, 50 ms apart (connections that clients closed are closed by labeld a
  /// moment later). Gives up after `timeout` seconds with the last count; nil when the
  /// process is gone.
  public static func steadyDescriptors(_ pid: Int32, steadyPolls: Int = 20, timeout: Double = 30)
    -> Int?
  {
    let deadline = Date().addingTimeInterval(timeout)
    var last = -1
    var same = 0
    while true {
      guard let m = read(pid) else { return nil }
      same = m.descriptors == last ? same + 1 : 0
      last = m.descriptors
      if same >= steadyPolls || Date() > deadline { return last }
      usleep(50_000)
    }
  }
}

/// The whole machine's CPU time (all cores) from /proc/stat: busy and total ticks.
public struct MachineCPU: Sendable {
  public var busyTicks: Int
  public var totalTicks: Int
  public static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

  public init(busyTicks: Int, totalTicks: Int) {
    self.busyTicks = busyTicks
    self.totalTicks = totalTicks
  }

  public static func read() -> MachineCPU? {
    guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
      let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
    else { return nil }
    // user nice system idle iowait irq softirq steal ...
    let v = line.split(separator: " ").dropFirst().compactMap { Int($0) }
    guard v.count >= 5 else { return nil }
    let total = v.prefix(8).reduce(0, +)
    return MachineCPU(busyTicks: total - v[3] - v[4], totalTicks: total)
  }
}
