/// Per-connection limits (protocol v1: message size, outgoing queue bound).
package struct ConnectionLimits: Sendable {
  package var maxMessageBytes = 1 << 20
  /// Queued outgoing messages at which a notification overflows the connection.
  package var maxQueuedMessages = 1024
  /// Requests read ahead of the one being handled before reading pauses.
  package var maxPendingRequests = 64
  /// Queued outgoing messages above which reading pauses (responses apply back-pressure
  /// to the requests that cause them instead of overflowing).
  package var pauseReadsAtQueued = 256
  /// How long an overflowed or closing connection may take to take its last messages.
  package var closeGraceSeconds = 10.0
  /// Bytes of queued outgoing messages above which the next request waits to be handled:
  /// a client that does not read its answers cannot make labeld hold more than this (and
  /// the one answer that crossed it) for it.
  package var pauseHandlingAtQueuedBytes = 4 << 20
  /// What all connections together may hold in requests read but not yet answered,
  /// beyond a 64 KiB floor each (`ReadAheadBudget`). At least two of the largest message.
  package var readAheadBytes = 64 << 20
  /// How long a request that has grown past the 64 KiB floor (it now holds bytes of the
  /// shared read-ahead) may take to end, counted while labeld is reading: a client that
  /// sends most of a large message and stops cannot keep those bytes from the others.
  package var longLineSeconds = 30.0
  /// For a framing with keep-alive (WebSocket pings): how often an idle client is pinged;
  /// one that has sent nothing by the next ping is gone, and its connection closes.
  package var keepAliveSeconds = 30.0

  package init() {}
}
