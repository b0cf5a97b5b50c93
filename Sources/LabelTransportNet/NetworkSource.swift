import LabelCore
import LabelLanguages
import LabelLog
import LabelScheduler

/// The configured network printers: each is adopted at start-up and stays (a printer that
/// does not answer is `offline`, not gone). labeld looks for no network printer by itself.
package final class NetworkSource: PrinterSource {
  private let printers: [NetworkPrinter]
  private let log: Logger

  /// Builds every configured printer; a model no row has throws, naming the printer.
  package init(settings: NetworkSettings, log: Logger) throws(SpecError) {
    var printers: [NetworkPrinter] = []
    for spec in settings.printers {
      guard !printers.contains(where: { $0.spec.name == spec.name }) else {
        throw SpecError("network printer \(spec.name) is defined twice")
      }
      do {
        printers.append(try NetworkPrinter(spec: spec, settings: settings, log: log))
      } catch {
        throw SpecError("\(spec.name): \(error.message)")
      }
    }
    self.printers = printers
    self.log = log
  }

  package func start(into registry: PrinterRegistry) async {
    for printer in printers {
      await registry.adopt(printer)
      log.notice(
        "network: \(printer.id) is a \(printer.model.displayName) at \(printer.spec.uri)")
    }
  }

  package var service: (any Service)? { nil }

  /// A `net:` printer that is no longer configured does not come back: its jobs end.
  package func absence(of printer: String) -> Absence? { nil }
}
