/// Where the HTTP endpoint listens (`--listen-http`, `http =`): `unix:PATH`,
/// `127.0.0.1:PORT`, `[::1]:PORT`, or any other numeric `HOST:PORT` / `[V6]:PORT`, which
/// is served with TLS only.
package enum HTTPAddress: Sendable, Equatable, CustomStringConvertible {
  case unix(String)
  case tcp(host: String, port: Int)

  package static func parse(_ text: String) -> Result<HTTPAddress, HTTPAddressError> {
    if text.hasPrefix("unix:") {
      let path = String(text.dropFirst(5))
      guard path.hasPrefix("/"), path.utf8.count < 108 else {
        return .failure(HTTPAddressError("\(text): unix: needs an absolute path under 108 bytes"))
      }
      return .success(.unix(path))
    }
    let host: Substring
    let portText: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"), text[close...].hasPrefix("]:") else {
        return .failure(HTTPAddressError("\(text): an IPv6 address is written [ADDRESS]:PORT"))
      }
      host = text[text.index(after: text.startIndex)..<close]
      portText = text[text.index(close, offsetBy: 2)...]
    } else {
      guard let colon = text.lastIndex(of: ":") else {
        return .failure(HTTPAddressError("\(text): expected unix:PATH, HOST:PORT or [V6]:PORT"))
      }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
      guard !host.contains(":") else {
        return .failure(HTTPAddressError("\(text): an IPv6 address is written [ADDRESS]:PORT"))
      }
    }
    guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty else {
      return .failure(HTTPAddressError("\(text): the port must be a number 0...65535"))
    }
    return .success(.tcp(host: String(host), port: port))
  }

  /// Reachable from this machine only: a Unix socket, 127.0.0.0/8 or ::1.
  package var isLocal: Bool {
    switch self {
    case .unix: true
    case .tcp(let host, _): host.hasPrefix("127.") || host == "::1"
    }
  }

  package var description: String {
    switch self {
    case .unix(let path): "unix:\(path)"
    case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
  }
}

package struct HTTPAddressError: Error, Sendable, Equatable, CustomStringConvertible {
  package var description: String
  init(_ description: String) { self.description = description }
}
