import LabelCUPS
import LabelHTTP
import Synchronization

/// One IPP request's body as it arrives (on libmicrohttpd's thread): held within the
/// request's limit and the bytes all requests may hold together; its attributes framed as
/// they come, read by libcups once whole, and checked before the document is waited for
/// (a print operation without a sign-in is refused then, not after a large document);
/// answered once read whole, or refused at once past a bound.
final class IPPRequestReader: HTTPBodySink, @unchecked Sendable {
  // @unchecked: every field after init is under `lock`; the endpoint and reply are Sendable.
  private let endpoint: IPPEndpoint
  private let reply: HTTPReply
  private let caller: IPPCaller
  private let base: String
  private let tls: Bool
  private let settings: IPPSettings
  private let lock = Mutex<State>(State())

  private struct State {
    var bytes: [UInt8] = []
    /// The operation takes no document: what follows its attributes is dropped, unheld.
    var dropping = false
    var framing = IPPFraming(maxBytes: 1 << 20)
    /// Where the attributes end, once framed, and the message libcups read from them.
    var message: (IPPMessage, end: Int)?
    /// Bytes taken from the shared budget (given back once).
    var held = 0
    /// Answered, refused or abandoned: nothing more is read or done.
    var done = false
  }

  init(
    endpoint: IPPEndpoint, reply: HTTPReply, caller: IPPCaller, base: String, tls: Bool,
    settings: IPPSettings
  ) {
    self.endpoint = endpoint
    self.reply = reply
    self.caller = caller
    self.base = base
    self.tls = tls
    self.settings = settings
  }

  func receive(_ chunk: UnsafeRawBufferPointer) {
    let refusal: Refusal? = lock.withLock { s in
      guard !s.done, !s.dropping else { return nil }
      guard s.bytes.count + chunk.count <= settings.maxRequestBytes else {
        return finish(&s, .tooLarge)
      }
      // What is held is charged as the memory it takes: the buffer's room, grown by
      // doubling from what has arrived (a declared length takes nothing before its bytes
      // come), never past the request's limit.
      let needed = s.bytes.count + chunk.count
      if needed > s.bytes.capacity {
        let room = min(settings.maxRequestBytes, max(needed, s.bytes.capacity * 2))
        let more = room - s.held
        if more > 0 {
          guard endpoint.take(more) else { return finish(&s, .busy) }
          s.held += more
        }
        s.bytes.reserveCapacity(room)
      }
      s.bytes.append(contentsOf: chunk)
      guard s.message == nil else { return nil }
      switch s.framing.scan(s.bytes) {
      case .needMore: return nil
      case .refused(let why): return finish(&s, .malformed(why))
      case .complete(let end):
        do throws(IPPCodec.DecodeError) {
          let message = try IPPCodec.decode(s.bytes[..<end])
          s.message = (message, end)
          // A print operation is checked for its sign-in before its document is read.
          if needsSignIn(message) { return finish(&s, .signIn) }
          if !Self.carriesDocument(message) {
            // Nothing after the attributes is used: it is not kept, and the room taken
            // for it goes back (a query cannot hold the budget printers need).
            s.dropping = true
            s.bytes = Array(s.bytes[..<end])
            let kept = min(s.held, s.bytes.capacity)
            endpoint.giveBack(s.held - kept)
            s.held = kept
          }
          return nil
        } catch {
          return finish(&s, .malformed(error.message))
        }
      }
    }
    if let refusal { refuse(refusal) }
  }

  /// Print-Job and Send-Document carry a document after their attributes; nothing else
  /// does (RFC 8011 §4.2).
  static func carriesDocument(_ message: IPPMessage) -> Bool {
    message.code == IPPOperation.printJob.rawValue
      || message.code == IPPOperation.sendDocument.rawValue
  }

  func ended() {
    let outcome: Result<(IPPRequest, Int), Refusal>? = lock.withLock { s in
      guard !s.done else { return nil }
      guard let (message, end) = s.message else {
        return .failure(finish(&s, .malformed("the body ends before the request's attributes do")))
      }
      s.done = true
      let request = IPPRequest(
        message: message, document: s.bytes[end...], caller: caller, base: base, tls: tls)
      let held = s.held
      s.held = 0
      return .success((request, held))
    }
    switch outcome {
    case .success(let (request, held)): endpoint.answer(request, reply: reply, holding: held)
    case .failure(let refusal): refuse(refusal)
    case nil: break
    }
  }

  func abandoned() {
    let held = lock.withLock { s in
      defer {
        s.done = true
        s.held = 0
        s.bytes = []
      }
      return s.held
    }
    endpoint.giveBack(held)
  }

  private enum Refusal: Error {
    case tooLarge
    case busy
    case malformed(String)
    case signIn
    /// The message as read, to answer in its own version and request-id.
    case answered(IPPMessage, IPPStatus, String)
  }

  /// Ends reading: what was held is given back (the rest of the body is dropped).
  private func finish(_ s: inout State, _ refusal: Refusal) -> Refusal {
    s.done = true
    endpoint.giveBack(s.held)
    s.held = 0
    s.bytes = []
    if let (message, _) = s.message {
      switch refusal {
      case .tooLarge:
        return .answered(
          message, .requestEntityTooLarge,
          "the request is larger than \(settings.maxRequestBytes) bytes")
      case .busy:
        return .answered(message, .busy, "labeld is reading too many documents; try again")
      default: return refusal
      }
    }
    return refusal
  }

  private func needsSignIn(_ message: IPPMessage) -> Bool {
    guard settings.printAccess == .operator,
      let operation = IPPOperation(rawValue: message.code), operation.prints
    else { return false }
    return !caller.mayPrint
  }

  private func refuse(_ refusal: Refusal) {
    switch refusal {
    case .tooLarge: reply.respond(status: 413)
    case .busy: reply.respond(status: 503, headers: [("Retry-After", "2")])
    case .malformed(let why):
      reply.respond(
        status: 400, headers: [("Content-Type", "text/plain; charset=utf-8")],
        body: Array("not an IPP request labeld can read: \(why)\n".utf8))
    case .signIn: IPPEndpoint.refuse(reply, caller)
    case .answered(let message, let status, let text):
      let version = (1...2).contains(message.major) ? (message.major, message.minor) : (2, 0)
      IPPEndpoint.send(
        IPPAnswer(status, text).response(
          major: version.0, minor: version.1, requestID: message.requestID), reply)
    }
  }
}
