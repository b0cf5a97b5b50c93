import Dispatch
import Foundation
import LabelKit
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(CryptoKit) && canImport(Security)
  import CryptoKit
  import Security
#endif

extension LabeldRoute {
  /// labeld's web endpoint (`labeld --listen-http`): protocol v1 over a WebSocket at
  /// `url` (`wss://labels.local:8443/v1/ws`), signed in with `token` (`labelctl tokens
  /// create`). With `pinnedSHA256` (the fingerprint labeld logs for its certificate, hex,
  /// colons allowed), the server's certificate must be that one, whatever signed it; the
  /// token is sent only after the check. Without it the system's trust decides.
  ///
  /// Through `URLSessionWebSocketTask`: on Apple platforms; on Linux only where
  /// Foundation's libcurl speaks WebSocket (Debian 12's does not: connecting then fails
  /// with that reason). Pinning needs Apple's Security framework; elsewhere a pinned
  /// route refuses to connect rather than trust blindly.
  public static func webSocket(url: URL, token: String, pinnedSHA256: String? = nil)
    -> LabeldRoute
  {
    let pin = pinnedSHA256.map(WebSocketLink.normalized)
    return LabeldRoute(description: url.absoluteString) { () throws(LabelError) in
      try WebSocketLink(url: url, token: token, pin: pin)
    }
  }
}

/// One WebSocket to labeld as a `MessageLink`: each text message is one protocol message.
/// Messages arrive through the task's callbacks into an inbox the one reader takes from.
final class WebSocketLink: MessageLink, @unchecked Sendable {
  private let task: URLSessionWebSocketTask
  private let session: URLSession
  private let inbox: Inbox

  /// Hex digits only, lower case: how a pin is compared.
  static func normalized(_ fingerprint: String) -> String {
    String(fingerprint.lowercased().filter { $0.isHexDigit })
  }

  init(url: URL, token: String, pin: String?) throws(LabelError) {
    let inbox = Inbox()
    let delegate = Delegate(pin: pin, inbox: inbox)
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    var request = URLRequest(url: url, timeoutInterval: 30)
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    request.setValue("labeld.v1", forHTTPHeaderField: "Sec-WebSocket-Protocol")
    let task = session.webSocketTask(with: request)
    self.task = task
    self.session = session
    self.inbox = inbox
    task.resume()
    // The handshake (and a pin's check) first: a route that cannot open says why now.
    guard inbox.opened.wait(timeout: .now() + 30) == .success, inbox.failure == nil else {
      session.invalidateAndCancel()
      throw .unreachable(
        Unreachable(
          remote: url.absoluteString,
          detail: inbox.failure ?? "no answer to the WebSocket handshake within 30 s"))
    }
    receive()
  }

  deinit { shutdown() }

  private func receive() {
    task.receive { [inbox, weak self] result in
      switch result {
      case .success(.string(let text)):
        inbox.push(Array(text.utf8))
        self?.receive()
      case .success:
        inbox.end("labeld sent a binary message")
      case .failure(let error):
        inbox.end(error.localizedDescription)
      }
    }
  }

  func send(_ line: [UInt8]) throws(LabelError) {
    if inbox.hasEnded { throw .connectionLost }
    let text = String(decoding: line.last == 0x0A ? line.dropLast() : line[...], as: UTF8.self)
    // Sent in order by the task; a failure ends the connection, which the reader sees.
    task.send(.string(text)) { [inbox] error in
      if let error { inbox.end(error.localizedDescription) }
    }
  }

  func readLines(timeout: Double?) throws(LabelError) -> [[UInt8]] {
    let deadline = timeout.flatMap { $0.isFinite ? DispatchTime.now() + $0 : nil }
    while true {
      let lines = inbox.takeAll()
      if !lines.isEmpty { return lines }
      if inbox.hasEnded { throw .connectionLost }
      if let deadline {
        guard inbox.arrived.wait(timeout: deadline) == .success else { throw .timeout }
      } else {
        inbox.arrived.wait()
      }
    }
  }

