import CLibUSB

/// A libusb error code (`enum libusb_error`), typed: the one error of this module.
public struct USBError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
  /// The negative `LIBUSB_ERROR_*` value.
  public let code: Int32

  public init(code: Int32) { self.code = code }
  init(_ e: libusb_error) { code = e.rawValue }

  /// `LIBUSB_ERROR_IO`: input/output error.
  public static let io = USBError(LIBUSB_ERROR_IO)
  /// `LIBUSB_ERROR_INVALID_PARAM`.
  public static let invalidParameter = USBError(LIBUSB_ERROR_INVALID_PARAM)
  /// `LIBUSB_ERROR_ACCESS`: the device node is not ours to open (udev permissions).
  public static let access = USBError(LIBUSB_ERROR_ACCESS)
  /// `LIBUSB_ERROR_NO_DEVICE`: the device was unplugged.
  public static let noDevice = USBError(LIBUSB_ERROR_NO_DEVICE)
  /// `LIBUSB_ERROR_NOT_FOUND`: no such entity (or the device is gone).
  public static let notFound = USBError(LIBUSB_ERROR_NOT_FOUND)
  /// `LIBUSB_ERROR_BUSY`: the interface is claimed by another process or driver.
  public static let busy = USBError(LIBUSB_ERROR_BUSY)
  /// `LIBUSB_ERROR_TIMEOUT`: the device did not complete the transfer in time.
  public static let timeout = USBError(LIBUSB_ERROR_TIMEOUT)
  /// `LIBUSB_ERROR_OVERFLOW`: the device sent more than the buffer holds.
  public static let overflow = USBError(LIBUSB_ERROR_OVERFLOW)
  /// `LIBUSB_ERROR_PIPE`: the endpoint stalled.
  public static let pipe = USBError(LIBUSB_ERROR_PIPE)
  /// `LIBUSB_ERROR_INTERRUPTED`.
  public static let interrupted = USBError(LIBUSB_ERROR_INTERRUPTED)
  /// `LIBUSB_ERROR_NO_MEM`.
  public static let noMemory = USBError(LIBUSB_ERROR_NO_MEM)
  /// `LIBUSB_ERROR_NOT_SUPPORTED`: not on this platform (or no usbfs at all).
  public static let notSupported = USBError(LIBUSB_ERROR_NOT_SUPPORTED)
  /// `LIBUSB_ERROR_OTHER`.
  public static let other = USBError(LIBUSB_ERROR_OTHER)

  /// libusb's name for the code ("LIBUSB_ERROR_ACCESS").
  public var name: String { String(cString: libusb_error_name(code)) }

  public var description: String { "\(String(cString: libusb_strerror(code))) (\(name))" }

  /// Throws the code when a libusb call returned a negative value; returns it otherwise.
  @discardableResult
  static func check(_ result: Int32) throws(USBError) -> Int32 {
    if result < 0 { throw USBError(code: result) }
    return result
  }
}
