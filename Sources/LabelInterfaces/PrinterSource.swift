import LabelConcurrency
import LabelCore

/// Where a source hands the printers it finds: the scheduler's registry, which makes each
/// one's queue.
package protocol PrinterAdopter: Sendable {
  /// Makes `transport`'s queue, listed with the faults it is known to have (a USB
  /// printer's first status); false when a printer with the same id is here already.
  @discardableResult
  func adopt(_ transport: any PrinterTransport, faults: [Reason]) async -> Bool
  /// Whether a printer with this id is here.
  func contains(_ id: String) -> Bool
}

extension PrinterAdopter {
  @discardableResult
  package func adopt(_ transport: any PrinterTransport) async -> Bool {
    await adopt(transport, faults: [])
  }
}

/// A kind of printer that comes and goes: CUPS queues, USB devices. A source finds its
/// printers and hands each new one to a `PrinterAdopter`; the daemon knows sources only
/// through this protocol.
package protocol PrinterSource: Sendable {
  /// Finds the printers there now and adopts them (labeld serves only after this
  /// returns).
  func start(into registry: any PrinterAdopter) async
  /// The loop that keeps looking (new queues, replugged devices), run in the daemon's
  /// `ServiceGroup`; nil for a source that does not look again by itself.
  var service: (any Service)? { get }
  /// Looks again now (`printers.refresh`).
  func refresh() async
  /// Lets go of devices (after its service has returned).
  func stop() async
  /// For a printer that is not here but has jobs: whether it is this source's and may
  /// still come (the reason its jobs wait under, and what to tell the user); nil when the
  /// printer is not this source's.
  func absence(of printer: String) -> Absence?
  /// The devices this source sees, for `devices.list`; nil when it has none to show.
  func devices() async -> DevicesResult?
}

/// Why a printer that is not here may still come.
package struct Absence: Sendable, Equatable {
  package var reason: Reason
  /// For the alert: "not connected (plug it in, or cancel the job)".
  package var phrase: String

  package init(reason: Reason, phrase: String) {
    self.reason = reason
    self.phrase = phrase
  }
}

extension PrinterSource {
  package func refresh() async {}
  package func stop() async {}
  package func devices() async -> DevicesResult? { nil }
}
