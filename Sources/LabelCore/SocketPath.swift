/// Where the daemon listens and clients connect, resolved the same way on both sides
/// (protocol v1, "Transport and framing"): the first that applies of `--socket PATH`,
/// `$LABELD_SOCKET`, `$RUNTIME_DIRECTORY/labeld.sock`, `/run/labeld/labeld.sock` for root,
/// `$XDG_RUNTIME_DIR/labeld.sock`, `/tmp/labeld-$UID/labeld.sock`.
///
/// Pure: the daemon, labelctl and the client kit each pass their environment and uid.
public enum SocketPath {
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
    if uid == 0 { return "/run/labeld/labeld.sock" }
    if let d = environment["XDG_RUNTIME_DIR"], !d.isEmpty { return d + "/labeld.sock" }
    return "/tmp/labeld-\(uid)/labeld.sock"
  }
}
