import LabelCore

/// Keeps the web endpoint's bearer tokens (LabelWeb's `WebTokens`): made, listed and
/// revoked through `tokens.*`, for administrators only.
package protocol TokenKeeping: Sendable {
  func create(name: String, role: Role) async throws(RPCError) -> TokenCreated
  func list() async throws(RPCError) -> [TokenInfo]
  /// Revokes `name` and closes its open connections at once.
  func revoke(name: String) async throws(RPCError) -> RevokeResult
}

extension Dispatcher {
  func tokensCall(_ m: Method, _ p: Params, _ context: RequestContext) async throws(RPCError)
    -> Reply
  {
    try services.access.requireAdmin(context.caller, m.rawValue)
    guard let tokens = services.tokens else {
      throw .unsupported("this labeld keeps no web tokens")
    }
    switch m {
    case .tokensCreate:
      let name = try p.string("name")
      let roleName = try p.string("role")
      guard let role = Role(rawValue: roleName) else {
        throw .invalidParams(
          field: "role", reason: "\(roleName) is not a role (viewer, operator or admin)")
      }
      return .result(try await tokens.create(name: name, role: role))
    case .tokensList: return .result(TokensResult(tokens: try await tokens.list()))
    case .tokensRevoke: return .result(try await tokens.revoke(name: try p.string("name")))
    default: throw .internalError("\(m.rawValue) is not a tokens method")
    }
  }
}
