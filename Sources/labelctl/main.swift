import LabelCommandLine
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

// labelctl: the command-line client of labeld. The command tree starts at `Root`
// (Root.swift); `CLI.main` parses, validates and runs one command line.

// Line-buffered even into a pipe: `alerts --follow` and `print --wait` must show each event
// as it happens to whoever reads them (a script, a test), not when a buffer fills.
setvbuf(stdout, nil, _IOLBF, 0)

// A parent may start us with signals blocked (test runners and some supervisors do); then
// `alerts --follow`, which runs until interrupted, could never be stopped.
var interrupting = sigset_t()
sigemptyset(&interrupting)
for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&interrupting, signal) }
pthread_sigmask(SIG_UNBLOCK, &interrupting, nil)

exit(CLI.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.variables))
