import LabelCore
import LabelEvents

/// The one place a printer's state becomes its `printerError` alert, and stops being one:
/// a printer's queue (its faults, the job they hold up, a job they abort), a printer that
/// is not here with jobs waiting (`AbsentPrinters`), and the alerts a previous run left
/// (`clearResolved` at start-up) all go through it, so an alert's id, message and job are
/// made the same way whatever raised it.
package struct PrinterAlerts: Sendable {
  private let channel: EventChannel

  package init(channel: EventChannel) { self.channel = channel }

  /// `printer` has `reason` and holds up `job` (nil: nothing waits, or the fault aborts
  /// jobs instead of holding them): "NAME: phrase; job N is waiting", with what the
  /// transport said of it where it said more: "NAME: phrase (detail); job N is waiting".
  package func held(
    printer: String, name: String, reason: Reason, job: Int?, detail: String? = nil
  ) {
    var message = "\(name): \(reason.phrase)"
    if let detail { message += " (\(detail))" }
    if let job { message += "; job \(job) is waiting" }
    raise(printer: printer, reason: reason, job: job, message: message)
  }

  /// `printer` is not here, for `phrase`, and holds up `job`.
  package func absent(printer: String, reason: Reason, phrase: String, job: Int) {
    raise(
      printer: printer, reason: reason, job: job,
      message: "\(printer): \(phrase); job \(job) is waiting")
  }

  /// `reason` ended `job` on `printer`.
  package func aborted(printer: String, reason: Reason, job: Int, message: String) {
    raise(printer: printer, reason: reason, job: job, message: message)
  }

  private func raise(printer: String, reason: Reason, job: Int?, message: String) {
    channel.raise(
      .printerError(
        PrinterErrorDetails(printer: printer, reason: reason, job: job, message: message)))
  }

  /// `printer` is fine (or nothing of it is held up any more).
  package func clear(printer: String) {
    channel.clear(id: Alert.id(printer: printer))
  }

  /// The printerError `printer` shows now, if any.
  package func shown(printer: String) -> PrinterErrorDetails? {
    guard
      case .printerError(let details)? = channel.activeEvent(id: Alert.id(printer: printer))?.alert
    else { return nil }
    return details
  }

  /// At start-up: a printerError a previous run left whose printer is fine now is cleared
  /// (the active set says what is wrong now, not what was). `stillTrue` says which stay:
  /// a printer here with faults, or one absent with jobs waiting.
  package func clearResolved(stillTrue: (String) -> Bool) {
    for event in channel.active {
      switch event.alert {
      case .printerError(let d): if !stillTrue(d.printer) { clear(printer: d.printer) }
      case .saveError: break  // stays until a later save of the same key succeeds
      }
    }
  }
}
