import LabelCore
import LabelInterfaces
import Testing

/// A transport's copy ends one of three ways: printed, stopped by a fault (whatever a
/// transport threw, never lost and never taken for a cancellation), or cancelled.
struct PrintOutcomeTests {
  struct Unmapped: Error, CustomStringConvertible {
    var description: String { "a libusb code no table knows" }
  }

  @Test func aCopy_isPrinted_stoppedByItsFault_orCancelled() async throws {
    let printed = try await PrintOutcome.of {}
    #expect(printed == .printed)

    let fault = TransportError(reason: .coverOpen, message: "QL-820NWB: cover open")
    let stopped = try await PrintOutcome.of { throw fault }
    #expect(stopped == .stopped(fault))

    let unmapped = try await PrintOutcome.of { throw Unmapped() }
    #expect(
      unmapped
        == .stopped(TransportError(reason: .unknown, message: "a libusb code no table knows")),
      "shown as a fault, not a silent retry")

    await #expect(throws: CancellationError.self) {
      _ = try await PrintOutcome.of { throw CancellationError() }
    }
  }
}
