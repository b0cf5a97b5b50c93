import CLibUSB

/// An open device (`libusb_device_handle`), closed on deinit. Not thread-safe: one owner
/// uses it from one thread at a time (a printer's serial queue), hence not Sendable.
public final class USBDeviceHandle {
  let raw: OpaquePointer
  public let device: USBDevice
  private var claimed: Set<UInt8> = []

  init(raw: OpaquePointer, device: USBDevice) {
    self.raw = raw
    self.device = device
  }

  deinit {
    for interface in claimed { libusb_release_interface(raw, Int32(interface)) }
    libusb_close(raw)
  }

  /// Whether a kernel driver (usblp) is bound to `interface`.
  public func kernelDriverActive(_ interface: UInt8) throws(USBError) -> Bool {
    try USBError.check(libusb_kernel_driver_active(raw, Int32(interface))) == 1
  }

  /// Unbinds the kernel driver from `interface` (it is not re-attached on close).
  public func detachKernelDriver(_ interface: UInt8) throws(USBError) {
    try USBError.check(libusb_detach_kernel_driver(raw, Int32(interface)))
  }

  /// Claims `interface`: `busy` when another process or driver holds it.
  public func claim(_ interface: UInt8) throws(USBError) {
    try USBError.check(libusb_claim_interface(raw, Int32(interface)))
    claimed.insert(interface)
  }

  public func release(_ interface: UInt8) {
    if claimed.remove(interface) != nil { libusb_release_interface(raw, Int32(interface)) }
  }

  public func setAlternate(_ alternate: UInt8, interface: UInt8) throws(USBError) {
    try USBError.check(
      libusb_set_interface_alt_setting(raw, Int32(interface), Int32(alternate)))
  }

  /// A device-to-host control transfer; returns the bytes received.
  public func controlIn(
    requestType: UInt8, request: UInt8, value: UInt16, index: UInt16, length: Int,
    timeoutMS: UInt32
  ) throws(USBError) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: length)
    let n = try USBError.check(
      libusb_control_transfer(
        raw, requestType, request, value, index, &buffer, UInt16(length), timeoutMS))
    return Array(buffer[0..<Int(n)])
  }

  /// Writes `bytes` to a bulk OUT endpoint in one transfer. A timeout or any other
  /// failure throws; the device may then have received part of the bytes.
  public func bulkWrite(_ bytes: ArraySlice<UInt8>, endpoint: UInt8, timeoutMS: UInt32)
    throws(USBError)
  {
    var transferred: Int32 = 0
    var copy = Array(bytes)
    let r = libusb_bulk_transfer(
      raw, endpoint, &copy, Int32(copy.count), &transferred, timeoutMS)
    try USBError.check(r)
    if Int(transferred) != copy.count { throw USBError.io }
  }

  /// Reads what a bulk IN endpoint has, up to `maxLength` bytes; `timeout` when nothing
  /// came within `timeoutMS`.
  public func bulkRead(endpoint: UInt8, maxLength: Int, timeoutMS: UInt32) throws(USBError)
    -> [UInt8]
  {
    var buffer = [UInt8](repeating: 0, count: maxLength)
    var transferred: Int32 = 0
    let r = libusb_bulk_transfer(
      raw, endpoint, &buffer, Int32(maxLength), &transferred, timeoutMS)
    if r == LIBUSB_ERROR_TIMEOUT.rawValue && transferred > 0 {
      return Array(buffer[0..<Int(transferred)])
    }
    try USBError.check(r)
    return Array(buffer[0..<Int(transferred)])
  }

  /// A string descriptor in ASCII (serial number, product name).
  public func string(at index: UInt8) throws(USBError) -> String {
    guard index != 0 else { throw USBError.notFound }
    var buffer = [UInt8](repeating: 0, count: 256)
    let n = try USBError.check(
      libusb_get_string_descriptor_ascii(raw, index, &buffer, Int32(buffer.count)))
    return String(decoding: buffer[0..<Int(n)], as: UTF8.self)
  }

  /// The printer's IEEE-1284 device id (printer class request GET_DEVICE_ID), e.g.
  /// `MFG:Brother;CMD:PT-CBP;MDL:QL-820NWB;`.
  public func ieee1284DeviceID(_ interface: USBPrinterInterface, timeoutMS: UInt32 = 2000)
    throws(USBError) -> String
  {
    let reply = try controlIn(
      requestType: 0xA1, request: 0, value: UInt16(interface.configurationIndex),
      index: UInt16(interface.number) << 8 | UInt16(interface.alternate), length: 1024,
      timeoutMS: timeoutMS)
    return Self.deviceIDText(reply)
  }

  /// The id in a GET_DEVICE_ID reply: its length prefix read (big-endian, or little-endian
  /// from the devices that send it so) and kept within the reply, control characters at
  /// either end dropped. Whatever a device sends, an id or "" (PrinterInputFuzzTests).
  public static func deviceIDText(_ reply: [UInt8]) -> String {
    guard reply.count >= 2 else { return "" }
    // Big-endian length including its own two bytes; some devices send it little-endian
    // (CUPS' usb backend has the same fallback).
    var length = Int(reply[0]) << 8 | Int(reply[1])
    if length > reply.count || length < 2 { length = Int(reply[1]) << 8 | Int(reply[0]) }
    length = min(max(length, 2), reply.count)
    // Control characters (Unicode Cc and Cf) at either end are not part of the id.
    let control = { (c: Character) in
      c.unicodeScalars.allSatisfy {
        $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
      }
    }
    let text = String(decoding: reply[2..<length], as: UTF8.self)
    guard let first = text.firstIndex(where: { !control($0) }),
      let last = text.lastIndex(where: { !control($0) })
    else { return "" }
    return String(text[first...last])
  }
}
