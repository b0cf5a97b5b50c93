import LabelCore
import LabelDNSSD
import LabelLog
import Synchronization

/// labeld's printers announced with DNS-SD when IPP listens beyond this machine, so that
/// print dialogs, phones and `ippfind` find them: `_ipps._tcp` with the subtypes `_print`
/// (IPP Everywhere, PWG 5100.14 §4.2) and `_universal` (AirPrint), and the TXT keys those
/// clients read. A printer is announced when it comes, withdrawn while it is gone
/// (unplugged, a queue its server no longer has) and when labeld stops.
final class IPPAnnouncer: Sendable {
  private let publisher: DNSSDPublisher
  private let port: Int
  private let tls: Bool
  private let host: String
  private let view: @Sendable (Printer) -> PrinterAttributes?
  private let log: Logger
  /// Printer id → the announcement's id.
  private let announced = Mutex<[String: Int32]>([:])

  init(
    port: Int, tls: Bool, view: @escaping @Sendable (Printer) -> PrinterAttributes?, log: Logger
  ) throws(DNSSD.Failure) {
    publisher = try DNSSDPublisher()
    self.port = port
    self.tls = tls
    self.view = view
    self.log = log
    host = IPPNames.hostName
  }

  /// A printer as it is now: announced, or withdrawn while it is gone.
  func update(_ printer: Printer) {
    let gone = printer.reasons.contains(.disconnected) || printer.reasons.contains(.notFound)
    if gone {
      if let id = announced.withLock({ $0.removeValue(forKey: printer.id) }) {
        publisher.withdraw(id)
        log.info("dns-sd: withdrew \(printer.id) (gone)")
      }
      return
    }
    guard announced.withLock({ $0[printer.id] }) == nil, let service = self.service(printer) else {
      return
    }
    guard let id = publisher.publish(service) else {
      log.warning("dns-sd: cannot announce \(printer.id)")
      return
    }
    let kept = announced.withLock { a -> Bool in
      guard a[printer.id] == nil else { return false }
      a[printer.id] = id
      return true
    }
    if kept {
      log.info("dns-sd: announcing \(printer.id) as \"\(service.name)\" (\(service.type))")
    } else {
      publisher.withdraw(id)
    }
  }

  /// The name a printer is announced under now (after Avahi's renaming, if any).
  func name(of printer: String) -> (name: String, registered: Bool)? {
    guard let id = announced.withLock({ $0[printer] }) else { return nil }
    return publisher.name(id)
  }

  func service(_ printer: Printer) -> DNSSDPublisher.Service? {
    let type = tls ? "_ipps._tcp" : "_ipp._tcp"
    guard let attributes = view(printer) else { return nil }
    let path = IPPNames.path(printer: printer.id)
    let uuid = attributes.uuid.replacing("urn:uuid:", with: "")
    // RFC 6763 §4.1.1: an instance name is at most 63 bytes.
    let name = clipped("\(attributes.makeAndModel) (\(printer.id)) @ \(host)", bytes: 63)
    var txt: [(String, String)] = [
      ("txtvers", "1"), ("qtotal", "1"), ("rp", String(path.dropFirst())),
      ("ty", attributes.makeAndModel), ("product", "(\(attributes.makeAndModel))"),
      ("pdl", PrinterAttributes.formats.joined(separator: ",")),
      ("URF", "V1.4,CP1,PQ4,RS\(printer.dpi),W8"), ("UUID", uuid), ("Color", "F"),
      ("Duplex", "F"), ("adminurl", attributes.moreInfo), ("note", ""), ("kind", "label"),
      ("priority", "0"),
    ]
    if tls { txt.append(("TLS", "1.2")) }
    // Bonjour Printing 1.2 §9.2.7: a client asks for a name and password before it prints.
    txt.append(("air", attributes.signIn ? "username,password" : "none"))
    return DNSSDPublisher.Service(
      name: name, type: type, port: port,
      subtypes: ["_print._sub.\(type)", "_universal._sub.\(type)"], txt: txt)
  }
}
