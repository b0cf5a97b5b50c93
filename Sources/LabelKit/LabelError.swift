import LabelCore
import LabelWire

/// Why a call to labeld did not give a result: the daemon's answer, one case per protocol
/// error code (`init(_:)` is the one table from codes to cases), or what happened to the
/// connection.
public enum LabelError: Error, Sendable, Equatable, CustomStringConvertible {
  /// -32700: the daemon could not parse what was sent.
  case parseError(message: String)
  /// -32600: not a JSON-RPC request, or too large.
  case invalidRequest(message: String)
  /// -32601: the daemon has no such method.
  case methodNotFound(method: String)
  /// -32602: a field of the params is missing or wrong (`field` is a path such as
  /// `product.barcode`; `reason` says what is wrong). Raises no alert.
  case invalidParams(field: String, reason: String, message: String)
  /// -32603: a bug in labeld.
  case internalError(message: String)
  /// 1001.
  case printerNotFound(printer: String)
  /// 1002: the printer takes no jobs at all (a printer with a fault still does).
  case printerNotAccepting(printer: String, reason: String)
  /// 1003.
  case jobNotFound(job: Int)
  /// 1004: valid data could not be kept; the same saveError is on the alert channel.
  case saveFailed(FailedSave)
  /// 1005: not allowed for this caller (`uid`).
  case notPermitted(uid: Int, message: String)
  /// 1006: no such product or template.
  case notFound(entity: String, key: String)
  /// 1007: e.g. this printer's language cannot print that document.
  case unsupported(reason: String)
  /// 1008: the waiting queue is full at `bound` (`limit` allowed, `waiting` now; `printer`
  /// named for a printer's own bound). Nothing was stored: try again once jobs have printed.
  case tooManyJobs(printer: String?, bound: QueueBound, limit: Int, waiting: Int)
  /// A code this kit does not know (a newer daemon).
  case rpc(RPCError)
  /// labeld cannot be reached (not running, or this user may not open its socket).
  case unreachable(Unreachable)
  /// The connection dropped before the answer came: the request may or may not have run
  /// (check with a get or list before doing it again).
  case connectionLost
  /// No answer within the call's timeout.
  case timeout
  /// The calling task was cancelled before the answer came (the request may have run).
  case cancelled
  /// What came back is not protocol v1 (or, over a WebSocket, not RFC 6455). No retry
  /// mends it: an alert stream ends with it.
  case protocolViolation(String)
  /// labeld's web endpoint refused the token: unknown, revoked (the connection is closed
  /// then, and the next handshake answered 401), or not allowed from here (403). No retry
  /// mends it: an alert stream ends with it; sign in again with a good token.
  case unauthorized(String)
  /// The server's TLS certificate is not the pinned one (or, without a pin, not trusted
  /// for the host): refused before the token was sent. An alert stream ends with it.
  case certificateRejected(String)
  /// The route can never work here: not a `ws://` or `wss://` URL, a pin over `ws://`, a
  /// pin that is not a SHA-256. An alert stream ends with it.
  case transportUnsupported(String)
  /// A stored alert position (`AlertPositionStore`) that cannot be read: never taken for
  /// a fresh start, which would hand out again what was handled.
  case storedPosition(String)

