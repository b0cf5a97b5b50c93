import Foundation
import LabelCore
import LabelKit
import LabelKitWeb
import LabelTestKit
import Synchronization
import Testing

#if canImport(Glibc)
  @preconcurrency import Glibc
#endif

/// LabelKit over labeld's web endpoint, on the path the iPad app takes: the kit's calls,
/// streams and AlertQueue over `ws://` on loopback and over `wss://` with the
/// self-signed certificate pinned, against the built daemon; what no retry mends (a
/// revoked or wrong token, a wrong pin, a route that cannot work) ends a stream typed.
@Suite struct KitWebSocketTests {
  enum Scheme: String, CaseIterable, Sendable { case ws, wss }

  /// A labeld with its web endpoint on `port` (TLS on a self-signed certificate for
  /// wss), and a route to it for `token`.
  struct Web {
    let scheme: Scheme
    let port: Int
    let pin: String?

    func route(_ token: String, pin override: String? = nil) -> LabeldRoute {
      // Force-unwrap-free: a URL of these parts always parses.
      let url = URL(string: "\(scheme.rawValue)://127.0.0.1:\(port)/v1/ws") ?? URL(filePath: "/")
      return .webSocket(url: url, token: token, pinnedSHA256: override ?? pin)
    }
  }

  static func arguments(_ scheme: Scheme, port: Int) -> [String] {
    ["--listen-http", "127.0.0.1:\(port)"] + (scheme == .wss ? ["--tls-self-signed"] : [])
  }

  /// The fingerprint labeld logged for its certificate.
  static func fingerprint(_ d: DaemonProcess) throws -> String {
    for line in d.log.split(separator: "\n") where line.contains("TLS certificate ") {
      if let at = line.range(of: "SHA-256 ") { return String(line[at.upperBound...]) }
    }
    throw HarnessError.failed("labeld logged no certificate fingerprint: \(d.log)")
  }

  static func start(_ scheme: Scheme, port: Int = 0, extra: [String] = [], directory: URL? = nil)
    throws -> (DaemonProcess, Web)
  {
    let d = try DaemonProcess(
      DaemonProcess.defaultArguments + extra + arguments(scheme, port: port), directory: directory)
    let bound = try d.webPort()
    return (d, Web(scheme: scheme, port: bound, pin: scheme == .wss ? try fingerprint(d) : nil))
  }

  /// Typed calls: answers decoded as the protocol's types, errors as their cases, a job
  /// printed and waited for.
  @Test(arguments: Scheme.allCases)
  func typedCalls(over scheme: Scheme) async throws {
    try await onKitExecutor {
      let (d, web) = try Self.start(scheme)
      defer { d.stop() }
      let client = LabeldClient(route: web.route(try d.token("kit", role: "operator")))
      let hello = try await client.hello(client: "kit-web")
      #expect(hello.server == "labeld")
      #expect(try await client.printers().map(\.id).sorted() == ["sim:ql", "sim:zebra"])
      let saved = try await client.saveProduct(ProductInput(sku: "W-1", name: "Over the web"))
      #expect(saved.product.version == 1)
      do {
        _ = try await client.submit(printer: "sim:nope", .native(Array("^XA^XZ".utf8)))
        Issue.record("an unknown printer was taken")
      } catch let error as LabelError {
        #expect(error == .printerNotFound(printer: "sim:nope"))
      }
      let job = try await client.submit(
        printer: "sim:zebra", .native(Array("^XA^FDweb^FS^XZ".utf8)), copies: 2)
      let done = try await client.wait(job: job.id)
      #expect(done.state == .completed && done.printed == 2)
    }
  }

