import CLibUSB

/// A printer-class interface (class 7, subclass 1) of a device: where its bytes go.
public struct USBPrinterInterface: Sendable, Equatable {
  /// `bConfigurationValue` of the configuration holding it, and its index.
  public var configuration: UInt8
  public var configurationIndex: UInt8
  public var number: UInt8
  public var alternate: UInt8
  /// 1 unidirectional, 2 bidirectional (status readable), 3 IEEE 1284.4.
  public var printerProtocol: UInt8
  public var outEndpoint: UInt8
  /// Nil on unidirectional printers: no status can be read.
  public var inEndpoint: UInt8?
  public var maxPacketSize: Int
}

/// A device on the bus: libusb's `libusb_device`, referenced while this lives. Its
/// descriptor fields are read once, when it is listed; opening it needs no other state, so
/// sharing it between threads is safe.
public final class USBDevice: @unchecked Sendable {
  let raw: OpaquePointer
  let context: USBContext
  public let vendorID: UInt16
  public let productID: UInt16
  public let deviceClass: UInt8
  public let busNumber: UInt8
  public let address: UInt8

  /// The device's node, `/dev/bus/usb/BBB/AAA` (what udev rules and permissions apply to).
  public var node: String {
    func three(_ n: UInt8) -> String {
      String(repeating: "0", count: n < 10 ? 2 : n < 100 ? 1 : 0) + String(n)
    }
    return "/dev/bus/usb/\(three(busNumber))/\(three(address))"
  }
  /// Port numbers from the root hub ("1-4.2" is bus 1, ports [4, 2]).
  public let ports: [UInt8]
  /// String descriptor indexes (0: none).
  public let manufacturerIndex: UInt8
  public let productIndex: UInt8
  public let serialIndex: UInt8
  /// Printer-class interfaces, bidirectional first.
  public let printerInterfaces: [USBPrinterInterface]

  init?(retaining device: OpaquePointer, context: USBContext) {
    var d = libusb_device_descriptor()
    guard libusb_get_device_descriptor(device, &d) == 0 else { return nil }
    raw = libusb_ref_device(device)
    self.context = context
    vendorID = d.idVendor
    productID = d.idProduct
    deviceClass = d.bDeviceClass
    busNumber = libusb_get_bus_number(device)
    address = libusb_get_device_address(device)
    var portBuffer = [UInt8](repeating: 0, count: 8)
    let n = libusb_get_port_numbers(device, &portBuffer, Int32(portBuffer.count))
    ports = n > 0 ? Array(portBuffer[0..<Int(n)]) : []
    manufacturerIndex = d.iManufacturer
    productIndex = d.iProduct
    serialIndex = d.iSerialNumber
    printerInterfaces = Self.printerInterfaces(device, configurations: d.bNumConfigurations)
  }

  deinit { libusb_unref_device(raw) }

  /// The kernel's name for the device's port ("1-4.2"): its sysfs directory.
  public var portPath: String {
    ports.isEmpty
      ? "\(busNumber)-0" : "\(busNumber)-" + ports.map { String($0) }.joined(separator: ".")
  }

  /// Opens the device. `access` when the node is not ours (udev rules), `noDevice` when
  /// it was unplugged.
  public func open() throws(USBError) -> USBDeviceHandle {
    var handle: OpaquePointer?
    try USBError.check(libusb_open(raw, &handle))
    guard let handle else { throw USBError.other }
    return USBDeviceHandle(raw: handle, device: self)
  }

  private static func printerInterfaces(_ device: OpaquePointer, configurations: UInt8)
    -> [USBPrinterInterface]
  {
    var found: [USBPrinterInterface] = []
    for index in 0..<configurations {
      var config: UnsafeMutablePointer<libusb_config_descriptor>?
      guard libusb_get_config_descriptor(device, index, &config) == 0, let config else {
        continue
      }
      defer { libusb_free_config_descriptor(config) }
      let c = config.pointee
      for i in 0..<Int(c.bNumInterfaces) {
        let interface = c.interface[i]
        for a in 0..<Int(interface.num_altsetting) {
          let alt = interface.altsetting[a]
          guard alt.bInterfaceClass == 7, alt.bInterfaceSubClass == 1 else { continue }
          var out: UInt8?
          var input: UInt8?
          var packet = 64
          for e in 0..<Int(alt.bNumEndpoints) {
            let ep = alt.endpoint[e]
            guard ep.bmAttributes & 0x03 == 2 else { continue }  // bulk
            if ep.bEndpointAddress & 0x80 != 0 {
              input = input ?? ep.bEndpointAddress
            } else if out == nil {
              out = ep.bEndpointAddress
              packet = Int(ep.wMaxPacketSize)
            }
          }
          guard let out else { continue }
          found.append(
            USBPrinterInterface(
              configuration: c.bConfigurationValue, configurationIndex: index,
              number: alt.bInterfaceNumber, alternate: alt.bAlternateSetting,
              printerProtocol: alt.bInterfaceProtocol, outEndpoint: out,
              inEndpoint: alt.bInterfaceProtocol >= 2 ? input : nil, maxPacketSize: packet))
        }
      }
    }
    // Bidirectional (protocol 2) before unidirectional; 1284.4 (3) last.
    let rank: (UInt8) -> Int = { [2: 0, 1: 1][$0] ?? 2 }
    return found.sorted { rank($0.printerProtocol) < rank($1.printerProtocol) }
  }
}