  /// The one table from the protocol's error codes to cases.
  public init(_ error: RPCError) {
    let data = error.data
    let text = { (key: String) in data?[key]?.stringValue ?? "" }
    switch error.knownCode {
    case .parseError: self = .parseError(message: error.message)
    case .invalidRequest: self = .invalidRequest(message: error.message)
    case .methodNotFound: self = .methodNotFound(method: text("method"))
    case .invalidParams:
      self = .invalidParams(field: text("field"), reason: text("reason"), message: error.message)
    case .internalError: self = .internalError(message: error.message)
    case .printerNotFound: self = .printerNotFound(printer: text("printer"))
    case .printerNotAccepting:
      self = .printerNotAccepting(printer: text("printer"), reason: text("reason"))
    case .jobNotFound: self = .jobNotFound(job: data?["job"]?.intValue ?? 0)
    case .saveFailed:
      guard let data, let failure = FailedSave(message: error.message, alert: data) else {
        self = .rpc(error)
        return
      }
      self = .saveFailed(failure)
    case .notPermitted:
      self = .notPermitted(uid: data?["uid"]?.intValue ?? -1, message: error.message)
    case .notFound: self = .notFound(entity: text("entity"), key: text("key"))
    case .unsupported: self = .unsupported(reason: text("reason"))
    case .tooManyJobs:
      guard let bound = data?["bound"]?.stringValue.flatMap(QueueBound.init(rawValue:)) else {
        self = .rpc(error)
        return
      }
      self = .tooManyJobs(
        printer: data?["printer"]?.stringValue, bound: bound,
        limit: data?["limit"]?.intValue ?? 0, waiting: data?["waiting"]?.intValue ?? 0)
    case nil: self = .rpc(error)
    }
  }

  /// The protocol's error code, for an answer of the daemon.
  public var code: Int? {
    switch self {
    case .parseError: RPCErrorCode.parseError.rawValue
    case .invalidRequest: RPCErrorCode.invalidRequest.rawValue
    case .methodNotFound: RPCErrorCode.methodNotFound.rawValue
    case .invalidParams: RPCErrorCode.invalidParams.rawValue
    case .internalError: RPCErrorCode.internalError.rawValue
    case .printerNotFound: RPCErrorCode.printerNotFound.rawValue
    case .printerNotAccepting: RPCErrorCode.printerNotAccepting.rawValue
    case .jobNotFound: RPCErrorCode.jobNotFound.rawValue
    case .saveFailed: RPCErrorCode.saveFailed.rawValue
    case .notPermitted: RPCErrorCode.notPermitted.rawValue
    case .notFound: RPCErrorCode.notFound.rawValue
    case .unsupported: RPCErrorCode.unsupported.rawValue
    case .tooManyJobs: RPCErrorCode.tooManyJobs.rawValue
    case .rpc(let e): e.code
    case .unreachable, .connectionLost, .timeout, .cancelled, .protocolViolation, .storedPosition,
      .unauthorized, .certificateRejected, .transportUnsupported:
      nil
    }
  }

  public var description: String {
    switch self {
    case .parseError(let m), .invalidRequest(let m), .internalError(let m): m
    case .methodNotFound(let method): "method not found: \(method)"
    case .invalidParams(_, _, let message): message
    case .printerNotFound(let p): "printer not found: \(p)"
    case .printerNotAccepting(let p, let reason): "printer \(p) is not accepting jobs: \(reason)"
    case .jobNotFound(let job): "job not found: \(job)"
    case .saveFailed(let failure): "save failed: \(failure.alert.alert.message)"
    case .notPermitted(_, let message): message
    case .notFound(let entity, let key): "\(entity) not found: \(key)"
    case .unsupported(let reason): "unsupported: \(reason)"
    case .tooManyJobs(let printer, let bound, let limit, let waiting):
      switch bound {
      case .printer:
        "too many jobs waiting: \(waiting) for \(printer ?? "the printer") (at most \(limit)); try again later"
      case .total:
        "too many jobs waiting: \(waiting) on all printers (at most \(limit)); try again later"
      case .bytes:
        "too many jobs waiting: their documents hold \(waiting) bytes (at most \(limit)); try again later"
      }
    case .rpc(let e): e.message
    case .unreachable(let u): u.description
    case .connectionLost:
      "the connection to labeld was lost before it answered; the request may or may not have run"
    case .timeout: "labeld did not answer in time"
    case .cancelled: "the call was cancelled before labeld answered"
    case .protocolViolation(let detail): "unexpected reply from labeld: \(detail)"
    case .storedPosition(let detail): "the stored alert position cannot be read: \(detail)"
    case .unauthorized(let detail): detail
    case .certificateRejected(let detail): "labeld's certificate was refused: \(detail)"
    case .transportUnsupported(let detail): "this route to labeld cannot work: \(detail)"
    }
  }

