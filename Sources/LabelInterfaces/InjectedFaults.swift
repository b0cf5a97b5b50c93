import LabelCore
import Synchronization

/// The faults of a printer whose status is set from outside (the simulator, the test kit's
/// fake printer): kept, and reported through the sink `monitor` was given, the one route
/// every transport's status takes. A transport's `monitor` calls `attach`, its `inject`
/// calls `set`.
package final class InjectedFaults: Sendable {
  private struct State {
    var faults: [Reason] = []
    weak var sink: (any PrinterStatusSink)?
  }
  private let state = Mutex(State())

  package init() {}

  /// Remembers `sink` and reports the faults set before it came.
  package func attach(_ sink: any PrinterStatusSink) async {
    let faults = state.withLock { s in
      s.sink = sink
      return s.faults
    }
    if !faults.isEmpty { await sink.update(faults: faults) }
  }

  /// The printer's faults are now `faults` (empty: none); the queue has them on return.
  package func set(_ faults: [Reason]) async {
    let sink = state.withLock { s in
      s.faults = faults
      return s.sink
    }
    await sink?.update(faults: faults)
  }
}
