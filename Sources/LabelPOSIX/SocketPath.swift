#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Where the daemon listens and clients connect, resolved the same way on both sides
/// (protocol v1, "Transport and framing"): the first that applies of `--socket PATH`,
/// `$LABELD_SOCKET`, `$RUNTIME_DIRECTORY/labeld.sock`, `/run/labeld/labeld.sock` for root,
/// `$XDG_RUNTIME_DIR/labeld.sock`, `/tmp/labeld-$UID/labeld.sock`.
public enum SocketPath {
  public static func resolve(
    explicit: String?, environment: [String: String], uid: UInt32 = getuid()
  ) -> String {
    if let explicit, !explicit.isEmpty { return explicit }
    if let p = environment["LABELD_SOCKET"], !p.isEmpty { return p }
    if let d = environment["RUNTIME_DIRECTORY"], !d.isEmpty {
      // systemd may pass several directories separated by ':'; the first is ours.
      let first = d.split(separator: ":").first.map(String.init) ?? d
      return first + "/labeld.sock"
    }
    if uid == 0 { return "/run/labeld/labeld.sock" }
    if let d = environment["XDG_RUNTIME_DIR"], !d.isEmpty { return d + "/labeld.sock" }
    return "/tmp/labeld-\(uid)/labeld.sock"
  }

  /// The process environment as a dictionary.
  public static var processEnvironment: [String: String] {
    var out: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
      let s = String(cString: entry)
      if let eq = s.firstIndex(of: "=") {
        out[String(s[..<eq])] = String(s[s.index(after: eq)...])
      }
      p += 1
    }
    return out
  }
}
