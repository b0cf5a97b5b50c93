import LabelCore
import LabelEvents
import LabelInterfaces
import Synchronization

/// Printers that have jobs waiting but are not here: a USB printer not plugged in when
/// labeld started, a CUPS queue the server does not have (or a server that has not
/// answered yet). Their jobs wait for them, never out of sight: each such printer has an
/// active `printerError` naming the job it holds up, kept until the printer appears (its
/// queue then takes the alert over) or its last waiting job is cancelled.
package final class AbsentPrinters: Sendable {
  private let jobs: any JobStoring
  private let alerts: PrinterAlerts
  private let waiting = Mutex<[String: Absence]>([:])

  package init(jobs: any JobStoring, channel: EventChannel) {
    self.jobs = jobs
    self.alerts = PrinterAlerts(channel: channel)
  }

  /// `printer` is not here and has jobs waiting, for `absence`'s reason (disconnected,
  /// notFound, offline): raises its alert naming the first of them.
  package func hold(_ printer: String, _ absence: Absence) {
    waiting.withLock { $0[printer] = absence }
    refresh(printer, present: false)
  }

  /// Whether `printer` is known to be absent with jobs waiting.
  package func contains(_ printer: String) -> Bool { waiting.withLock { $0[printer] != nil } }

  /// After a change to its jobs (one cancelled): the alert names the next waiting job, or
  /// is cleared when none is left. A printer that has appeared meanwhile (`present`) is
  /// its queue's business now.
  package func refresh(_ printer: String, present: Bool) {
    let absence: Absence? = waiting.withLock { w in
      if present { w[printer] = nil }
      return w[printer]
    }
    guard let absence else { return }
    guard let next = jobs.unfinished(printer: printer).first else {
      waiting.withLock { _ = $0.removeValue(forKey: printer) }
      alerts.clear(printer: printer)
      return
    }
    alerts.absent(printer: printer, reason: absence.reason, phrase: absence.phrase, job: next.id)
  }
}
