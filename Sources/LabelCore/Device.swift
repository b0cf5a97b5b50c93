/// What labeld found on the USB bus, device by device (`devices.list`, a labeld addition
/// to protocol v1): whether it became a printer, and if not, why not.
public struct USBDeviceInfo: Codable, Sendable, Equatable {
  /// Why a device is or is not a printer.
  public enum Status: String, Codable, Sendable {
    /// A printer labeld drives (`printer` names it).
    case ok
    /// The device node cannot be opened: udev rules are missing.
    case permissionDenied
    /// Another process or driver holds the printer interface.
    case busy
    /// A printer with no matching driver.
    case noDriver
    /// Not a printer (no printer-class interface, not a known printer vendor).
    case notPrinter
    /// Anything else that failed while looking at it (the message says what).
    case error
  }

  /// The kernel's port path ("1-4.2") and the bus address.
  public var port: String
  public var bus: Int
  public var address: Int
  /// Hex, four digits ("04f9").
  public var vendorID: String
  public var productID: String
  public var manufacturer: String?
  public var product: String?
  public var serial: String?
  /// The IEEE-1284 device id the printer reported.
  public var deviceID: String?
  /// Has a printer-class (7/1) interface.
  public var printerClass: Bool
  /// The printer id it is driven as.
  public var printer: String?
  /// The matched model and its score (`DriverTable.match`).
  public var driver: String?
  public var score: Int?
  public var status: Status
  public var message: String

  public init(
    port: String, bus: Int, address: Int, vendorID: String, productID: String,
    printerClass: Bool, status: Status, message: String
  ) {
    self.port = port
    self.bus = bus
    self.address = address
    self.vendorID = vendorID
    self.productID = productID
    self.printerClass = printerClass
    self.status = status
    self.message = message
  }
}

/// A printer announced on the network by DNS-SD (`devices.list`, a labeld addition): never
/// printed to until configured; `suggestion` says how.
public struct NetworkDeviceInfo: Codable, Sendable, Equatable {
  /// The service's instance name ("Zebra ZD420 dock").
  public var name: String
  /// `_pdl-datastream._tcp` (a raw port labeld can drive) or `_ipp._tcp` (for CUPS).
  public var type: String
  public var host: String
  public var address: String
  public var port: Int
  /// The model its TXT record names, where it does.
  public var model: String?
  /// The driver row it matches (its language in `language`), where one does.
  public var driver: String?
  public var language: String?
  /// The configured printer at this address and port, if any.
  public var printer: String?
  /// What to do with it: the `--printer` line that adds it, or how to give it to CUPS.
  public var suggestion: String

  public init(
    name: String, type: String, host: String, address: String, port: Int, suggestion: String
  ) {
    self.name = name
    self.type = type
    self.host = host
    self.address = address
    self.port = port
    self.suggestion = suggestion
  }
}

/// `devices.list`: `enabled` false when USB is switched off or unavailable (`message`
/// says why). labeld adds `network`: the printers DNS-SD finds (`networkMessage` says why
/// it could not look).
public struct DevicesResult: Codable, Sendable {
  public var enabled: Bool
  public var message: String?
  public var devices: [USBDeviceInfo]
  public var network: [NetworkDeviceInfo]?
  public var networkMessage: String?
  public init(
    enabled: Bool, message: String?, devices: [USBDeviceInfo],
    network: [NetworkDeviceInfo]? = nil, networkMessage: String? = nil
  ) {
    self.enabled = enabled
    self.message = message
    self.devices = devices
    self.network = network
    self.networkMessage = networkMessage
  }

  /// This result with `other`'s network devices added (USB's fields stay this one's).
  public func merged(with other: DevicesResult) -> DevicesResult {
    var out = self
    if let more = other.network { out.network = (out.network ?? []) + more }
    out.networkMessage = out.networkMessage ?? other.networkMessage
    out.devices += other.devices
    return out
  }
}
