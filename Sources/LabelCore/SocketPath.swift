/// Where the daemon listens and clients connect, resolved the same way on both sides
/// (protocol v1, "Transport and framing"): the first that applies of `--socket PATH`,
/// `$LABELD_SOCKET`, `$RUNTIME_DIRECTORY/labeld.sock`, `/run/labeld/labeld.sock` for root,
/// `$XDG_RUNTIME_DIR/labeld.sock`, `/tmp/labeld-$UID/labeld.sock`.
///
/// Pure: the daemon, labelctl and the client kit each pass their environment and uid.
public enum SocketPath {
  /// The system service's socket (the systemd socket unit's).
  public static let system = "/run/labeld/labeld.sock"

  /// Where a client tries, in order: the path `resolve` gives, then, unless a flag or the
  /// environment named one, the system service's socket (a labeld addition: a user's own
  /// labeld comes first; without one, the shop's service answers, so `labelctl` as a
  /// member of group labeld needs no `--socket`).
  public static func clientCandidates(
    explicit: String?, environment: [String: String], uid: UInt32
  ) -> [String] {
    let first = resolve(explicit: explicit, environment: environment, uid: uid)
    let named =
      !(explicit ?? "").isEmpty || !(environment["LABELD_SOCKET"] ?? "").isEmpty
      || !(environment["RUNTIME_DIRECTORY"] ?? "").isEmpty
    return named || first == system ? [first] : [first, system]
  }

  public static func resolve(explicit: String?, environment: [String: String], uid: UInt32)
    -> String
  {
    if let explicit, !explicit.isEmpty { return explicit }
    if let p = environment["LABELD_SOCKET"], !p.isEmpty { return p }
    if let d = environment["RUNTIME_DIRECTORY"], !d.isEmpty {
      // systemd may pass several directories separated by ':'; the first is ours.
      let first = d.split(separator: ":").first.map(String.init) ?? d
      return first + "/labeld.sock"
    }
    if uid == 0 { return system }
    if let d = environment["XDG_RUNTIME_DIR"], !d.isEmpty { return d + "/labeld.sock" }
    return "/tmp/labeld-\(uid)/labeld.sock"
  }
}
