import LabelCore
import LabelWire
import Synchronization

/// The JSON of the last value of a result that is asked for far more often than it
/// changes (`printers.list`): encoded again only when the value differs from the last.
/// Holds one value: its cost does not grow.
package final class EncodedResult<Value: Encodable & Equatable & Sendable>: Sendable {
  private let last = Mutex<(value: Value, json: [UInt8])?>(nil)

  package init() {}

  /// `value` as JSON; a value that cannot be encoded (a bug) is an internal error.
  package func json(_ value: Value) throws(RPCError) -> [UInt8] {
    if let hit = last.withLock({ $0.flatMap { $0.value == value ? $0.json : nil } }) {
      return hit
    }
    let json: [UInt8]
    do {
      json = try JSONWriter.write(value)
    } catch {
      throw .internalError("cannot encode the result: \(error)")
    }
    last.withLock { $0 = (value, json) }
    return json
  }
}
