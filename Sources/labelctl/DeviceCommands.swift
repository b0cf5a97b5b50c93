import LabelCommandLine
import LabelCore

/// `labelctl devices`: what is on the USB bus, which driver matched, and why not; and the
/// network printers DNS-SD finds, with the configuration line that adds each.
struct DevicesCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "devices",
      abstract:
        "List USB devices and network printers labeld sees, and their drivers (devices.list).",
      usage: ["labelctl devices"],
      discussion: """
        One line per device on the bus: its port, vendor:product, the printer id it is
        driven as and the matched driver, or why it is not a printer: permissionDenied
        (install udev/70-labeld.rules), busy (held by usblp, ipp-usb or CUPS), noDriver,
        notPrinter. labeld looks at the bus afresh for this.

        Then the network printers that announce themselves with DNS-SD (raw-port printers,
        _pdl-datastream._tcp, and IPP printers, _ipp._tcp), listened for 1.5 s through
        avahi-daemon: each with the --printer line that would add it (labeld prints to
        no network printer until it is configured), or, for an IPP printer, how to give
        it to CUPS.
        """)
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    try context.show(.devicesList, as: DevicesResult.self) { result in
      Self.usb(result) + Self.network(result)
    }
  }

  static func usb(_ result: DevicesResult) -> String {
    guard result.enabled else {
      return "USB is not in use: \(result.message ?? "switched off").\n"
    }
    guard !result.devices.isEmpty else { return "No USB devices.\n" }
    var table = Table("PORT", "ID", "STATUS", "PRINTER", "DRIVER", "WHY")
    for d in result.devices {
      table.add(
        d.port, "\(d.vendorID):\(d.productID)", d.status.rawValue, d.printer ?? "-",
        d.driver ?? "-", d.message)
    }
    return table.text
  }

  /// The printers DNS-SD found: each with the line that adds it (labeld adds none itself).
  static func network(_ result: DevicesResult) -> String {
    if let why = result.networkMessage { return "\nNetwork: \(why).\n" }
    guard let found = result.network else { return "" }
    guard !found.isEmpty else { return "\nNo network printers announce themselves (DNS-SD).\n" }
    var table = Table("NETWORK", "ADDRESS", "MODEL", "DRIVER", "TO ADD IT")
    for d in found {
      let address = d.address.contains(":") ? "[\(d.address)]:\(d.port)" : "\(d.address):\(d.port)"
      table.add(d.name, address, d.model ?? "-", d.driver ?? "-", d.suggestion)
    }
    return "\n" + table.text
  }
}
