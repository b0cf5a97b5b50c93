#if canImport(Glibc)
  @preconcurrency import Glibc
#endif
import LabelPOSIX

// labelctl: the command-line client of labeld. The command tree starts at `Root`
// (Root.swift); `CLI.main` parses, validates and runs one command line.

// Line-buffered even into a pipe: `alerts --follow` and `print --wait` must show each event
// as it happens to whoever reads them (a script, a test), not when a buffer fills.
setvbuf(stdout, nil, _IOLBF, 0)

exit(CLI.main(Array(CommandLine.arguments.dropFirst()), environment: SocketPath.processEnvironment))
