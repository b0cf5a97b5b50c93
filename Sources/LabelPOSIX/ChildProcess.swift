import CLinux

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A helper program run to completion with bounds: its input handed over whole (an
/// anonymous file as standard input, so no writer waits on a full pipe), its output and
/// its error read up to limits, killed when it runs past its time. The daemon runs work
/// it cannot bound from inside (a PDF's drawing) this way.
public enum ChildProcess {
  public struct Outcome: Sendable, Equatable {
    /// The exit status, or nil when it was killed (`signal`).
    public var status: Int32?
    public var signal: Int32?
    public var output: [UInt8]
    /// What it wrote on standard error (up to 4 KiB).
    public var error: String
    /// It ran past its time and was killed.
    public var timedOut: Bool
    /// Its output passed the limit and it was killed.
    public var outputTooLarge: Bool
    /// Its pipes could not be read (poll or read failed): it was killed, its output not whole.
    public var readFailed = false
  }

  /// The daemon's threads block the signals it waits for, and a process it starts would
  /// inherit that: a child starts with none blocked and the usual actions for those.
  public static func startWithUsualSignals(_ attr: inout posix_spawnattr_t) {
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attr, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for sig in [SIGTERM, SIGINT, SIGPIPE, SIGCHLD, SIGHUP] { sigaddset(&defaults, sig) }
    posix_spawnattr_setsigdefault(&attr, &defaults)
    posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
  }

  /// Runs `executable` with `arguments` (no shell), `input` as its standard input and an
  /// empty environment but `environment`; at most `outputLimit` bytes of output are taken
  /// and at most `seconds` of wall time. Blocking: call it from a lane, never the pool.
  public static func run(
    _ executable: String, _ arguments: [String], input: [UInt8], environment: [String] = [],
    outputLimit: Int, seconds: Double
  ) throws(SystemError) -> Outcome {
    let memory = try SystemError.check("memfd_create") { memfd_create("labeld-input", MFD_CLOEXEC) }
    defer { close(memory) }
    var at = 0
    while at < input.count {
      at += try SystemError.check("write") {
        input.withUnsafeBytes { write(memory, $0.baseAddress.map { $0 + at }, input.count - at) }
      }
    }
    _ = lseek(memory, 0, SEEK_SET)
    var out: [Int32] = [0, 0]
    var err: [Int32] = [0, 0]
    try SystemError.check("pipe2") { pipe2(&out, O_CLOEXEC) }
    defer { close(out[0]) }
    do throws(SystemError) {
      try SystemError.check("pipe2") { pipe2(&err, O_CLOEXEC) }
    } catch {
      close(out[1])
      throw error
    }
    defer { close(err[0]) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, memory, 0)
    posix_spawn_file_actions_adddup2(&actions, out[1], 1)
    posix_spawn_file_actions_adddup2(&actions, err[1], 2)
    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    Self.startWithUsualSignals(&attr)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable, &actions, &attr, argv, envp)
    close(out[1])
    close(err[1])
    guard rc == 0 else { throw SystemError("posix_spawn \(executable)", errno: rc) }

    var outcome = Outcome(
      status: nil, signal: nil, output: [], error: "", timedOut: false, outputTooLarge: false)
    var errorBytes: [UInt8] = []
    let deadline = Monotonic.now + seconds
    var open = [out[0], err[0]]
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    // Ends with both pipes at their end; any other way out (the deadline, too much
    // output, a failing poll or read) kills the child, so the wait below cannot hang and
    // a child's output is never taken as whole when it was not read to its end.
    var broken = false
    while !open.isEmpty {
      let left = deadline - Monotonic.now
      if left <= 0 {
        outcome.timedOut = true
        break
      }
      var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      let ready = retryingEINTR { poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, 1000)) + 1) }
      if ready.result < 0 {
        broken = true
        break
      }
      for p in fds where p.revents != 0 {
        let (n, failure) = retryingEINTR {
          chunk.withUnsafeMutableBytes { read(p.fd, $0.baseAddress, $0.count) }
        }
        if n < 0 && failure == EAGAIN { continue }
        if n < 0 { broken = true }
        if n <= 0 {
          open.removeAll { $0 == p.fd }
        } else if p.fd == out[0] {
          outcome.output += chunk[0..<n]
          if outcome.output.count > outputLimit {
            outcome.outputTooLarge = true
            open = []
          }
        } else if errorBytes.count < 4096 {
          errorBytes += chunk[0..<min(n, 4096 - errorBytes.count)]
        }
      }
    }
    outcome.readFailed = broken
    if outcome.timedOut || outcome.outputTooLarge || broken || !open.isEmpty { kill(pid, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
    if status & 0x7F == 0 {
      outcome.status = (status >> 8) & 0xFF
    } else {
      outcome.signal = status & 0x7F
    }
    outcome.error = String(decoding: errorBytes, as: UTF8.self)
    return outcome
  }
}

/// CLOCK_MONOTONIC in seconds.
enum Monotonic {
  static var now: Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }
}
