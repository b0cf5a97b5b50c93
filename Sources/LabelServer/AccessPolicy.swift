import LabelCore
import LabelPOSIX
import Synchronization

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// What a caller may do, lowest first. A Unix-socket peer is an operator, or an
/// administrator by its credentials; a web client has its token's role.
package enum Role: String, Sendable, Comparable, CaseIterable {
  /// Reads and subscribes.
  case viewer
  /// Also prints, saves and dismisses (everyone who can open the socket).
  case `operator`
  /// Everything: injects faults, cancels anyone's jobs.
  case admin

  private var rank: Int {
    switch self {
    case .viewer: 0
    case .operator: 1
    case .admin: 2
    }
  }
  package static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }
}

/// Who is asking: a peer of the Unix socket, by its credentials, or a web client, by the
/// token it signed in with.
package struct Caller: Sendable, Equatable {
  package enum Identity: Sendable, Equatable {
    case peer(PeerCredentials)
    case token(name: String, role: Role)
  }
  package let identity: Identity

  package init(peer: PeerCredentials) { identity = .peer(peer) }
  package init(token name: String, role: Role) { identity = .token(name: name, role: role) }

  /// The uid its jobs are owned by: a web client's are labeld's own user's.
  package var uid: UInt32 {
    switch identity {
    case .peer(let p): p.uid
    case .token: getuid()
    }
  }

  /// For log lines and refusals: "uid 1000" or "token shop-ipad".
  package var description: String {
    switch identity {
    case .peer(let p): "uid \(p.uid)"
    case .token(let name, _): "token \(name)"
    }
  }

  /// Where its jobs come from: the socket, or the web endpoint under the token's name.
  package var origin: JobOrigin {
    switch identity {
    case .peer: .socket
    case .token(let name, _): JobOrigin(kind: .web, user: name)
    }
  }

  package var tokenName: String? {
    if case .token(let name, _) = identity { return name }
    return nil
  }
}

/// Who may do what, decided in this one place: from the peer's credentials (SO_PEERCRED,
/// SO_PEERGROUPS) on the Unix socket, from the token's role on the web. Anyone who can open
/// the socket (mode 0660, group labeld) is an operator: may print, save and read.
/// Administrators — root, labeld's own user, members of the admin group, and admin tokens —
/// may also inject faults (`printers.simulate`) and cancel other people's jobs. A viewer
/// token may only read and subscribe.
package final class AccessPolicy: Sendable {
  private let adminGroup: Mutex<String?>
  private let daemonUID = getuid()

  package init(adminGroup: String?) {
    self.adminGroup = Mutex(adminGroup)
  }

  package func setAdminGroup(_ name: String?) { adminGroup.withLock { $0 = name } }

  package func role(of caller: Caller) -> Role {
    switch caller.identity {
    case .token(_, let role): return role
    case .peer(let peer):
      if peer.uid == 0 || peer.uid == daemonUID { return .admin }
      guard let name = adminGroup.withLock({ $0 }), let gid = UnixSocket.groupID(named: name)
      else { return .operator }
      return peer.gid == gid || peer.groups.contains(gid) ? .admin : .operator
    }
  }

  package func isAdmin(_ caller: Caller) -> Bool { role(of: caller) == .admin }

  /// Throws 1005 unless `caller` has `role` at least; `what` says what was refused.
  package func require(_ role: Role, _ caller: Caller, _ what: String) throws(RPCError) {
    // Every peer of the socket is an operator at least: only an administrator's method
    // needs its groups (a group lookup reads /etc/group: not for every request).
    if role <= .operator, case .peer = caller.identity { return }
    let has = self.role(of: caller)
    guard has < role else { return }
    if role == .admin {
      let group = adminGroup.withLock { $0 }
      throw .notPermitted(
        uid: caller.uid, token: caller.tokenName,
        "\(what) is for administrators: root, labeld's own user"
          + (group.map { ", members of group \($0)" } ?? "") + " or an admin token")
    }
    throw .notPermitted(
      uid: caller.uid, token: caller.tokenName,
      "\(what) needs the \(role.rawValue) role (viewer < operator < admin); this caller is a "
        + has.rawValue)
  }

  /// Throws 1005 unless `caller` is an administrator.
  package func requireAdmin(_ caller: Caller, _ what: String) throws(RPCError) {
    try require(.admin, caller, what)
  }
}
