import FoundationEssentials
import LabelCore
import LabelLanguages
import LabelUSB

/// One device as discovery saw it: the report for `devices.list`, and for a printer the
/// model it matched and where its interface is.
package struct USBCandidate: Sendable {
  package var info: USBDeviceInfo
  package var device: USBDevice
  package var interface: USBPrinterInterface?
  package var model: ModelEntry?
  package var serial: String?

  /// Every USB printer's id starts so.
  package static let idPrefix = "usb:"

  /// `usb:vvvv:pppp:SERIAL`, stable across replugs; the port path stands in for a
  /// missing serial number (stable while the printer stays in the same socket).
  package var printerID: String {
    let s = (serial?.isEmpty == false ? serial! : "port-\(device.portPath)")
      .map { $0 == ":" || $0 == " " || $0 == "/" ? "_" : $0 }
    return Self.idPrefix + "\(info.vendorID):\(info.productID):\(String(s))"
  }

  package var key: USBDeviceKey { USBDeviceKey(bus: device.busNumber, address: device.address) }

  package init(
    info: USBDeviceInfo, device: USBDevice, interface: USBPrinterInterface? = nil,
    model: ModelEntry? = nil, serial: String? = nil
  ) {
    self.info = info
    self.device = device
    self.interface = interface
    self.model = model
    self.serial = serial
  }
}

/// A device's place on the bus; a replugged device gets a new address.
package struct USBDeviceKey: Hashable, Sendable {
  package var bus: UInt8
  package var address: UInt8

  package init(bus: UInt8, address: UInt8) {
    self.bus = bus
    self.address = address
  }
}

/// Discovery: looks at every device on the bus (blocking; run it on the bus queue).
package enum USBProbe {
  /// Vendors whose devices are worth opening even without a printer-class interface.
  package static let knownVendors = Set(DriverTable.models.map(\.vendorID))

  /// Every device; those in `known` are reported from `cached` without being opened again
  /// (they are printers in use: opening them would collide with a job).
  package static func scan(context: USBContext, known: [USBDeviceKey: USBCandidate])
    throws(USBError)
    -> [USBCandidate]
  {
    try context.devices().map { device in
      let key = USBDeviceKey(bus: device.busNumber, address: device.address)
      if let cached = known[key], cached.device.vendorID == device.vendorID,
        cached.device.productID == device.productID
      {
        return cached
      }
      return probe(device)
    }
  }

  package static func hex(_ v: UInt16) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 4 - s.count) + s
  }

  /// A sysfs attribute of the device ("serial", "manufacturer"): readable without the
  /// permission to open the device.
  package static func sysfs(_ device: USBDevice, _ name: String) -> String? {
    let path = "/sys/bus/usb/devices/\(device.portPath)/\(name)"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    let value = text.trimmed
    return value.isEmpty ? nil : value
  }

  package static func probe(_ device: USBDevice) -> USBCandidate {
    let interface = device.printerInterfaces.first
    var info = USBDeviceInfo(
      port: device.portPath, bus: Int(device.busNumber), address: Int(device.address),
      vendorID: hex(device.vendorID), productID: hex(device.productID),
      printerClass: interface != nil, status: .notPrinter, message: "")
    info.manufacturer = sysfs(device, "manufacturer")
    info.product = sysfs(device, "product")
    var candidate = USBCandidate(
      info: info, device: device, interface: interface, model: nil,
      serial: sysfs(device, "serial"))
    defer { candidate.info.serial = candidate.serial }
    guard let interface else {
      candidate.info.message =
        knownVendors.contains(device.vendorID)
        ? "no printer-class interface (a scanner or another function of a printer maker)"
        : "not a printer (no printer-class interface)"
      return candidate
    }
    let node = device.node
    var deviceID: String?
    var problem: (USBDeviceInfo.Status, String)?
    do {
      let handle = try device.open()
      var notes: [String] = []
      if (try? handle.kernelDriverActive(interface.number)) == true {
        try handle.detachKernelDriver(interface.number)
        notes.append("detached the kernel driver (usblp)")
      }
      if candidate.serial == nil { candidate.serial = try? handle.string(at: device.serialIndex) }
      if candidate.info.product == nil {
        candidate.info.product = try? handle.string(at: device.productIndex)
      }
      do {
        try handle.claim(interface.number)
        deviceID = try handle.ieee1284DeviceID(interface)
        handle.release(interface.number)
      } catch .busy {
        problem = (.busy, "\(node) is held by another process or driver (usblp, ipp-usb, CUPS)")
      }
      if problem == nil, !notes.isEmpty { candidate.info.message = notes.joined(separator: "; ") }
    } catch .access {
      problem = (.permissionDenied, "permission denied opening \(node); \(USBPermissions.advice)")
    } catch .busy {
      problem = (.busy, "\(node) is held by another process or driver (usblp, ipp-usb, CUPS)")
    } catch {
      problem = (.error, "cannot read \(node): \(error)")
    }
    candidate.info.deviceID = deviceID
    let parsed = deviceID.map(DeviceID.init)
    if let match = DriverTable.match(
      vendorID: device.vendorID, productID: device.productID, deviceID: parsed)
    {
      candidate.model = match.model
      candidate.info.driver = match.model.name
      candidate.info.score = match.score
      candidate.info.printer = candidate.printerID
    }
    if let (status, message) = problem {
      candidate.info.status = status
      candidate.info.message = message
      if candidate.model == nil {
        candidate.info.message += "; the driver is chosen once the printer's device id can be read"
      }
    } else if let model = candidate.model {
      candidate.info.status = .ok
      let why =
        "matched \(model.name) (score \(candidate.info.score ?? 0): "
        + "\(model.productID == device.productID ? "vendor and product id" : "device id"))"
      candidate.info.message =
        candidate.info.message.isEmpty ? why : why + "; " + candidate.info.message
    } else {
      candidate.info.status = .noDriver
      let d = parsed
      candidate.info.message =
        "no driver for MFG \(d?.manufacturer ?? "?"), MDL \(d?.model ?? "?"), "
        + "CMD \(d?.commandSets.joined(separator: ",") ?? "?") (labeld drives "
        + LanguageProfile.all.map(\.displayName).joined(separator: ", ") + " printers)"
    }
    return candidate
  }
}
