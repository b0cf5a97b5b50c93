import FoundationEssentials
import LabelConcurrency
import LabelCore
import LabelDNSSD
import LabelInterfaces
import LabelLanguages
import LabelLog
import Synchronization

/// The configured network printers: each is adopted at start-up and stays (a printer that
/// does not answer is `offline`, not gone). labeld prints to no network printer it found
/// by itself: DNS-SD answers (`devices.list`) only say what is there and how to add it.
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

  package func start(into registry: any PrinterAdopter) async {
    for printer in printers {
      await registry.adopt(printer)
      log.notice(
        "network: \(printer.id) is a \(printer.model.displayName) at \(printer.spec.uri)")
    }
  }

  package var service: (any Service)? { nil }

  /// A `net:` printer that is no longer configured does not come back: its jobs end.
  package func absence(of printer: String) -> Absence? { nil }

  private let browsing = BlockingQueue(label: "labeld.net.dnssd")

  /// How long `devices.list` listens for DNS-SD answers.
  package static let browseMS: Int32 = 1500

  /// How long one browse's answer stands for the next `devices.list`: callers at the same
  /// moment (or a client asking in a loop) share one browse instead of queueing 1.5 s each.
  package static let browseReuse: Duration = .seconds(5)
  private let lastBrowse = Mutex<
    (at: ContinuousClock.Instant, found: Result<[DNSSD.Service], DNSSD.Failure>)?
  >(nil)

  /// The network printers DNS-SD finds now (a browse of `browseMS`, or the one that ended
  /// less than `browseReuse` ago), each with the configuration line that would add it;
  /// USB's fields are left to the USB source.
  package func devices() async -> DevicesResult? {
    // One browse at a time (a serial queue): who waited behind it takes its answer.
    let found = await browsing.run { () -> Result<[DNSSD.Service], DNSSD.Failure> in
      if let last = self.lastBrowse.withLock({ $0 }),
        ContinuousClock.now - last.at < Self.browseReuse
      {
        return last.found
      }
      let found = DNSSD.browse(timeoutMS: Self.browseMS)
      self.lastBrowse.withLock { $0 = (.now, found) }
      return found
    }
    switch found {
    case .failure(let why):
      return DevicesResult(
        enabled: false, message: nil, devices: [], network: [], networkMessage: why.message)
    case .success(let services):
      return DevicesResult(
        enabled: false, message: nil, devices: [], network: services.map(describe))
    }
  }

  /// A found service as `devices.list` shows it: its model and driver from its TXT record
  /// (IEEE-1284 keys where it has them: usb_MFG, usb_MDL, usb_CMD; else ty, product), the
  /// configured printer at its address, and what to do with it.
  private func describe(_ s: DNSSD.Service) -> NetworkDeviceInfo {
    var info = NetworkDeviceInfo(
      name: s.name, type: s.type, host: s.host, address: s.address, port: s.port,
      suggestion: "")
    // product=(ZD420): the model in parentheses, as Bonjour printing writes it.
    let product = s.txt["product"].map { String($0.filter { $0 != "(" && $0 != ")" }) }
    let model = s.txt["usb_mdl"] ?? s.txt["ty"] ?? product
    info.model = model
    let id = DeviceID(
      "MFG:\(s.txt["usb_mfg"] ?? "");MDL:\(model ?? "");CMD:\(s.txt["usb_cmd"] ?? s.txt["pdl"] ?? "");"
    )
    let match = DriverTable.match(vendorID: nil, productID: nil, deviceID: id)
    info.driver = match?.model.name
    info.language = match?.model.language.rawValue
    info.printer =
      printers.first {
        ($0.spec.host == s.address || $0.spec.host == s.host) && $0.spec.port == s.port
      }?.id
    let host = s.address.contains(":") ? "[\(s.address)]" : s.address
    if s.type.hasPrefix("_ipp.") {
      let path = s.txt["rp"].map { "/" + $0 } ?? ""
      info.suggestion =
        "an IPP printer: give it to CUPS (lpadmin -p QUEUE -E -v ipp://\(host):\(s.port)\(path) "
        + "-m everywhere); labeld lists CUPS queues as cups:QUEUE"
    } else if let printer = info.printer {
      info.suggestion = "configured as \(printer)"
    } else {
      let name = String(
        s.name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(32))
      var line = "--printer \(name)=socket://\(host):\(s.port)"
      if let match {
        line += ",language=\(match.model.language.rawValue),model=\(match.model.name)"
      } else {
        line += ",language=LANGUAGE (\(PrinterLanguage.spokenList))"
      }
      info.suggestion = line
    }
    return info
  }
}