  func readAvailable(waiting: Duration) throws(LabelError) -> [[UInt8]] {
    var lines = inbox.takeAll()
    if lines.isEmpty && !inbox.hasEnded {
      let (seconds, attoseconds) = waiting.components
      let nanoseconds = Int(min(seconds, 86_400)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
      _ = inbox.arrived.wait(timeout: .now() + .nanoseconds(nanoseconds))
      lines = inbox.takeAll()
    }
    if lines.isEmpty && inbox.hasEnded { throw .connectionLost }
    return lines
  }

  func shutdown() {
    inbox.end("closed")
    task.cancel(with: .normalClosure, reason: nil)
    session.invalidateAndCancel()
  }
}

/// What the callbacks hand the reader: messages in order, the end, and the handshake.
private final class Inbox: @unchecked Sendable {
  private struct State {
    var lines: [[UInt8]] = []
    var ended: String?
    var failure: String?
    var opened = false
  }
  private let state = Mutex(State())
  /// Signalled once per message (and at the end): the one reader waits on it.
  let arrived = DispatchSemaphore(value: 0)
  /// Signalled when the handshake is answered or fails.
  let opened = DispatchSemaphore(value: 0)

  func push(_ line: [UInt8]) {
    state.withLock { $0.lines.append(line) }
    arrived.signal()
  }

  func takeAll() -> [[UInt8]] {
    state.withLock { s in
      defer { s.lines = [] }; return s.lines
    }
  }

  var hasEnded: Bool { state.withLock { $0.ended != nil } }
  var failure: String? { state.withLock { $0.failure } }

  func end(_ why: String) {
    let first = state.withLock { s -> Bool in
      guard s.ended == nil else { return false }
      s.ended = why
      if !s.opened { s.failure = why }
      return true
    }
    guard first else { return }
    arrived.signal()
    opened.signal()
  }

  func didOpen() {
    state.withLock { $0.opened = true }
    opened.signal()
  }
}

/// The session's delegate: the handshake's outcome, and the certificate pin.
private final class Delegate: NSObject, URLSessionWebSocketDelegate, @unchecked Sendable {
  let pin: String?
  let inbox: Inbox

  init(pin: String?, inbox: Inbox) {
    self.pin = pin
    self.inbox = inbox
  }

  func urlSession(
    _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
    didOpenWithProtocol protocol: String?
  ) {
    inbox.didOpen()
  }

  func urlSession(
    _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
    didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
  ) {
    inbox.end("labeld closed the connection (\(closeCode.rawValue))")
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    inbox.end(error?.localizedDescription ?? "the connection ended")
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    decide(challenge, completionHandler)
  }

  func urlSession(
    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    decide(challenge, completionHandler)
  }

  /// Without a pin, the system's trust; with one, the leaf certificate's SHA-256 (RFC 6234
  /// of its DER) must equal it, and nothing else is asked.
  private func decide(
    _ challenge: URLAuthenticationChallenge,
    _ completion: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    guard let pin else {
      completion(.performDefaultHandling, nil)
      return
    }
    #if canImport(CryptoKit) && canImport(Security)
      guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
        let trust = challenge.protectionSpace.serverTrust,
        let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate],
        let leaf = chain.first
      else {
        completion(.cancelAuthenticationChallenge, nil)
        return
      }
      let der = SecCertificateCopyData(leaf) as Data
      let hex = SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined()
      if hex == pin {
        completion(.useCredential, URLCredential(trust: trust))
      } else {
        inbox.end("the server's certificate is not the pinned one; the token was not sent")
        completion(.cancelAuthenticationChallenge, nil)
      }
    #else
      inbox.end("certificate pinning needs Apple's Security framework; not connecting")
      completion(.cancelAuthenticationChallenge, nil)
    #endif
  }
}
