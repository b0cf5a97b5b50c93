import LabelPOSIX

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// A listening socket for an `HTTPAddress`, as every front that speaks HTTP opens one (the
/// web endpoint, the IPP front): a Unix socket (0660) or TCP, and what it is bound to.
package struct HTTPListener: Sendable {
  package let address: HTTPAddress
  package let fd: Int32
  /// What the address is bound to (the port chosen for port 0): `127.0.0.1:43817`.
  package let bound: String

  /// Opens `address`; `flag` names the setting in the error (`--listen-http`).
  package init(_ address: HTTPAddress, flag: String) throws(HTTPError) {
    self.address = address
    do {
      switch address {
      case .unix(let path):
        fd = try UnixSocket.listen(path: path, mode: 0o660)
        bound = address.description
      case .tcp(let host, let port):
        fd = try TCPListener.listen(host: host, port: port)
        bound = HTTPAddress.tcp(host: host, port: TCPListener.port(of: fd) ?? 0).description
      }
    } catch {
      throw HTTPError("\(flag) \(address): \(error)")
    }
  }

  package var isUnix: Bool {
    if case .unix = address { return true }
    return false
  }

  /// The port a TCP listener is bound to.
  package var port: Int? {
    guard case .tcp = address else { return nil }
    return bound.split(separator: ":").last.flatMap { Int($0) }
  }

  /// Closes the socket (and removes a Unix socket's file).
  package func close() {
    _ = Glibc.close(fd)
    if case .unix(let path) = address { unlink(path) }
  }
}

/// Where TLS's certificate comes from: files, or one labeld makes and keeps (self-signed).
package struct TLSFiles: Sendable, Equatable {
  package var certificatePath: String?
  package var keyPath: String?
  package var selfSigned = false
  package var stateDirectory = "/var/lib/labeld"

  package init() {}

  package var configured: Bool { certificatePath != nil || selfSigned }

  /// Half a key pair given.
  package var problem: String? {
    (certificatePath == nil) != (keyPath == nil) ? "--tls-cert and --tls-key go together" : nil
  }

  /// Presents the certificate on every TLS listener from now on (libmicrohttpd's
  /// credentials are one set for the process): the files', or a self-signed one made in
  /// STATE_DIR/tls on first use. Returns the certificate's path and SHA-256 (and the
  /// path of one just made), for the log.
  package func install() throws(HTTPError) -> (path: String, fingerprint: String?, made: Bool) {
    var certPath = certificatePath
    var keyPath = keyPath
    var made = false
    if certPath == nil {
      let dir = stateDirectory + "/tls"
      certPath = dir + "/cert.pem"
      keyPath = dir + "/key.pem"
      if !PlainFile.exists(dir + "/cert.pem") {
        try Self.makeSelfSigned(in: dir, cert: dir + "/cert.pem", key: dir + "/key.pem")
        made = true
      }
    }
    guard let certPath, let keyPath else { throw HTTPError("no TLS certificate configured") }
    let cert: [UInt8]
    let key: [UInt8]
    do {
      cert = try PlainFile.read(certPath, limit: 1 << 20)
      key = try PlainFile.read(keyPath, limit: 1 << 20)
    } catch {
      throw HTTPError("TLS: \(error)")
    }
    try TLSCredentials.install(certificate: cert, key: key)
    let fingerprint = (try? TLSCredentials.fingerprint(certificate: cert)) ?? nil
    return (certPath, fingerprint, made)
  }

  private static func makeSelfSigned(in dir: String, cert: String, key: String)
    throws(HTTPError)
  {
    var name = [CChar](repeating: 0, count: 256)
    gethostname(&name, name.count - 1)
    let host = String(
      decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let made = try TLSCredentials.selfSigned(hostname: host.isEmpty ? "localhost" : host)
    do {
      // The directory is labeld's alone (0700): the key is never readable by others, even
      // for the moment between its writing and its chmod.
      try UnixSocket.makeDirectories(dir, mode: 0o700)
      try PlainFile.replace(key, with: made.key)
      try SystemError.check("chmod \(key)") { chmod(key, 0o600) }
      try PlainFile.replace(cert, with: made.certificate)
    } catch {
      throw HTTPError("cannot keep a self-signed certificate in \(dir): \(error)")
    }
  }
}
