#if canImport(Network)
  import CryptoKit
  import Dispatch
  import Foundation
  import LabelKit
  import Network
  import Security
  import Synchronization

  /// A connection to labeld's web endpoint on Apple platforms: Network.framework's
  /// `NWConnection` (TCP, TLS 1.2 or later for `wss://`), made to look like the blocking
  /// byte stream the shared WebSocket codec runs on. The pin is checked in TLS's verify
  /// block, during the handshake: a certificate that is not the pinned one fails the
  /// connection before the token is written.
  ///
  /// Not built on Linux (no Apple toolchain runs there): only this adapter is Apple's; the
  /// codec, the handshake, the pin's comparison and the link above it are shared and
  /// tested on Linux.
  final class NetworkStream: ByteStream, @unchecked Sendable {
    private let connection: NWConnection
    private let queue = DispatchQueue(label: "labelkit.websocket")
    private let shared: Shared

    /// What the connection's callbacks and the one reader share.
    private final class Shared: @unchecked Sendable {
      struct State {
        var received: [UInt8] = []
        var ended = false
        var failure: String?
        var pinMismatch: String?
        var ready = false
      }
      let state = Mutex(State())
      /// Signalled when bytes arrive or the connection ends: the one reader waits on it.
      let arrived = DispatchSemaphore(value: 0)
      /// Signalled when the connection is ready or has failed.
      let opened = DispatchSemaphore(value: 0)
    }

    init(_ target: WebSocketTarget, pin: [UInt8]?, timeout: Double) throws(LabelError) {
      let shared = Shared()
      let tcp = NWProtocolTCP.Options()
      tcp.noDelay = true
      let parameters: NWParameters
      if target.secure {
        let tls = NWProtocolTLS.Options()
        sec_protocol_options_set_min_tls_protocol_version(tls.securityProtocolOptions, .TLSv12)
        if let pin {
          sec_protocol_options_set_verify_block(
            tls.securityProtocolOptions,
            { _, trust, complete in
              let secTrust = sec_trust_copy_ref(trust).takeRetainedValue()
              let chain = SecTrustCopyCertificateChain(secTrust) as? [SecCertificate]
              guard let leaf = chain?.first else { return complete(false) }
              let der = SecCertificateCopyData(leaf) as Data
              let seen = Array(SHA256.hash(data: der))
              if PinCheck.matches(seen, pin) {
                complete(true)
              } else {
                shared.state.withLock {
                  $0.pinMismatch = PinCheck.mismatch(seen: seen, pinned: pin)
                }
                complete(false)
              }
            }, DispatchQueue(label: "labelkit.websocket.verify"))
        }
        parameters = NWParameters(tls: tls, tcp: tcp)
      } else {
        parameters = NWParameters(tls: nil, tcp: tcp)
      }
      let port = NWEndpoint.Port(rawValue: target.port) ?? 443
      connection = NWConnection(host: NWEndpoint.Host(target.host), port: port, using: parameters)
      self.shared = shared
      connection.stateUpdateHandler = { update in
        switch update {
        case .ready:
          shared.state.withLock { $0.ready = true }
          shared.opened.signal()
        case .failed(let error), .waiting(let error):
          shared.state.withLock { s in
            if s.failure == nil { s.failure = "\(error)" }
            s.ended = true
          }
          shared.opened.signal()
          shared.arrived.signal()
        case .cancelled:
          shared.state.withLock { $0.ended = true }
          shared.opened.signal()
          shared.arrived.signal()
        default: break
        }
      }
      connection.start(queue: queue)
      let answered = shared.opened.wait(timeout: .now() + timeout) == .success
      let (ready, failure, mismatch) = shared.state.withLock {
        ($0.ready, $0.failure, $0.pinMismatch)
      }
      guard answered, ready else {
        connection.cancel()
        let where_ = "\(target.secure ? "wss" : "ws")://\(target.hostHeader)"
        if let mismatch { throw .certificateRejected("\(mismatch); the token was not sent") }
        throw .unreachable(
          Unreachable(remote: where_, detail: failure ?? "no connection within \(timeout) s"))
      }
      receive()
    }

    deinit { connection.cancel() }

    private func receive() {
      connection.receive(minimumIncompleteLength: 1, maximumLength: 65536) {
        [weak self, shared] data, _, complete, error in
        shared.state.withLock { s in
          if let data { s.received += data }
          if complete || error != nil { s.ended = true }
        }
        shared.arrived.signal()
        if !complete && error == nil { self?.receive() }
      }
    }

    func write(_ bytes: [UInt8]) throws(LabelError) {
      // The completion's outcome, read after the semaphore it signals (which orders the two).
      final class Outcome: @unchecked Sendable { var failed = false }
      let outcome = Outcome()
      let done = DispatchSemaphore(value: 0)
      connection.send(
        content: Data(bytes),
        completion: .contentProcessed { error in
          outcome.failed = error != nil
          done.signal()
        })
      done.wait()
      if outcome.failed { throw .connectionLost }
    }

    func read(timeout: Double?) throws(LabelError) -> [UInt8]? {
      let deadline = timeout.flatMap { $0.isFinite ? DispatchTime.now() + $0 : nil }
      while true {
        let (bytes, ended) = shared.state.withLock { s in
          defer { s.received = [] }
          return (s.received, s.ended)
        }
        if !bytes.isEmpty { return bytes }
        if ended { return [] }
        if let deadline {
          guard shared.arrived.wait(timeout: deadline) == .success else { return nil }
        } else {
          shared.arrived.wait()
        }
      }
    }

    func shutdown() {
      shared.state.withLock { $0.ended = true }
      shared.arrived.signal()
      connection.cancel()
    }
  }
#endif
