#if !canImport(Network)
  #if canImport(Glibc)
    @preconcurrency import Glibc
  #elseif canImport(Musl)
    @preconcurrency import Musl
  #endif
  import CGnuTLS
  import LabelKit
  import Synchronization

  /// A TCP connection to labeld's web endpoint on Linux, TLS through GnuTLS (`CGnuTLS`,
  /// loaded on first use). The one owner of its socket and its TLS session.
  final class POSIXStream: ByteStream, @unchecked Sendable {
    private let fd: Int32
    /// The TLS session, nil for `ws://`; freed in `deinit`, after every read and write.
    private let session: OpaquePointer?
    private let closed = Atomic<Bool>(false)
    private var chunk = [UInt8](repeating: 0, count: 65536)

    /// Connects to `target` within `timeout` seconds; for `wss://`, the TLS handshake
    /// checks the certificate (`pin`: its SHA-256, 32 bytes; else the system's trust)
    /// before this returns, so nothing is sent to a server that failed the check.
    init(_ target: WebSocketTarget, pin: [UInt8]?, timeout: Double) throws(LabelError) {
      let where_ = "\(target.secure ? "wss" : "ws")://\(target.hostHeader)"
      let fd: Int32
      switch TCP.connect(host: target.host, port: target.port, timeout: timeout) {
      case .success(let socket): fd = socket
      case .failure(let why): throw .unreachable(Unreachable(remote: where_, detail: why.text))
      }
      self.fd = fd
      guard target.secure else {
        session = nil
        return
      }
      var outcome: Int32 = 0
      var error = [CChar](repeating: 0, count: 512)
      let opened: OpaquePointer? = error.withUnsafeMutableBufferPointer { e in
        if let pin {
          pin.withUnsafeBufferPointer { p in
            cgnutls_connect(
              fd, target.host, p.baseAddress, UInt32(timeout * 1000), &outcome, e.baseAddress,
              e.count)
          }
        } else {
          cgnutls_connect(
            fd, target.host, nil, UInt32(timeout * 1000), &outcome, e.baseAddress, e.count)
        }
      }
      guard let opened else {
        _ = Glibc.close(fd)
        let why = String(
          decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(outcome) {
        case Int(CGNUTLS_PIN_MISMATCH), Int(CGNUTLS_UNTRUSTED):
          throw .certificateRejected("\(why); the token was not sent")
        default:
          throw .unreachable(Unreachable(remote: where_, detail: why))
        }
      }
      session = opened
    }

    deinit {
      if let session { cgnutls_free(session) }
      _ = Glibc.close(fd)
    }

    func write(_ bytes: [UInt8]) throws(LabelError) {
      if closed.load(ordering: .acquiring) { throw .connectionLost }
      let ok = bytes.withUnsafeBytes { raw -> Bool in
        if let session { return cgnutls_send(session, raw.baseAddress, raw.count) == 0 }
        var offset = 0
        while offset < raw.count {
          let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
          let n = send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
          if n > 0 {
            offset += n
          } else if n < 0 && errno == EINTR {
            continue
          } else {
            return false
          }
        }
        return true
      }
      guard ok else { throw .connectionLost }
    }

    func read(timeout: Double?) throws(LabelError) -> [UInt8]? {
      if closed.load(ordering: .acquiring) { return [] }
      let milliseconds = timeout.map { $0.isFinite ? max(1, min($0, 86_400) * 1000) : 0 } ?? 0
      let count: Int = chunk.withUnsafeMutableBytes { buffer in
        if let session {
          return cgnutls_recv(session, buffer.baseAddress, buffer.count, UInt32(milliseconds))
        }
        if milliseconds > 0 {
          var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
          while true {
            let r = poll(&entry, 1, Int32(milliseconds))
            if r == 0 { return -2 }
            if r > 0 || errno != EINTR { break }
          }
        }
        while true {
          let n = recv(fd, buffer.baseAddress, buffer.count, 0)
          if n >= 0 || errno != EINTR { return n }
        }
      }
      switch count {
      case -2: return nil
      case ..<0: throw .connectionLost
      default: return Array(chunk[0..<count])
      }
    }

    func shutdown() {
      if closed.exchange(true, ordering: .acquiringAndReleasing) { return }
      _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }
  }

  /// TCP connections: every address the name resolves to, in turn, each within the
  /// time left.
  enum TCP {
    /// Why a connection could not be made, in words.
    struct Failure: Error {
      var text: String
      init(_ text: String) { self.text = text }
    }

    static func connect(host: String, port: UInt16, timeout: Double) -> Result<Int32, TCP.Failure> {
      var hints = addrinfo()
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
      hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
      var list: UnsafeMutablePointer<addrinfo>?
      let rc = getaddrinfo(host, String(port), &hints, &list)
      guard rc == 0, let first = list else {
        return .failure(Failure("cannot resolve \(host): \(String(cString: gai_strerror(rc)))"))
      }
      defer { freeaddrinfo(list) }
      let deadline = Clock.now + Double(max(timeout, 0.001))
      var last = Failure("no address for \(host)")
      var entry: UnsafeMutablePointer<addrinfo>? = first
      while let info = entry?.pointee {
        entry = info.ai_next
        switch attempt(info, until: deadline) {
        case .success(let fd): return .success(fd)
        case .failure(let why): last = why
        }
      }
      return .failure(Failure("cannot connect to \(host) port \(port): \(last.text)"))
    }

    private static func attempt(_ info: addrinfo, until deadline: Double) -> Result<
      Int32, TCP.Failure
    > {
      let fd = socket(
        info.ai_family,
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
          | Int32(SOCK_NONBLOCK.rawValue), info.ai_protocol)
      guard fd >= 0 else { return .failure(Failure(String(cString: strerror(errno)))) }
      var code: Int32 = 0
      if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
        code = errno
        if code == EINPROGRESS {
          var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
          while true {
            let left = Int32(max(0, min((deadline - Clock.now) * 1000, 86_400_000)))
            let r = poll(&entry, 1, left)
            if r < 0 && errno == EINTR { continue }
            if r == 0 {
              _ = Glibc.close(fd)
              return .failure(Failure("no answer in time"))
            }
            break
          }
          var length = socklen_t(MemoryLayout<Int32>.size)
          _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
        }
      }
      guard code == 0 else {
        _ = Glibc.close(fd)
        return .failure(Failure(String(cString: strerror(code))))
      }
      // Blocking from now on (reads wait through poll or GnuTLS's timeout); small
      // messages leave at once.
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~Int32(O_NONBLOCK))
      var on: Int32 = 1
      _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
      return .success(fd)
    }
  }

#endif