  /// Whether no retry can mend it: an alert stream and `AlertQueue.run` end with it
  /// (a permission, a refused token or certificate, a route that cannot work, a peer that
  /// does not speak the protocol, a stored position that cannot be read). Anything else
  /// (labeld restarting, a dropped connection) a stream retries.
  public var isLasting: Bool {
    switch self {
    case .unreachable(let u): u.isLasting
    case .protocolViolation, .storedPosition, .unauthorized, .certificateRejected,
      .transportUnsupported:
      true
    default: false
    }
  }
}

/// A failed save (error 1004): the saveError alert it raised on the channel, with its seq.
public struct FailedSave: Sendable, Equatable {
  /// The alert as published on the channel (`kind` saveError, `state` active).
  public var alert: AlertEvent
  /// The daemon's error message.
  public var message: String

  public var details: SaveErrorDetails {
    guard case .saveError(let d) = alert.alert else {
      preconditionFailure("FailedSave holds a saveError by construction")
    }
    return d
  }
  public var reason: SaveReason { details.reason }
  /// For a `conflict`: the version the save expected, and the one stored (0: none). Nil
  /// from a daemon that does not say.
  public var expectedVersion: Int? { details.expectedVersion }
  public var storedVersion: Int? { details.storedVersion }

  init(alert: AlertEvent, message: String = "save failed") {
    self.alert = alert
    self.message = message
  }

  /// Nil when `alert` is not a saveError event.
  init?(message: String, alert: JSONValue) {
    guard let event = try? LabelJSON.decode(AlertEvent.self, from: alert),
      case .saveError = event.alert
    else { return nil }
    self.alert = event
    self.message = message
  }
}

/// Why labeld could not be reached, in words a user can act on.
public struct Unreachable: Sendable, Equatable, CustomStringConvertible {
  /// Whether waiting can mend it: labeld may come back; a missing permission does not
  /// come by itself (a new group takes a new login).
  public var isLasting: Bool {
    if case .permissionDenied = cause { return true }
    return false
  }

  public enum Cause: Sendable, Equatable {
    /// Nothing listens at the path (no socket file, or no daemon behind it).
    case notRunning
    /// This user may not open the socket: `group` (its owning group) grants access.
    case permissionDenied(group: String?, mode: UInt32?)
    /// Anything else (`errno`).
    case other(errno: Int32)
  }

  public var path: String
  public var cause: Cause
  /// The system's words for it ("No such file or directory").
  public var detail: String

  /// A web endpoint that could not be reached or refused the handshake: `detail` says why.
  package init(remote url: String, detail: String) {
    path = url
    self.detail = detail
    cause = .other(errno: 0)
  }

  init(path: String, errno: Int32, detail: String) {
    self.path = path
    self.detail = detail
    if OS.meansNotRunning(errno) {
      cause = .notRunning
    } else if OS.meansPermission(errno) {
      let owner = OS.owner(of: path)
      cause = .permissionDenied(group: owner?.group, mode: owner?.mode)
    } else {
      cause = .other(errno: errno)
    }
  }

  public var description: String {
    switch cause {
    case .notRunning:
      return "cannot reach labeld at \(path): \(detail): labeld is not running there (start "
        + "it with 'systemctl start labeld', or 'make run' in a clone)"
    case .permissionDenied(let group, let mode):
      let modeText = mode.map { "mode 0" + String($0, radix: 8) } ?? "mode unknown"
      guard let group else {
        return "permission denied for labeld's socket \(path): this user may not open it "
          + "or a directory on its path"
      }
      return "permission denied for labeld's socket \(path) (\(modeText), group \(group)): "
        + "this user is not in group \(group); add it with 'sudo usermod -aG \(group) $USER' "
        + "and log in again"
    case .other:
      return "cannot reach labeld at \(path): \(detail)"
    }
  }
}
