import LabelCore
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// Who may do what, decided from the peer's credentials (SO_PEERCRED, SO_PEERGROUPS) in
/// this one place. Anyone who can open the socket (mode 0660, group labeld) may print,
/// save and read. Administrators — root, labeld's own user, and members of the admin
/// group — may also inject faults (`printers.simulate`) and cancel other people's jobs.
package final class AccessPolicy: Sendable {
  private let adminGroup: Mutex<String?>
  private let daemonUID = getuid()

  package init(adminGroup: String?) {
    self.adminGroup = Mutex(adminGroup)
  }

  package func setAdminGroup(_ name: String?) { adminGroup.withLock { $0 = name } }

  package func isAdmin(_ peer: PeerCredentials) -> Bool {
    if peer.uid == 0 || peer.uid == daemonUID { return true }
    guard let name = adminGroup.withLock({ $0 }), let gid = UnixSocket.groupID(named: name)
    else { return false }
    return peer.gid == gid || peer.groups.contains(gid)
  }

  /// Throws 1005 unless `peer` is an administrator; `what` says what was refused.
  package func requireAdmin(_ peer: PeerCredentials, _ what: String) throws(RPCError) {
    guard isAdmin(peer) else {
      let group = adminGroup.withLock { $0 }
      throw .notPermitted(
        uid: peer.uid,
        "\(what) is for administrators: root, labeld's own user"
          + (group.map { " or members of group \($0)" } ?? ""))
    }
  }
}