  /// Every alert once and in seq order across three kill -9 restarts of labeld, the
  /// stream reconnecting over the web endpoint each time.
  @Test(arguments: Scheme.allCases)
  func alerts_exactlyOnce_acrossThreeKillNines(over scheme: Scheme) async throws {
    try await onKitExecutor {
      let home = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: home) }
      let port = CUPSHarness.freePort()
      var (d, web) = try Self.start(
        scheme, port: port, extra: ["--alert-retention", "1000000"], directory: home)
      let token = try d.token("app", role: "viewer")
      let client = LabeldClient(route: web.route(token))
      let collected = KitAlertStreamTests.Collected()
      let consumer = KitAlertStreamTests.collect(client.alerts(since: 0), into: collected)
      defer { consumer.cancel() }
      let faults: [JSONValue] = ["coverOpen", .null, "mediaEmpty", .null]
      for round in 0..<4 {
        let c = try d.client()
        for i in 0..<24 {
          try c.call(
            "printers.simulate",
            ["printer": .string(i % 2 == 0 ? "sim:ql" : "sim:zebra"), "fault": faults[(i / 2) % 4]])
        }
        guard round < 3 else { break }
        d.kill9()
        (d, web) = try Self.start(
          scheme, port: port, extra: ["--alert-retention", "1000000"], directory: home)
      }
      defer { d.stop() }
      let journal = try await KitAlertStreamTests.untilTheStreamHasTheJournal(d, collected)
      let handed = collected.events.map(\.seq)
      #expect(collected.gaps.isEmpty)
      #expect(handed == journal, "handed \(handed.count), journal \(journal.count)")
      #expect(journal.count >= 96)
    }
  }

  /// The seed's screen over wss: a printer error and a save error on the one channel,
  /// shown one at a time by AlertQueue, each once; and watched without SwiftUI through
  /// `presented`.
  @MainActor @Test func alertQueue_oneAtATime_overWSS() async throws {
    try await onKitExecutor {
      let (d, web) = try Self.start(.wss)
      defer { d.stop() }
      let client = LabeldClient(route: web.route(try d.token("ipad", role: "operator")))
      let queue = AlertQueue()
      let runner = Task(executorPreference: KitExecutor.shared) { [queue] in
        try await queue.run(client)
      }
      defer { runner.cancel() }
      // Subscribed here, on the main actor, before anything changes: the sequence keeps
      // what it is given until its reader (on the kit's executor) takes it.
      let presented = queue.presented
      let shown = Mutex<[String?]>([])
      let watcher = Task(executorPreference: KitExecutor.shared) {
        for await alert in presented { shown.withLock { $0.append(alert?.id) } }
      }
      defer { watcher.cancel() }
      _ = await KitAlertStreamTests.eventually("the queue is live") { queue.connection == .live }
      try d.client().call("printers.simulate", ["printer": "sim:ql", "fault": "mediaEmpty"])
      // On screen before the save: a failed save of this client's own is shown from its
      // answer at once, ahead of alerts the stream has not brought yet (clients.md).
      _ = await KitAlertStreamTests.eventually("the printer's alert on screen") {
        queue.current?.id == "printerError:sim:ql"
      }
      _ = try await client.saveProduct(ProductInput(sku: "Q", name: "one"))
      do {
        _ = try await client.saveProduct(ProductInput(sku: "Q", name: "stale"), expectedVersion: 9)
      } catch let error as LabelError {
        #expect(queue.receive(error))
      }
      _ = await KitAlertStreamTests.eventually("both alerts in the queue") {
        queue.current != nil && queue.waiting.count == 1
      }
      #expect(queue.current?.id == "printerError:sim:ql")
      #expect(queue.waiting.map(\.id) == ["saveError:product:Q"])
      queue.acknowledge()
      #expect(queue.current?.id == "saveError:product:Q")
      queue.acknowledge()
      #expect(queue.current == nil)
      // The same, as the async sequence of the alert to show: each change, in order.
      _ = await KitAlertStreamTests.eventually("the watcher saw the queue empty again") {
        shown.withLock { $0.count >= 4 && $0.last == .some(nil) }
      }
      #expect(
        shown.withLock { $0 }
          == [nil, "printerError:sim:ql", "saveError:product:Q", nil])
    }
  }

  /// A token revoked while a stream is open ends the stream with `.unauthorized`, not a
  /// retry for ever; AlertQueue.run ends with it too.
  @Test(arguments: Scheme.allCases)
  func revokedToken_endsTheStream_typed(over scheme: Scheme) async throws {
    try await onKitExecutor {
      let (d, web) = try Self.start(scheme)
      defer { d.stop() }
      let client = LabeldClient(route: web.route(try d.token("tablet", role: "viewer")))
      let collected = KitAlertStreamTests.Collected()
      let statuses = Mutex<[AlertStreamStatus]>([])
      let stream = client.alerts { status in statuses.withLock { $0.append(status) } }
      let consumer = KitAlertStreamTests.collect(stream, into: collected)
      _ = await KitAlertStreamTests.eventually("live") {
        statuses.withLock { $0.contains(.live) }
      }
      try d.client().call("tokens.revoke", ["name": "tablet"])
      let ended = await Self.outcome(of: consumer, within: 30)
      #expect(ended?.isUnauthorized == true, "\(String(describing: ended))")
    }
  }

  /// A token that was never good: the first call and a stream both say so, typed, at once.
  @Test(arguments: Scheme.allCases)
  func wrongToken_isUnauthorized(over scheme: Scheme) async throws {
    try await onKitExecutor {
      let (d, web) = try Self.start(scheme)
      defer { d.stop() }
      let client = LabeldClient(route: web.route("ldt_never"))
      do {
        _ = try await client.hello()
        Issue.record("a wrong token was taken")
      } catch let error as LabelError {
        guard case .unauthorized(let why) = error else {
          Issue.record("\(error)")
          return
        }
        #expect(why.contains("401"))
      }
      let consumer = KitAlertStreamTests.collect(
        client.alerts(), into: KitAlertStreamTests.Collected())
      let ended = await Self.outcome(of: consumer, within: 30)
      #expect(ended?.isUnauthorized == true, "\(String(describing: ended))")
    }
  }

  /// A pin that is not labeld's certificate: refused during the TLS handshake, typed,
  /// and the stream ends with it.
  @Test func wrongPin_isRefused_typed() async throws {
    try await onKitExecutor {
      let (d, web) = try Self.start(.wss)
      defer { d.stop() }
      let token = try d.token("pinned", role: "viewer")
      let wrong = String(repeating: "AB:", count: 31) + "AB"
      let client = LabeldClient(route: web.route(token, pin: wrong))
      do {
        _ = try await client.hello()
        Issue.record("a wrong pin connected")
      } catch let error as LabelError {
        guard case .certificateRejected(let why) = error else {
          Issue.record("\(error)")
          return
        }
        #expect(why.contains("not the pinned one") && why.contains(web.pin ?? "?"))
      }
      let consumer = KitAlertStreamTests.collect(
        client.alerts(), into: KitAlertStreamTests.Collected())
      guard case .certificateRejected? = await Self.outcome(of: consumer, within: 30) else {
        Issue.record("the stream did not end with the pin's refusal")
        return
      }
    }
  }

  /// The token never leaves with a wrong pin: a TLS server (Python's ssl module) that
  /// writes down everything it receives gets a TLS handshake and nothing more; with the
  /// right pin the same client does send it (so the recorder records).
  @Test func wrongPin_theTokenNeverLeaves() async throws {
    try await onKitExecutor {
      let dir = DaemonProcess.makeTempDirectory()
      defer { try? FileManager.default.removeItem(at: dir) }
      let cert = dir.appendingPathComponent("c.pem").path
      let key = dir.appendingPathComponent("k.pem").path
      try Shell.check(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
          + "-subj /CN=127.0.0.1 -days 1 -keyout \(key) -out \(cert) 2>/dev/null")
      let port = CUPSHarness.freePort()
      let heard = dir.appendingPathComponent("heard.txt").path
      let recorder = """
        import signal, socket, ssl, sys
        signal.alarm(300)  # never outlives a test run that was killed before its defer
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        listener = socket.create_server(("127.0.0.1", int(sys.argv[1])))
        while True:
            raw, _ = listener.accept()
            raw.settimeout(2)
            try:
                with context.wrap_socket(raw, server_side=True) as tls:
                    while data := tls.recv(4096):
                        with open(sys.argv[4], "ab") as out:
                            out.write(data)
            except (OSError, ssl.SSLError):
                pass
        """
      let server = Process()
      server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      server.arguments = ["-c", recorder, String(port), cert, key, heard]
      server.standardError = FileHandle.nullDevice
      try server.run()
      defer { Self.kill(server) }
      let url = try #require(URL(string: "wss://127.0.0.1:\(port)/v1/ws"))
      let secret = "ldt_secret_that_must_not_leave"
      let wrong = String(repeating: "00:", count: 31) + "00"
      var outcome: LabelError?
      for _ in 0..<50 {  // until the recorder listens
        do {
          _ = try await LabeldClient(
            route: .webSocket(url: url, token: secret, pinnedSHA256: wrong)
          )
          .hello()
        } catch let error as LabelError {
          outcome = error
          if case .certificateRejected = error { break }
        }
        try await Task.sleep(for: .milliseconds(100))
      }
      guard case .certificateRejected? = outcome else {
        Issue.record("a wrong pin was not refused: \(String(describing: outcome))")
        return
      }
      let received = (try? String(contentsOfFile: heard, encoding: .utf8)) ?? ""
      #expect(!received.contains(secret) && !received.contains("GET "), "\(received)")
      let right = try #require(
        try Shell.output("openssl x509 -in \(cert) -noout -fingerprint -sha256")
          .split(separator: "=").last.map(String.init))
      let client = LabeldClient(route: .webSocket(url: url, token: secret, pinnedSHA256: right))
      let call = Task(executorPreference: KitExecutor.shared) { _ = try? await client.hello() }
      defer { call.cancel() }
      _ = await KitAlertStreamTests.eventually("the right pin sends the request") {
        (try? String(contentsOfFile: heard, encoding: .utf8))?.contains("Bearer \(secret)") == true
      }
    }
  }

  /// Routes that can never work say so, typed, and end a stream at once.
  @Test func routesThatCannotWork_areTransportUnsupported() async throws {
    try await onKitExecutor {
      let http = try #require(URL(string: "http://127.0.0.1:1/v1/ws"))
      let ws = try #require(URL(string: "ws://127.0.0.1:1/v1/ws"))
      for route in [
        LabeldRoute.webSocket(url: http, token: "t"),
        .webSocket(url: ws, token: "t", pinnedSHA256: String(repeating: "00", count: 32)),
        .webSocket(url: ws, token: "t", pinnedSHA256: "not-a-pin"),
      ] {
        do {
          _ = try await LabeldClient(route: route).hello()
          Issue.record("\(route) connected")
        } catch let error as LabelError {
          guard case .transportUnsupported = error else {
            Issue.record("\(route): \(error)")
            continue
          }
        }
      }
    }
  }

  /// Stops a helper process: killed, then waited for a bounded time (Foundation's
  /// `waitUntilExit` spins a run loop off the main thread).
  static func kill(_ process: Process) {
    guard process.isRunning else { return }
    _ = Glibc.kill(process.processIdentifier, SIGKILL)
    for _ in 0..<500 where process.isRunning { usleep(10_000) }
  }

  /// How a stream's consumer ended within `seconds`: its error, or nil when it did not.
  static func outcome(of task: Task<Void, any Error>, within seconds: Double) async -> LabelError? {
    let watchdog = Task(executorPreference: KitExecutor.shared) {
      try? await Task.sleep(for: .seconds(seconds))
      task.cancel()
    }
    defer { watchdog.cancel() }
    do {
      try await task.value
      return nil
    } catch {
      return error as? LabelError
    }
  }
}

extension LabelError {
  var isUnauthorized: Bool {
    if case .unauthorized = self { return true }
    return false
  }
}
