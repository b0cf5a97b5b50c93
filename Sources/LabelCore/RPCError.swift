/// The protocol's error codes (protocol v1, "Errors").
public enum RPCErrorCode: Int, Sendable, Codable, CaseIterable {
  case parseError = -32700
  case invalidRequest = -32600
  case methodNotFound = -32601
  case invalidParams = -32602
  case internalError = -32603
  case printerNotFound = 1001
  case printerNotAccepting = 1002
  case jobNotFound = 1003
  case saveFailed = 1004
  case notPermitted = 1005
  case notFound = 1006
  case unsupported = 1007
  case tooManyJobs = 1008
}

/// Which of the waiting queue's bounds a refused job met (error 1008's `bound`).
public enum QueueBound: String, Sendable, Codable, CaseIterable {
  /// Jobs not ended on the one printer.
  case printer
  /// Jobs not ended on all printers together.
  case total
  /// Bytes the documents of the jobs not ended hold together.
  case bytes
}

/// A request's failure as the client sees it: code, message and the code's `data` shape.
///
/// Every failure in the daemon becomes one of these through the constructors below, so the
/// mapping from domain errors to wire codes lives in this one file.
public struct RPCError: Error, Sendable, Equatable {
  public var code: Int
  public var message: String
  public var data: JSONValue?

  public init(code: Int, message: String, data: JSONValue? = nil) {
    self.code = code
    self.message = message
    self.data = data
  }

  public init(_ code: RPCErrorCode, _ message: String, data: JSONValue? = nil) {
    self.init(code: code.rawValue, message: message, data: data)
  }

  public var knownCode: RPCErrorCode? { RPCErrorCode(rawValue: code) }

  public static func parseError(_ detail: String) -> RPCError {
    RPCError(.parseError, "parse error: \(detail)")
  }
  public static func invalidRequest(_ detail: String) -> RPCError {
    RPCError(.invalidRequest, "invalid request: \(detail)")
  }
  /// A message longer than the connection's limit: the limit named in the message and in
  /// `data.limitBytes`, so a client can tell how much it may send without the docs.
  public static func messageTooLarge(limitBytes: Int) -> RPCError {
    RPCError(
      .invalidRequest, "message too large: the limit is \(limitBytes) bytes",
      data: ["limitBytes": .int(limitBytes)])
  }
  /// labeld addition: a request line past 64 KiB that did not end within the limit.
  public static func requestLineTimedOut(seconds: Double) -> RPCError {
    RPCError(
      .invalidRequest,
      "request line not completed: it passed 64 KiB and did not end within \(Int(seconds)) s")
  }
  public static func methodNotFound(_ method: String) -> RPCError {
    RPCError(.methodNotFound, "method not found: \(method)", data: ["method": .string(method)])
  }
  public static func invalidParams(_ e: FieldError) -> RPCError {
    RPCError(
      .invalidParams, "invalid params: \(e.field.isEmpty ? "params" : e.field) \(e.reason)",
      data: ["field": .string(e.field), "reason": .string(e.reason)])
  }
  public static func invalidParams(field: String, reason: String) -> RPCError {
    invalidParams(FieldError(field: field, reason: reason))
  }
  public static func internalError(_ detail: String) -> RPCError {
    RPCError(.internalError, "internal error: \(detail)")
  }
  public static func printerNotFound(_ printer: String) -> RPCError {
    RPCError(.printerNotFound, "printer not found: \(printer)", data: ["printer": .string(printer)])
  }
  public static func printerNotAccepting(_ printer: String, reason: String) -> RPCError {
    RPCError(
      .printerNotAccepting, "printer \(printer) is not accepting jobs: \(reason)",
      data: ["printer": .string(printer), "reason": .string(reason)])
  }
  public static func jobNotFound(_ job: Int) -> RPCError {
    RPCError(.jobNotFound, "job not found: \(job)", data: ["job": .int(job)])
  }
  /// `alert` is the SaveError alert as published on the channel (JSON object).
  public static func saveFailed(message: String, alert: JSONValue) -> RPCError {
    RPCError(.saveFailed, "save failed: \(message)", data: alert)
  }
  /// `token`: the name of the web token the caller signed in with, if it did.
  public static func notPermitted(uid: UInt32, token: String? = nil, _ detail: String) -> RPCError {
    var data: [String: JSONValue] = ["uid": .int(Int(uid))]
    if let token { data["token"] = .string(token) }
    return RPCError(.notPermitted, "not permitted: \(detail)", data: .object(data))
  }
  public static func notFound(entity: String, key: String) -> RPCError {
    RPCError(
      .notFound, "\(entity) not found: \(key)",
      data: ["entity": .string(entity), "key": .string(key)])
  }
  /// A printer whose language is not known can print native documents only; the message
  /// says how to pin its language.
  public static func unknownLanguage(_ printer: Printer) -> RPCError {
    var how = "send a native document"
    if printer.transport == .cups {
      how +=
        ", or pin the queue's language: labeld --cups-language \(printer.name)=LANGUAGE (\(PrinterLanguage.spokenList))"
    }
    return unsupported(
      "the language of \(printer.id) is not known (model \"\(printer.model)\"), so labeld cannot render for it; \(how)"
    )
  }

  /// 1008: the waiting queue is full at `bound` (`limit` allowed, `waiting` there now);
  /// nothing was stored. `printer` is named for a printer's own bound.
  public static func tooManyJobs(printer: String?, bound: QueueBound, limit: Int, waiting: Int)
    -> RPCError
  {
    var data: [String: JSONValue] = [
      "bound": .string(bound.rawValue), "limit": .int(limit), "waiting": .int(waiting),
    ]
    if let printer { data["printer"] = .string(printer) }
    let what: String
    switch bound {
    case .printer: what = "\(waiting) jobs wait for \(printer ?? "the printer") (at most \(limit))"
    case .total: what = "\(waiting) jobs wait on all printers together (at most \(limit))"
    case .bytes:
      what = "the waiting jobs' documents hold \(waiting) bytes (at most \(limit))"
    }
    return RPCError(
      .tooManyJobs, "too many jobs waiting: \(what); nothing was stored, try again later",
      data: .object(data))
  }

  public static func unsupported(_ reason: String) -> RPCError {
    RPCError(.unsupported, "unsupported: \(reason)", data: ["reason": .string(reason)])
  }
}

extension RPCError: Codable {
  private enum Keys: String, CodingKey { case code, message, data }
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    code = try c.decode(Int.self, forKey: .code)
    message = try c.decode(String.self, forKey: .message)
    data = try c.decodeIfPresent(JSONValue.self, forKey: .data)
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Keys.self)
    try c.encode(code, forKey: .code)
    try c.encode(message, forKey: .message)
    try c.encodeIfPresent(data, forKey: .data)
  }
}
