import CLinux

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// The write end of the signal pipe, for the handler (a C function pointer cannot capture).
/// Set once by `SignalPipe.install`, before any handler is installed; read in handlers.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Signals turned into bytes on a pipe (the self-pipe trick): a handler, installed for
/// each signal, writes the signal's number to the pipe; the daemon reads the other end
/// where it likes (a Dispatch read source).
///
/// Why not Dispatch signal sources: on Linux they read a signalfd, which sees a signal only
/// while every thread blocks it, and `dispatchMain` parks the main thread in `sigsuspend`
/// with an empty mask. A signal delivered to the main thread then met the default action:
/// labeld died of a SIGHUP sent right after it started listening (measured: 1 start in 7 to
/// 40). A handler catches it on whichever thread it lands, and the pipe keeps it until it
/// is read, however early it came.
public enum SignalPipe {
  /// Installs the handlers for `signals` and unblocks every signal (a parent may have left
  /// some blocked); returns the pipe's read end (non-blocking, close-on-exec). Call once,
  /// first thing.
  public static func install(_ signals: [Int32]) throws(SystemError) -> Int32 {
    var fds: [Int32] = [0, 0]
    try SystemError.check("pipe") { pipe(&fds) }
    for fd in fds {
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    signalPipeWriteEnd = fds[1]
    for signal in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { number in
        // Async-signal-safe: one byte; a full pipe drops it (the reader is far behind
        // anyway, and one of each is enough to act on).
        var byte = UInt8(truncatingIfNeeded: number)
        let saved = errno
        _ = write(signalPipeWriteEnd, &byte, 1)
        errno = saved
      }
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_RESTART
      try SystemError.check("sigaction \(signal)") { sigaction(signal, &action, nil) }
    }
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
    return fds[0]
  }

  /// The signals waiting in the pipe, in order (empty when none).
  /// Blocks until at least one signal is in the pipe, then returns all that are, in the
  /// order they came (the main thread's loop: it has nothing else to do).
  ///
  /// The wait is `epoll_pwait` with an empty signal mask: every signal can reach this
  /// thread while it waits, whatever mask it was left with. (Libraries block signals in
  /// the threads they run on; measured: labeld's main thread once ended up with
  /// libdispatch's mask, every thread blocked SIGTERM, and a stop request stayed pending
  /// for ever. `dispatchMain` waited in `sigsuspend` with an empty mask for the same
  /// reason.)
  public static func wait(_ readEnd: Int32) -> [Int32] {
    var none = sigset_t()
    sigemptyset(&none)
    let (epollFD, _) = retryingEINTR { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    defer { if epollFD >= 0 { close(epollFD) } }
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.fd = readEnd
    if epollFD >= 0 { _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, readEnd, &event) }
    while true {
      if epollFD >= 0 {
        var ready = epoll_event()
        _ = epoll_pwait(epollFD, &ready, 1, -1, &none)
      } else {
        // No descriptor for epoll (EMFILE): unblock, then wait as before.
        pthread_sigmask(SIG_SETMASK, &none, nil)
        var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, 1000)
      }
      let signals = drain(readEnd)
      if !signals.isEmpty { return signals }
    }
  }

  public static func drain(_ readEnd: Int32) -> [Int32] {
    var out: [Int32] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    while true {
      let (n, _) = retryingEINTR { read(readEnd, &buffer, buffer.count) }
      if n > 0 {
        out += buffer[0..<n].map { Int32($0) }
        continue
      }
      return out
    }
  }
}
