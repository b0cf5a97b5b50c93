import FoundationEssentials
import LabelConcurrency
import LabelCore
import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Whether a CUPS server may answer, found out without libcups: until one may, labeld does
/// not load libcups (and the TLS and Kerberos libraries it brings, some 4 MB resident).
///
/// It follows libcups' own choice of server (cupsServer(3), client.conf(5)): `CUPS_SERVER`,
/// else `ServerName` in `~/.cups/client.conf` or `/etc/cups/client.conf`, else the local
/// scheduler's domain socket when it exists, else localhost port 631. A configured server
/// is always left to libcups; only the default one is looked for here.
enum CUPSServerPresence {
  /// Debian's `CUPS_DEFAULT_DOMAINSOCKET`.
  static let domainSocket = "/run/cups/cups.sock"
  private static let queue = BlockingQueue(label: "labeld.cups.presence")

  /// Nil when a server may answer (or one is configured); else why none can.
  static func absence(environment: [String: String] = ProcessInfo.processInfo.environment)
    async -> String?
  {
    if let server = environment["CUPS_SERVER"], !server.isEmpty { return nil }
    var files = ["/etc/cups/client.conf"]
    if let home = environment["HOME"], !home.isEmpty {
      files.insert(home + "/.cups/client.conf", at: 0)
    }
    if files.contains(where: { access($0, F_OK) == 0 }) { return nil }
    if access(domainSocket, F_OK) == 0 { return nil }
    let listening = await queue.run { TCPProbe.canConnect(host: "localhost", port: 631) }
    if listening { return nil }
    return "no CUPS_SERVER, no client.conf, nothing at \(domainSocket) or localhost:631"
  }
}
