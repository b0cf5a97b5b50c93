/// One message queued for a connection: a complete `\n`-terminated line.
package struct OutboundMessage: Sendable {
  package enum Kind: Sendable {
    /// A response to the connection's own request (bounded by pausing reads instead).
    case response
    /// A notification; counts against the connection's outgoing bound.
    case notification
    /// A notification replayed for `subscribe` with `since`, in chunks sized to the bound.
    case replay
  }
  package var bytes: [UInt8]
  package var kind: Kind
  /// The alert seq this line carries, for the `overflow` notification's `seq`.
  package var alertSeq: UInt64?

  package init(bytes: [UInt8], kind: Kind, alertSeq: UInt64? = nil) {
    self.bytes = bytes
    self.kind = kind
    self.alertSeq = alertSeq
  }
}
