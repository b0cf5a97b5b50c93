import LabelCore
import Synchronization

/// Every printer the daemon knows, by id, in the order they were added.
final class PrinterRegistry: Sendable {
  private let queues = Mutex<[PrinterQueue]>([])

  init() {}

  func add(_ queue: PrinterQueue) {
    queues.withLock { $0.append(queue) }
  }

  func queue(_ id: String) -> PrinterQueue? {
    queues.withLock { all in all.first { $0.id == id } }
  }

  var all: [PrinterQueue] { queues.withLock { $0 } }

  var printers: [Printer] { all.map(\.snapshot) }
}
