import LabelCore

/// What a framer makes of the bytes a client sent.
package enum Inbound: Sendable, Equatable {
  /// One request, without its framing; `wireBytes` is what it took on the wire (what the
  /// connection holds for it until it is answered).
  case message([UInt8], wireBytes: Int)
  /// Reading ends here: the connection answers this error after its earlier answers and
  /// closes.
  case refused(RPCError)
  /// Reading ends here with nothing to answer: the framing failed (a WebSocket that
  /// breaks RFC 6455 fails with a close code and no message, §7.1.7). The connection
  /// closes after its earlier answers, with the framing's farewell.
  case failed
}

/// What one call of `Framer.take` did besides the messages it appended.
package struct Framed: Sendable, Equatable {
  /// Bytes taken that no message will answer (framing of a refused message, control
  /// frames): the connection stops holding them at once.
  package var discarded = 0
  /// A refusal was appended, or the client said goodbye: nothing after it is read.
  package var ended = false
  /// The client said goodbye (a WebSocket close frame): the requests before it are
  /// answered, then the connection closes.
  package var goodbye = false
  /// Bytes the framing answers at once, ahead of any queued answer (a pong to a ping).
  package var replies: [UInt8] = []

  package init(
    discarded: Int = 0, ended: Bool = false, goodbye: Bool = false, replies: [UInt8] = []
  ) {
    self.discarded = discarded
    self.ended = ended
    self.goodbye = goodbye
    self.replies = replies
  }
}

/// The first stage of a connection: bytes read from the socket in, whole messages out;
/// and the wire form of each message going back. A framing is one type: the Unix
/// socket's is `LineFramer`, and another (a WebSocket's frames) plugs into the same
/// pipeline, budget, dispatcher and writer alike.
package protocol Framer: Sendable {
  /// Takes bytes as read (any split); appends each message completed by them, or the
  /// refusal that ends reading, to `inbound`.
  mutating func take(_ bytes: UnsafeRawBufferPointer, into inbound: inout [Inbound]) -> Framed
  /// Bytes held of a message not complete yet.
  var partialBytes: Int { get }
  /// Drops the message not complete yet (its deadline passed); returns the bytes dropped.
  mutating func dropPartial() -> Int
  /// The bytes that carry `line` (one JSON message ending in `\n`) to the client.
  func outbound(_ line: [UInt8]) -> [UInt8]
  /// The last bytes written before the connection closes (a WebSocket close frame).
  func farewell() -> [UInt8]
  /// The last bytes written when labeld ends the connection for a reason of its own (a
  /// revoked token): a WebSocket close frame with 1008 and `reason`; nothing on the socket.
  func farewell(ending reason: String) -> [UInt8]
  /// What to send an idle client to learn that it is still there (a WebSocket ping), or
  /// nil when the framing has no such thing (`ConnectionLimits.keepAliveSeconds`).
  func keepAlive() -> [UInt8]?
}

extension Framer {
  package func farewell() -> [UInt8] { [] }
  package func farewell(ending reason: String) -> [UInt8] { [] }
  package func keepAlive() -> [UInt8]? { nil }
}
