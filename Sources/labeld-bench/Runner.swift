import Foundation
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// One part of the report, run in a process of its own with a deadline.
struct Section: Sendable {
  let name: String
  let title: String
  /// Seconds the section may take; past it the runner ends it (and every process it
  /// started), reports it as failed and goes on with the next.
  let timeout: Double
  let run: @MainActor @Sendable () throws -> Void
}

/// Runs `sections` one after another, each as `labeld-bench --section NAME` in a child
/// process whose rows are passed on as they come. A section that fails, crashes or runs
/// past its timeout is reported as such, with what it had measured so far, and the next
/// one runs. Returns the number of sections that failed.
func runSections(_ sections: [Section]) -> Int {
  var failed: [String] = []
  for (i, section) in sections.enumerated() {
    FileHandle.standardError.write(
      Data(
        "[\(i + 1)/\(sections.count)] \(section.name): \(section.title) (timeout \(Int(section.timeout)) s)\n"
          .utf8))
    emit("\n### \(section.title)\n")
    let work = config.work.appendingPathComponent(section.name)
    try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let t0 = now()
    let outcome = runChild(section, work: work)
    let seconds = Double(now() - t0) / 1e9
    try? FileManager.default.removeItem(at: work)
    if let outcome {
      failed.append(section.name)
      emit("\n**\(section.name) failed**: \(outcome)")
      FileHandle.standardError.write(Data("  ✘ \(section.name): \(outcome)\n".utf8))
    } else {
      FileHandle.standardError.write(
        Data(String(format: "  ✔ %@ in %.1f s\n", section.name, seconds).utf8))
    }
  }
  try? FileManager.default.removeItem(at: config.work)
  if !failed.isEmpty {
    emit("\n**Failed sections**: \(failed.joined(separator: ", "))")
  }
  return failed.count
}

/// Runs one section in a child; nil when it succeeded, else what went wrong.
private func runChild(_ section: Section, work: URL) -> String? {
  var fds: [Int32] = [0, 0]
  guard pipe(&fds) == 0 else { return "cannot make a pipe" }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
  posix_spawn_file_actions_addclose(&actions, fds[0])
  posix_spawn_file_actions_addclose(&actions, fds[1])
  let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
  let args =
    [
      exe, "--section", section.name, "--labeld", config.labeld, "--requests",
      String(config.requests), "--work", work.path,
    ] + config.passThrough
  let argv = args.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var pid: pid_t = 0
  // Its own process group, so that what it starts can be ended with it even after it
  // exited and left them to init.
  var attr = posix_spawnattr_t()
  posix_spawnattr_init(&attr)
  defer { posix_spawnattr_destroy(&attr) }
  posix_spawnattr_setpgroup(&attr, 0)
  posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP))
  let rc = posix_spawn(&pid, exe, &actions, &attr, argv, environ)
  close(fds[1])
  guard rc == 0 else {
    close(fds[0])
    return "cannot start: \(String(cString: strerror(rc)))"
  }
  defer { close(fds[0]) }
  let deadline = now() + UInt64(section.timeout * 1e9)
  var pending: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  var open = true
  while open {
    guard now() < deadline else {
      killTree(pid)
      if !pending.isEmpty { emit(String(decoding: pending, as: UTF8.self)) }
      return "timed out after \(Int(section.timeout)) s; the rows above are what it measured"
    }
    var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
    let left = Int32(min(1000, max(1, (deadline - now()) / 1_000_000)))
    guard poll(&p, 1, left) > 0 else { continue }
    let (n, _) = retryingEINTR { read(fds[0], &chunk, chunk.count) }
    if n <= 0 {
      open = false
      continue
    }
    pending += chunk[0..<n]
    while let nl = pending.firstIndex(of: 0x0A) {
      emit(String(decoding: pending[..<nl], as: UTF8.self))
      pending.removeFirst(nl + 1)
    }
  }
  if !pending.isEmpty { emit(String(decoding: pending, as: UTF8.self)) }
  // Output closed: the section is ending; give it the rest of its time to exit.
  var status: Int32 = 0
  while waitpid(pid, &status, WNOHANG) == 0 {
    guard now() < deadline else {
      killTree(pid)
      return "did not exit within \(Int(section.timeout)) s"
    }
    usleep(10_000)
  }
  killTree(pid)  // anything it left running (a labeld, a cupsd) ends with it
  if status & 0x7f != 0 { return "killed by signal \(status & 0x7f)" }
  let code = (status >> 8) & 0xff
  return code == 0 ? nil : "exited with status \(code)"
}

/// SIGKILL to `pid`, its process group and every process below it (collected first:
/// killing a parent would hand its children to init before they could be found), then
/// reaps `pid`.
private func killTree(_ pid: pid_t) {
  kill(-pid, SIGKILL)
  var tree: [pid_t] = [pid]
  var i = 0
  let parents = parentTable()
  while i < tree.count {
    tree += parents.filter { $0.value == tree[i] }.map(\.key)
    i += 1
  }
  for p in tree.reversed() where p != getpid() { kill(p, SIGKILL) }
  var status: Int32 = 0
  _ = waitpid(pid, &status, 0)
}

/// Every process's parent, from /proc/PID/stat.
private func parentTable() -> [pid_t: pid_t] {
  var table: [pid_t: pid_t] = [:]
  for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
    guard let pid = pid_t(entry),
      let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { continue }
    // After "comm)": state, ppid, ...
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    if fields.count > 1, let ppid = pid_t(fields[1]) { table[pid] = ppid }
  }
  return table
}
