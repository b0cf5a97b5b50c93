import Foundation

/// The configuration of a private cupsd (the CUPS tests and `make bench` run one): every
/// file and socket under one directory, no browsing, no web interface, anyone may do
/// anything. One copy, written for both.
package enum PrivateCUPSConfig {
  /// The directories cupsd needs under `directory`.
  package static let subdirectories = ["spool", "cache", "state", "log", "tmp", "ppd"]

  /// Writes `cups-files.conf` and `cupsd.conf` (and the directories they name) into
  /// `directory`; cupsd listens on `directory/cups.sock`. `errorPolicy` is what cupsd does
  /// with a job whose backend fails (`abort-job` for tests that follow a job's end).
  package static func write(
    into directory: String, logLevel: String = "info", errorPolicy: String? = nil
  ) throws {
    for sub in subdirectories {
      try FileManager.default.createDirectory(
        atPath: directory + "/" + sub, withIntermediateDirectories: true)
    }
    try """
    ServerRoot \(directory)
    RequestRoot \(directory)/spool
    TempDir \(directory)/tmp
    CacheDir \(directory)/cache
    StateDir \(directory)/state
    ErrorLog \(directory)/log/error_log
    AccessLog \(directory)/log/access_log
    PageLog \(directory)/log/page_log
    Printcap \(directory)/printcap

    """.write(toFile: directory + "/cups-files.conf", atomically: true, encoding: .utf8)
    try """
    Listen \(socket(in: directory))
    Browsing No
    BrowseLocalProtocols none
    DefaultAuthType None
    WebInterface No
    \(errorPolicy.map { "ErrorPolicy \($0)\n" } ?? "")LogLevel \(logLevel)
    <Location />
      Order allow,deny
      Allow all
    </Location>
    <Policy default>
      <Limit All>
        Order deny,allow
      </Limit>
    </Policy>

    """.write(toFile: directory + "/cupsd.conf", atomically: true, encoding: .utf8)
  }

  /// Where the private cupsd listens (what `CUPS_SERVER` is set to).
  package static func socket(in directory: String) -> String { directory + "/cups.sock" }

  /// cupsd's command line for the files `write` made: in the foreground, on them.
  package static func arguments(in directory: String) -> [String] {
    ["-f", "-c", directory + "/cupsd.conf", "-s", directory + "/cups-files.conf"]
  }
}
