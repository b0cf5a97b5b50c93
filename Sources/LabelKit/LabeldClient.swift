import LabelCore

/// A connection to labeld for an app: async typed calls for every protocol method, and
/// the streams that carry its promise to the screen (`alerts(since:store:)`,
/// `jobUpdates(job:)`).
///
/// Calls share one connection, opened on first use and opened again after labeld
/// restarts. A call whose connection drops before its answer throws `connectionLost` (it
/// may or may not have run), except the ones that only read, which are asked once more on
/// a new connection; one whose request could not be sent at all is sent once more
/// whatever it does. A failed save (1004) throws `LabelError.saveFailed` carrying the
/// saveError alert, and the alert streams of this client hand that alert out at once and
/// skip its copy from the channel: shown once, not twice.
public actor LabeldClient {
  /// Where this client connects: the socket path given, else the protocol's discovery (a
  /// web endpoint's URL for a client made with `init(route:)`).
  public nonisolated let socketPath: String
  /// The paths tried in order: `socketPath`, then, unless a path was given or named by the
  /// environment, the system service's (`SocketPath.clientCandidates`); none for a route
  /// of another kind.
  nonisolated let paths: [String]
  /// How every connection of this client is opened.
  nonisolated let route: LabeldRoute
  /// How long a call waits for its answer (nil: for ever).
  public var callTimeout: Duration? = .seconds(60)
  private var channel: CallChannel?
  private let offers = OfferBoard()

  /// A client of the labeld at `socketPath`, or where the protocol's discovery says:
  /// `$LABELD_SOCKET`, `$RUNTIME_DIRECTORY/labeld.sock`, `/run/labeld/labeld.sock` for
  /// root, `$XDG_RUNTIME_DIR/labeld.sock`, `/tmp/labeld-$UID/labeld.sock`, and when
  /// nothing listens there, the system service's `/run/labeld/labeld.sock`. Nothing is
  /// opened until the first call.
  public init(socketPath: String? = nil) {
    paths = SocketPath.clientCandidates(
      explicit: socketPath, environment: OS.environment, uid: OS.uid)
    self.socketPath = paths[0]
    route = .socket(paths: paths)
  }

  /// A client that reaches labeld by `route`: its web endpoint from another device
  /// (`LabeldRoute.webSocket(url:token:pinnedSHA256:)`, in LabelKitWeb), with the same
  /// calls, streams and guarantees.
  public init(route: LabeldRoute) {
    paths = []
    socketPath = route.description
    self.route = route
  }

  deinit { channel?.close() }

  /// Sets how long calls wait for their answers (nil: for ever).
  public func setCallTimeout(_ timeout: Duration?) { callTimeout = timeout }

  /// Calls `method` with `params` and returns its result. An error answer is thrown as
  /// the `LabelError` case of its code.
  @discardableResult
  public func call(_ method: String, _ params: JSONValue = [:]) async throws(LabelError)
    -> JSONValue
  {
    var answer: Answer?
    do {
      answer = try await attempt(method, params)
    } catch {
      // Nothing reached labeld, or nothing that changes anything: once more, anew.
      switch error {
      case .notSent(.connectionLost): break
      case .unanswered(.connectionLost) where Self.onlyReads(method): break
      case .notSent(let e), .unanswered(let e): throw e
      }
    }
    if answer == nil {
      do {
        answer = try await attempt(method, params)
      } catch {
        switch error {
        case .notSent(let e), .unanswered(let e): throw e
        }
      }
    }
    guard let answer else { throw .connectionLost }
    switch answer {
    case .success(let result): return result
    case .failure(let rpc):
      let error = LabelError(rpc)
      if case .saveFailed(let failure) = error { offers.offer(failure.alert) }
      throw error
    }
  }

  /// Calls `method` and decodes its result as `R`.
  public func call<R: Decodable & Sendable>(
    _ method: Method, _ params: [String: JSONValue] = [:], as: R.Type
  ) async throws(LabelError) -> R {
    try RequestLine.decode(R.self, from: try await call(method.rawValue, .object(params)))
  }

  /// Closes the calls' connection (the next call opens a new one). Streams have their own.
  public func close() {
    channel?.close()
    channel = nil
  }

  /// One attempt: the answer, or why there is none.
  private func attempt(_ method: String, _ params: JSONValue) async throws(CallChannel.Failure)
    -> Answer
  {
    let channel: CallChannel
    do {
      channel = try open()
    } catch {
      throw .notSent(error)
    }
    return try await channel.call(method, params, timeout: callTimeout)
  }

  /// The open channel, or a new one when there is none or it has ended.
  private func open() throws(LabelError) -> CallChannel {
    if let channel, channel.isOpen { return channel }
    let opened = try CallChannel(route: route)
    channel = opened
    return opened
  }

  /// Methods that change nothing: asking again after a lost connection is harmless.
  static func onlyReads(_ method: String) -> Bool {
    switch Method(rawValue: method) {
    case .hello, .printersList, .printersGet, .productsGet, .productsList, .templatesList,
      .templatesGet, .labelsRender, .jobsGet, .jobsList, .alertsActive, .devicesList,
      .tokensList:
      return true
    case .printersRefresh, .printersSimulate, .productsSave, .productsDelete, .templatesSave,
      .jobsSubmit, .jobsCancel, .alertsDismiss, .subscribe, .tokensCreate, .tokensRevoke, nil:
      return false
    }
  }

  /// Where this client's alert streams hear of alerts that came back as answers.
  nonisolated var offerBoard: OfferBoard { offers }
}
