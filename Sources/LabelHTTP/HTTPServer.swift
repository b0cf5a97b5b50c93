import CHTTP
import Synchronization

/// A request whose headers are read, waiting for its one answer.
package struct HTTPRequest: Sendable {
  package var method: String
  /// The path, without the query.
  package var path: String
  package var authorization: String?
  package var origin: String?
  package var host: String?
  package var upgrade: String?
  package var connection: String?
  package var websocketKey: String?
  package var websocketVersion: String?
  package var secFetchSite: String?
  package var websocketProtocol: String?
  package var contentType: String?
  /// The declared body length; nil when none was declared (no body, or a chunked one).
  package var contentLength: Int?
  package var transferEncoding: String?
  /// How it is answered (and its body read).
  package let reply: HTTPReply

  fileprivate init(_ info: chttp_request_info, reply: HTTPReply) {
    func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
    method = text(info.method) ?? ""
    path = text(info.path) ?? ""
    authorization = text(info.authorization)
    origin = text(info.origin)
    host = text(info.host)
    upgrade = text(info.upgrade)
    connection = text(info.connection)
    websocketKey = text(info.websocket_key)
    websocketVersion = text(info.websocket_version)
    secFetchSite = text(info.sec_fetch_site)
    websocketProtocol = text(info.websocket_protocol)
    contentType = text(info.content_type)
    contentLength = text(info.content_length).flatMap { Int($0) }
    transferEncoding = text(info.transfer_encoding)
    self.reply = reply
  }

  /// Whether a body follows the headers (a declared length above zero, or chunks).
  package var hasBody: Bool {
    (contentLength ?? 0) > 0 || transferEncoding?.lowercased().contains("chunked") == true
  }
}

/// Where a request's body goes as it arrives, on the library's thread, in order: chunks,
/// then `ended` or, if the request ends first (the client left or timed out, or the server
/// stops), `abandoned`, once. A sink must not block: the library's one thread serves every
/// connection.
package protocol HTTPBodySink: AnyObject, Sendable {
  /// A chunk, valid for the call only.
  func receive(_ chunk: UnsafeRawBufferPointer)
  /// The body is complete.
  func ended()
  /// The request ended before its body did: nothing more comes, and its answer goes
  /// nowhere.
  func abandoned()
}

/// A suspended request's one answer. Owns the library's request until it answers; one
/// dropped unanswered answers 500, so no connection is ever left suspended.
package final class HTTPReply: Sendable {
  private let request: Mutex<Handle?>
  private let callbacks: HTTPCallbacks

  fileprivate init(_ request: OpaquePointer, callbacks: HTTPCallbacks) {
    self.request = Mutex(Handle(pointer: request))
    self.callbacks = callbacks
  }

  /// Reads the request's body into `sink` instead of answering now; answer once it has
  /// ended (or earlier, to refuse it: what the client still sends is dropped). False when
  /// it was answered already.
  @discardableResult
  package func readBody(into sink: any HTTPBodySink) -> Bool {
    request.withLock { r in
      guard let handle = r else { return false }
      let tag = callbacks.register(sink)
      guard chttp_read_body(handle.pointer, tag) != 0 else {
        callbacks.unregister(tag)
        return false
      }
      return true
    }
  }

  /// Answers with `status`, `headers` and `body` (nothing after the first answer).
  package func respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
    guard let handle = take() else { return }
    let lines = headers.map { "\($0.0): \($0.1)\n" }.joined()
    body.withUnsafeBytes { b in
      chttp_respond(
        handle.pointer, UInt32(clamping: status), lines.isEmpty ? nil : lines, b.baseAddress,
        b.count)
    }
  }

  /// Answers a WebSocket handshake with 101 (`protocol`: the subprotocol chosen); the
  /// socket then comes to the server's `onUpgrade` with `tag`.
  package func acceptWebSocket(accept: String, protocol: String?, tag: UInt64) {
    guard let handle = take() else { return }
    chttp_accept_websocket(handle.pointer, accept, `protocol`, tag)
  }

  private func take() -> Handle? {
    request.withLock { r in
      defer { r = nil }; return r
    }
  }

  deinit {
    if let handle = take() {
      chttp_respond(handle.pointer, 500, nil, nil, 0)
    }
  }
}

/// A WebSocket's socket after the handshake; `close` is the only way to close it (the
/// library may feed it through TLS from a socketpair).
package final class UpgradedSocket: Sendable {
  package let fd: Int32
  private let handle: Mutex<Handle?>

  fileprivate init(fd: Int32, handle: OpaquePointer) {
    self.fd = fd
    self.handle = Mutex(Handle(pointer: handle))
  }

  /// Closes it (once).
  package func close() {
    guard
      let h = handle.withLock({ h in
        defer { h = nil }; return h
      })
    else { return }
    chttp_close_upgraded(h.pointer, fd)
  }

  deinit { close() }
}

/// A pointer the library hands over, used under a lock or once.
private struct Handle: @unchecked Sendable {
  let pointer: OpaquePointer
}

