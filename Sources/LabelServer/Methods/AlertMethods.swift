import LabelCore
import LabelWire

extension Dispatcher {
  /// Subscribes the connection to topics; with `since`, replays retained alerts first.
  package func subscribe(_ p: Params, _ context: RequestContext) throws(RPCError) -> Reply {
    var topics: Set<Topic> = [.alerts]
    if let names = try p.optionalStringArray("topics") {
      topics = []
      for (i, name) in names.enumerated() {
        guard let topic = Topic(rawValue: name) else {
          throw .invalidParams(
            field: "topics[\(i)]", reason: "unknown topic \"\(name)\" (alerts, jobs, printers)")
        }
        topics.insert(topic)
      }
      if topics.isEmpty { throw .invalidParams(field: "topics", reason: "must not be empty") }
    }
    let since = try p.optionalInt("since", in: 0...Int.max).map { UInt64($0) }
    guard let connection = context.connection else {
      throw .internalError("subscribe needs a connection")
    }
    let id = context.id
    services.channel.subscribe(connection, topics: topics, since: since) { result in
      id.map { Wire.result(id: $0, result) } ?? []
    }
    return .sent
  }
}
