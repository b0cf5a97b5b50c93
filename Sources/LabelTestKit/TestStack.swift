import LabelCore
import LabelEvents
import LabelInterfaces
import LabelLog
import LabelPOSIX
import LabelPrint
import LabelScheduler
import LabelServer
import LabelStore
import LabelWire
import Synchronization

/// The daemon's parts as unit tests use them: the alert channel, a store in memory, the
/// registry with fake printers, the job service, and a dispatcher over them. No socket, no
/// file: what a test asserts is what the parts did (copies at the fake printer, events
/// that reached a subscriber, rows in the store).
package final class TestStack: Sendable {
  package let log: Logger
  package let logged: MemorySink
  package let channel: EventChannel
  package let store: StateStore
  package let jobs: JobStore
  package let registry: PrinterRegistry
  package let service: JobManager
  package let saveErrors: SaveErrors
  package let services: ServerContext
  package let dispatcher: Dispatcher

  package init(adminGroup: String? = nil, limits: QueueLimits = .standard) throws {
    logged = MemorySink()
    log = Logger(level: .debug, sink: logged)
    channel = EventChannel(log: log)
    store = StateStore.inMemory(log: log)
    jobs = JobStore(store: store)
    try store.open()
    try jobs.load()
    registry = PrinterRegistry(jobs: jobs, channel: channel, log: log)
    saveErrors = SaveErrors(channel: channel)
    service = JobManager(
      jobs: jobs, printers: registry, channel: channel, saveErrors: saveErrors, limits: limits)
    services = ServerContext(
      channel: channel, printers: registry, products: ProductStore(store: store),
      templates: TemplateStore(store: store), jobStore: jobs, jobs: service,
      renderer: LabelRenderer(),
      saveErrors: saveErrors, access: AccessPolicy(adminGroup: adminGroup), log: log)
    dispatcher = Dispatcher(services: services)
  }

  /// Adds `printer` and starts its queue (as a printer found after start-up is).
  @discardableResult
  package func add(_ printer: FakeTransport) async -> PrinterQueue? {
    await registry.open(policy: .resend)
    return await registry.adoptQueue(printer)
  }

  /// Submits a native job as `uid`.
  package func submit(_ printer: String, _ bytes: [UInt8], copies: Int = 1, uid: UInt32 = 1000)
    async throws(RPCError) -> Job
  {
    try await service.submit(
      NewJob(printer: printer, copies: copies, owner: JobOwner(uid: uid), document: .native(bytes)))
  }

  /// The job as stored now.
  package func job(_ id: Int) async throws(RPCError) -> Job { try await service.get(id) }

  /// Waits (polling the stored job, at most `attempts` times 10 ms) until job `id` is in
  /// one of `states`; returns it as it then stands. Never a timing assertion: the bound
  /// only keeps a broken scheduler from hanging the suite.
  package func wait(
    for id: Int, in states: Set<JobState>, attempts: Int = 1000
  ) async throws -> Job {
    for _ in 0..<attempts {
      let job = try await self.job(id)
      if states.contains(job.state) { return job }
      try await Task.sleep(for: .milliseconds(10))
    }
    return try await self.job(id)
  }

  /// One JSON-RPC request through the dispatcher, as `uid`; the response line.
  package func call(_ line: String, uid: UInt32 = 1000) async -> [UInt8]? {
    await dispatcher.handle(
      Array(line.utf8), peer: PeerCredentials(pid: 1, uid: uid, gid: uid), connection: nil)
  }

  /// Closes the store (end of a test).
  package func close() {
    store.drain()
    store.close()
  }
}

/// A subscriber that keeps every line it is given (alerts, job and printer notifications),
/// decoded, in order: what a client would have read.
package final class NotificationRecorder: EventSubscriber, Sendable {
  package let subscriberID: UInt64
  private let lines = Mutex<[JSONValue]>([])

  package init(id: UInt64 = 1) { subscriberID = id }

  package var received: [JSONValue] { lines.withLock { $0 } }

  /// The params of every notification of `method` ("alert", "job", "printer").
  package func notifications(_ method: String) -> [JSONValue] {
    received.compactMap { $0["method"] == .string(method) ? $0["params"] : nil }
  }

  /// Waits (polling, at most `attempts` times 10 ms) for a notification of `method`
  /// whose params satisfy `match`; nil if none came. The bound only keeps a broken part
  /// from hanging the suite: what a test asserts is the notification.
  package func first(
    _ method: String, attempts: Int = 1000, where match: (JSONValue) -> Bool = { _ in true }
  ) async -> JSONValue? {
    for _ in 0..<attempts {
      if let found = notifications(method).first(where: match) { return found }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return notifications(method).first(where: match)
  }

  package func deliver(_ message: OutboundMessage) {
    guard let value = try? JSONValue.parse(message.bytes) else { return }
    lines.withLock { $0.append(value) }
  }

  package func deliver(contentsOf messages: [OutboundMessage]) {
    for message in messages { deliver(message) }
  }

  package func subscribed(after seq: UInt64) {}
  package var replayBudget: Int { 1_000_000 }
  package func setCatchingUp(_ catchingUp: Bool) {}
  package func overflowNow() {}
}
