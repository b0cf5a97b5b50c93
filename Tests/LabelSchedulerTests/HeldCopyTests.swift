import LabelCore
import LabelInterfaces
import Synchronization
import Testing

/// The one wait for a label held in a faulted printer (USB and network printers share it):
/// every fault the printer reports reaches the queue, the copy counts once it is clear,
/// and a printer that stops answering with the label in it does not count it.
struct HeldCopyTests {
  final class RecordingSink: PrinterStatusSink {
    let updates = Mutex<[[Reason]?]>([])
    func update(faults: [Reason]?) async { updates.withLock { $0.append(faults) } }
    var heldFaults: [Reason] { [] }
    var isIdle: Bool { get async { false } }
  }

  @Test func eachFaultIsReported_untilThePrinterSaysItIsClear() async throws {
    let sink = RecordingSink()
    let answers = Mutex<[[Reason]?]>([[.coverOpen], [.mediaEmpty], []])
    try await sink.waitWhileHeld([.coverOpen]) {
      answers.withLock { $0.removeFirst() }
    } stoppedAnswering: {
      TransportError(reason: .communication, message: "not asked")
    }
    #expect(sink.updates.withLock { $0 } == [[.coverOpen], [.coverOpen], [.mediaEmpty], []])
    #expect(answers.withLock { $0.isEmpty })
  }

  @Test func aPrinterThatStopsAnswering_doesNotCountTheCopy() async throws {
    let sink = RecordingSink()
    let silence = TransportError(reason: .communication, message: "stopped answering")
    await #expect(throws: silence) {
      try await sink.waitWhileHeld([.mediaEmpty]) {
        nil
      } stoppedAnswering: {
        silence
      }
    }
    // The fault stays held: nothing said the printer is fine.
    #expect(sink.updates.withLock { $0 } == [[.mediaEmpty]])
  }

  @Test func cancelling_endsTheWait() async throws {
    let sink = RecordingSink()
    let task = Task {
      try await sink.waitWhileHeld([.coverOpen]) {
        [.coverOpen]
      } stoppedAnswering: {
        TransportError(reason: .communication, message: "")
      }
    }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }
}
