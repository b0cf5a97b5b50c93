import LabelCommandLine
import LabelCore

/// `labelctl devices`: what is on the USB bus, which driver matched, and why not.
struct DevicesCommand: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      name: "devices",
      abstract: "List the USB devices labeld sees and which driver matched (devices.list).",
      usage: ["labelctl devices"],
      discussion: """
        One line per device on the bus: its port, vendor:product, the printer id it is
        driven as and the matched driver, or why it is not a printer: permissionDenied
        (install udev/70-labeld.rules), busy (held by usblp, ipp-usb or CUPS), noDriver,
        notPrinter. labeld looks at the bus afresh for this.
        """)
  }

  init(parsing arguments: inout ParsedArguments) throws(UsageError) {}

  func run(_ context: Context) throws(CommandError) {
    try context.show(.devicesList, as: DevicesResult.self) { result in
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
  }
}
