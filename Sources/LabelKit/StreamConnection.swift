import LabelConcurrency
import LabelCore
import Synchronization

/// The connection a stream owns (an alert stream, a job's updates): numbered requests,
/// and the lines labeld sends read on a lane of the stream's own, so that waiting for the
/// next alert, which may be hours away, never holds one of Swift's few cooperative threads.
final class StreamConnection: Sendable {
  private let socket: any MessageLink
  private let lane = BlockingQueue(label: "LabelKit.stream")
  private let ids = Mutex(1)

  /// Connects by `route`.
  init(route: LabeldRoute) throws(LabelError) { socket = try route.connect() }

  deinit { socket.shutdown() }

  /// Sends a request; its id, to match the answer among the notifications.
  func send(_ method: Method, _ params: JSONValue) throws(LabelError) -> Int {
    let id = ids.withLock { id in
      defer { id += 1 }
      return id
    }
    try socket.send(RequestLine.encode(id: id, method: method.rawValue, params: params))
    return id
  }

  /// The messages that have come, waiting for at least one; `cancelled` when the task is
  /// cancelled meanwhile (the connection is then closed).
  func read() async throws(LabelError) -> [JSONValue] {
    let socket = self.socket
    let read = await withTaskCancellationHandler {
      await lane.run { () -> Result<[[UInt8]], LabelError> in
        Result { () throws(LabelError) in try socket.readLines(timeout: nil) }
      }
    } onCancel: {
      socket.shutdown()
    }
    if Task.isCancelled { throw .cancelled }
    let lines = try read.get()
    var messages: [JSONValue] = []
    messages.reserveCapacity(lines.count)
    for line in lines { messages.append(try RequestLine.parse(line)) }
    return messages
  }

  func close() { socket.shutdown() }
}

/// How long to wait before connecting again: 50 ms, doubling to 5 s, each ±20% (so that
/// many clients of a restarted labeld do not all knock at once), back to 50 ms once a
/// connection works.
struct Backoff {
  static let first = Duration.milliseconds(50)
  static let longest = Duration.seconds(5)
  private var step = Duration.zero

  /// The wait before the next attempt (none before the first).
  mutating func next() -> Duration {
    defer { step = step == .zero ? Self.first : min(step * 2, Self.longest) }
    guard step > .zero else { return .zero }
    return step * Double.random(in: 0.8...1.2)
  }

  mutating func reset() { step = .zero }
}