/// libmicrohttpd serving one listening socket on a thread of its own: every request goes to
/// `onRequest` once its headers are read; a WebSocket accepted goes to `onUpgrade`.
package final class HTTPServer: Sendable {
  package struct Limits: Sendable, Equatable {
    /// Connections at once, HTTP and WebSocket alike (libmicrohttpd keeps counting a
    /// connection after its upgrade): with `headerBytes` each, what a flood of slow
    /// requests can hold is bounded (32 MiB).
    package var connections: Int = 2048
    /// A request's headers must fit in this (a header flood ends there: 431 or a close).
    package var headerBytes: Int = 16 * 1024
    /// An HTTP connection idle this long is closed.
    package var idleSeconds: Int = 30
    package init() {}
  }

  package typealias RequestHandler = @Sendable (HTTPRequest) -> Void
  /// The tag given to `acceptWebSocket`, the socket, and the bytes the client sent before
  /// the handshake was answered (RFC 6455 §4.1 forbids any).
  package typealias UpgradeHandler = @Sendable (UInt64, UpgradedSocket, Int) -> Void

  private let server: Mutex<Handle?>
  private let callbacks: HTTPCallbacks

  /// Serves on `listenFD` (bound and listening; not closed by the server), TLS when `tls`
  /// (with what `TLSCredentials.install` was given).
  package init(
    listenFD: Int32, tls: Bool, limits: Limits = Limits(),
    onRequest: @escaping RequestHandler,
    onUpgrade: @escaping UpgradeHandler = { _, socket, _ in
      socket.close()
    }
  ) throws(HTTPError) {
    try HTTPLibraries.require()
    let callbacks = HTTPCallbacks(onRequest: onRequest, onUpgrade: onUpgrade)
    var options = chttp_options(
      listen_fd: listenFD, tls: tls ? 1 : 0, connection_limit: UInt32(clamping: limits.connections),
      memory_limit: limits.headerBytes, timeout_seconds: UInt32(clamping: limits.idleSeconds))
    var error = [CChar](repeating: 0, count: 256)
    let context = Unmanaged.passUnretained(callbacks).toOpaque()
    let started = error.withUnsafeMutableBufferPointer { e in
      chttp_start(&options, onRequestC, onUpgradeC, onBodyC, context, e.baseAddress, e.count)
    }
    guard let started else {
      throw HTTPError(
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    self.callbacks = callbacks
    self.server = Mutex(Handle(pointer: started))
  }

  /// Stops serving (once). Every upgraded socket must be closed first.
  package func stop() {
    guard
      let h = server.withLock({ s in
        defer { s = nil }; return s
      })
    else { return }
    chttp_stop(h.pointer)
  }

  /// Bodies being read whose sinks have not heard their end (for tests: none may stay).
  package var openSinks: Int { callbacks.openSinks }

  deinit { stop() }
}

/// What the C callbacks reach through their context pointer (the server keeps it alive),
/// and the sinks of the bodies being read, by tag.
private final class HTTPCallbacks: Sendable {
  let onRequest: HTTPServer.RequestHandler
  let onUpgrade: HTTPServer.UpgradeHandler
  private let sinks = Mutex<[UInt64: any HTTPBodySink]>([:])
  private let nextTag = Atomic<UInt64>(1)

  init(
    onRequest: @escaping HTTPServer.RequestHandler, onUpgrade: @escaping HTTPServer.UpgradeHandler
  ) {
    self.onRequest = onRequest
    self.onUpgrade = onUpgrade
  }

  func register(_ sink: any HTTPBodySink) -> UInt64 {
    let tag = nextTag.add(1, ordering: .relaxed).oldValue
    sinks.withLock { $0[tag] = sink }
    return tag
  }

  func unregister(_ tag: UInt64) { _ = sinks.withLock { $0.removeValue(forKey: tag) } }

  var openSinks: Int { sinks.withLock { $0.count } }

  /// The sink of `tag`; taken out of the table when the body is over.
  func sink(_ tag: UInt64, last: Bool) -> (any HTTPBodySink)? {
    sinks.withLock { last ? $0.removeValue(forKey: tag) : $0[tag] }
  }
}

private let onRequestC: chttp_request_fn = { context, request, info in
  guard let context, let request, let info else { return }
  let callbacks = Unmanaged<HTTPCallbacks>.fromOpaque(context).takeUnretainedValue()
  callbacks.onRequest(HTTPRequest(info.pointee, reply: HTTPReply(request, callbacks: callbacks)))
}

private let onBodyC: chttp_body_fn = { context, tag, data, size, ended in
  guard let context else { return }
  let callbacks = Unmanaged<HTTPCallbacks>.fromOpaque(context).takeUnretainedValue()
  guard let sink = callbacks.sink(tag, last: ended != 0) else { return }
  switch ended {
  case 0: sink.receive(UnsafeRawBufferPointer(start: data, count: size))
  case 1: sink.ended()
  default: sink.abandoned()
  }
}

private let onUpgradeC: chttp_upgrade_fn = { context, tag, fd, handle, early in
  guard let context, let handle else { return }
  let callbacks = Unmanaged<HTTPCallbacks>.fromOpaque(context).takeUnretainedValue()
  callbacks.onUpgrade(tag, UpgradedSocket(fd: fd, handle: handle), early)
}
