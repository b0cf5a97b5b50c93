/// One connection to labeld carrying protocol v1's messages: the Unix socket's
/// `LineSocket`, or another transport (LabelKitWeb's WebSocket). Lines are messages
/// without their framing; `send` takes one ending in `\n`.
///
/// Reads are for one reader at a time and may block (they run on a lane, never on the
/// cooperative pool for long); `shutdown` may come from anywhere and wakes a reader.
package protocol MessageLink: AnyObject, Sendable {
  func send(_ line: [UInt8]) throws(LabelError)
  /// Every message there is, waiting up to `timeout` seconds (nil: for ever) for one.
  func readLines(timeout: Double?) throws(LabelError) -> [[UInt8]]
  /// The messages there are after waiting up to `waiting` for something: none when
  /// nothing came.
  func readAvailable(waiting: Duration) throws(LabelError) -> [[UInt8]]
  func shutdown()
}

extension LineSocket: MessageLink {}

/// Where a client reaches labeld: its Unix socket (`socket(paths:)`, what
/// `LabeldClient(socketPath:)` uses), or labeld's web endpoint (LabelKitWeb's
/// `LabeldRoute.webSocket(url:token:pinnedSHA256:)`).
public struct LabeldRoute: Sendable, CustomStringConvertible {
  /// The socket path or URL, for messages.
  public let description: String
  package let connect: @Sendable () throws(LabelError) -> any MessageLink

  package init(
    description: String, connect: @escaping @Sendable () throws(LabelError) -> any MessageLink
  ) {
    self.description = description
    self.connect = connect
  }

  /// The first of `paths` where labeld listens (see `LineSocket.connect`).
  public static func socket(paths: [String]) -> LabeldRoute {
    LabeldRoute(description: paths.first ?? "") { () throws(LabelError) in
      try LineSocket.connect(paths)
    }
  }
}
