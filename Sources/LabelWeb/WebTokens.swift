import FoundationEssentials
import LabelCore
import LabelHTTP
import LabelServer
import LabelStore
import LabelWire
import Synchronization

/// The web endpoint's bearer tokens: kept in the store as SHA-256 hashes, in memory for
/// sign-in. A secret is 32 random bytes (base64url, `ldt_` before it), shown once.
/// Checking a presented secret hashes it and compares it with every stored hash in time
/// that does not depend on where they differ (nothing learnt by timing).
package final class WebTokens: TokenKeeping {
  private struct Entry {
    var info: TokenInfo
    var role: Role
    var hash: [UInt8]
  }

  private let store: TokenStore
  private let entries = Mutex<[Entry]>([])
  /// Closes the open connections of a revoked token; returns how many.
  private let closer = Mutex<(@Sendable (String) -> Int)?>(nil)

  package init(store: TokenStore) { self.store = store }

  /// Reads the stored tokens (at start-up).
  package func load() async throws(SaveFailure) {
    let rows = try await store.all()
    entries.withLock { e in
      e = rows.compactMap { row in
        Role(rawValue: row.role).map {
          Entry(
            info: TokenInfo(name: row.name, role: row.role, createdAt: row.createdAt), role: $0,
            hash: row.hash)
        }
      }
    }
  }

  package func setConnectionCloser(_ close: @escaping @Sendable (String) -> Int) {
    closer.withLock { $0 = close }
  }

  /// The name and role of the token whose secret is `secret`; nil for none.
  package func authenticate(_ secret: String) -> (name: String, role: Role)? {
    guard secret.utf8.count <= 256, let hash = try? Digest.sha256(Array(secret.utf8)) else {
      return nil
    }
    return entries.withLock { e in
      var found: Entry?
      for entry in e where Digest.constantTimeEqual(entry.hash, hash) && found == nil {
        found = entry
      }
      return found.map { ($0.info.name, $0.role) }
    }
  }

  package var isEmpty: Bool { entries.withLock { $0.isEmpty } }

  /// A token name: 1 to 64 of letters, digits, `.`, `_` and `-`.
  static func validName(_ name: String) -> Bool {
    (1...64).contains(name.utf8.count)
      && name.utf8.allSatisfy {
        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
          || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
      }
  }

  package func create(name: String, role: Role) async throws(RPCError) -> TokenCreated {
    guard Self.validName(name) else {
      throw .invalidParams(
        field: "name", reason: "a token name is 1 to 64 letters, digits, '.', '_' or '-'")
    }
    var generator = SystemRandomNumberGenerator()
    let random = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let secret = "ldt_" + Self.base64url(random)
    let hash: [UInt8]
    do {
      hash = try Digest.sha256(Array(secret.utf8))
    } catch {
      throw .internalError(error.description)
    }
    var now: [UInt8] = []
    RFC3339.write(Date(), into: &now)
    let info = TokenInfo(
      name: name, role: role.rawValue, createdAt: String(decoding: now, as: UTF8.self))
    let added: Bool
    do {
      added = try await store.insert(
        TokenStore.Row(name: name, role: role.rawValue, hash: hash, createdAt: info.createdAt))
    } catch {
      throw .internalError("cannot keep the token: \(error.message)")
    }
    guard added else {
      throw .invalidParams(
        field: "name", reason: "a token named \(name) exists: revoke it first to make a new one")
    }
    entries.withLock { $0.append(Entry(info: info, role: role, hash: hash)) }
    return TokenCreated(token: info, secret: secret)
  }

  package func list() async throws(RPCError) -> [TokenInfo] {
    entries.withLock { e in e.map(\.info).sorted { $0.name < $1.name } }
  }

  package func revoke(name: String) async throws(RPCError) -> RevokeResult {
    // Out of memory first: from here on the token signs nobody in, stored or not.
    let had = entries.withLock { e in
      let before = e.count
      e.removeAll { $0.info.name == name }
      return e.count != before
    }
    let closed = closer.withLock { $0 }?(name) ?? 0
    do {
      let deleted = try await store.delete(name)
      return RevokeResult(revoked: had || deleted, closed: closed)
    } catch {
      throw .internalError(
        "the token is revoked until labeld restarts, but not in the store: \(error.message)")
    }
  }

  /// Base64 with the URL- and header-safe alphabet, unpadded (RFC 4648 §5): a secret
  /// that can travel as a WebSocket subprotocol.
  static func base64url(_ bytes: [UInt8]) -> String {
    String(
      Data(bytes).base64EncodedString().compactMap { c -> Character? in
        switch c {
        case "+": "-"
        case "/": "_"
        case "=": nil
        default: c
        }
      })
  }

}
