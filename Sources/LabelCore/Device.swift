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

/// `devices.list`: `enabled` false when USB is switched off or unavailable (`message`
/// says why).
public struct DevicesResult: Codable, Sendable {
  public var enabled: Bool
  public var message: String?
  public var devices: [USBDeviceInfo]
  public init(enabled: Bool, message: String?, devices: [USBDeviceInfo]) {
    self.enabled = enabled
    self.message = message
    self.devices = devices
  }
}
