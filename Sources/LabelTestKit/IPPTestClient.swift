import Foundation
import LabelCUPS
import LabelPOSIX

/// An IPP client for tests: messages written by libcups (`IPPCodec`), posted over plain
/// HTTP/1.1 on a TCP connection of its own, the answer's status line and IPP read back.
/// Blocking, every wait bounded: use it off the cooperative pool.
package struct IPPTestClient {
  package let port: Int
  /// HTTP Basic credentials (a user, and a token as password).
  package var credentials: (user: String, password: String)?

  package init(port: Int, credentials: (user: String, password: String)? = nil) {
    self.port = port
    self.credentials = credentials
  }

  /// An answer: the HTTP status, and the IPP message when it is one.
  package struct Answer {
    package var http: Int
    package var headers: String
    package var message: IPPMessage?
    package var status: Int { message?.code ?? -1 }

    /// `name` in the first group tagged `tag`.
    package func attribute(_ name: String, in tag: IPPGroupTag = .printer) -> IPPAttribute? {
      message?.groups.first { $0.tag == tag }?[name]
    }

    /// Every group tagged `tag` (one per job in Get-Jobs).
    package func groups(_ tag: IPPGroupTag) -> [IPPAttributeGroup] {
      message?.groups.filter { $0.tag == tag } ?? []
    }
  }

  /// A request for `operation` to `printer`, with the charset, language, printer-uri and
  /// requesting-user-name first, then `operation` attributes and a job group.
  package static func request(
    _ operation: Int, printer: String, port: Int, id: Int32 = 1,
    operationAttributes: [IPPAttribute] = [], job: [IPPAttribute] = [], user: String = "tester"
  ) -> IPPMessage {
    var groups = [
      IPPAttributeGroup(
        .operation,
        [
          IPPAttribute("attributes-charset", .charset("utf-8")),
          IPPAttribute("attributes-natural-language", .naturalLanguage("en")),
          IPPAttribute("printer-uri", .uri("ipp://127.0.0.1:\(port)/ipp/print/\(printer)")),
          IPPAttribute("requesting-user-name", .name(user)),
        ] + operationAttributes)
    ]
    if !job.isEmpty { groups.append(IPPAttributeGroup(.job, job)) }
    return IPPMessage(major: 2, minor: 0, code: operation, requestID: id, groups: groups)
  }

  /// Posts `message` and `document` to `/ipp/print/PRINTER` (or `path`).
  package func send(
    _ message: IPPMessage, document: [UInt8] = [], path: String? = nil, timeoutMS: Int32 = 60_000
  ) throws -> Answer {
    try post(
      try IPPCodec.encode(message) + document, path: path ?? Self.path(of: message),
      timeoutMS: timeoutMS)
  }

  /// Posts raw bytes as an IPP request.
  package func post(_ body: [UInt8], path: String, timeoutMS: Int32 = 60_000) throws -> Answer {
    var head =
      "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/ipp\r\n"
    head += "Content-Length: \(body.count)\r\nConnection: close\r\n"
    if let credentials {
      let pair = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
      head += "Authorization: Basic \(pair)\r\n"
    }
    let c = try TCPConnection.connect(host: "127.0.0.1", port: port, timeoutMS: 10_000)
    try c.write(Array((head + "\r\n").utf8) + body, timeoutMS: timeoutMS, cancelled: { false })
    var got: [UInt8] = []
    while true {
      let more: [UInt8]
      do {
        more = try c.read(maxLength: 65536, timeoutMS: timeoutMS)
      } catch {
        break  // closed: the answer is whole
      }
      if more.isEmpty { throw HarnessError.failed("no whole answer within \(timeoutMS) ms") }
      got += more
      if let end = got.firstRange(of: [13, 10, 13, 10]) {
        let header = String(decoding: got[..<end.lowerBound], as: UTF8.self)
        if let length = Self.contentLength(header), got.count - end.upperBound >= length { break }
      }
    }
    guard let end = got.firstRange(of: [13, 10, 13, 10]) else {
      throw HarnessError.failed("no HTTP answer: \(String(decoding: got, as: UTF8.self))")
    }
    let header = String(decoding: got[..<end.lowerBound], as: UTF8.self)
    let status = Int(header.split(separator: " ").dropFirst().first ?? "") ?? 0
    let body = got[end.upperBound...]
    let message = body.isEmpty ? nil : try? IPPCodec.decode(body)
    return Answer(http: status, headers: header, message: message)
  }

  static func contentLength(_ header: String) -> Int? {
    for line in header.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:")
    {
      return Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
    }
    return nil
  }

  static func path(of message: IPPMessage) -> String {
    guard let uri = message.operation("printer-uri")?.string,
      let start = uri.range(of: "/ipp/print")
    else { return "/ipp/print" }
    return String(uri[start.lowerBound...])
  }
}
