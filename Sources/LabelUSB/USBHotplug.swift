import CLibUSB

/// A device arrived or left.
public enum USBHotplugEvent: Sendable, Equatable {
  case arrived(vendorID: UInt16, productID: UInt16)
  case left(vendorID: UInt16, productID: UInt16)
}

/// A registered hotplug callback, deregistered on deinit. Callbacks run on the thread that
/// handles libusb events (`USBEventThread`) and must only hand the event on.
///
/// `@unchecked Sendable`: `handle` is written once, by `init`, and read by `deinit`; the
/// box's handler is itself `@Sendable`.
public final class USBHotplugRegistration: @unchecked Sendable {
  private let context: USBContext
  private var handle: libusb_hotplug_callback_handle = 0
  private let box: Box

  final class Box {
    let handler: @Sendable (USBHotplugEvent) -> Void
    init(_ handler: @escaping @Sendable (USBHotplugEvent) -> Void) { self.handler = handler }
  }

  /// Calls `handler` for every device that arrives or leaves from now on.
  public init(context: USBContext, handler: @escaping @Sendable (USBHotplugEvent) -> Void)
    throws(USBError)
  {
    self.context = context
    box = Box(handler)
    let events = Int32(
      LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
    let any = LIBUSB_HOTPLUG_MATCH_ANY
    try USBError.check(
      libusb_hotplug_register_callback(
        context.raw, events, 0, any, any, any,
        { _, device, event, userData in
          guard let userData, let device else { return 0 }
          let box = Unmanaged<Box>.fromOpaque(userData).takeUnretainedValue()
          var d = libusb_device_descriptor()
          _ = libusb_get_device_descriptor(device, &d)
          if event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED {
            box.handler(.arrived(vendorID: d.idVendor, productID: d.idProduct))
          } else {
            box.handler(.left(vendorID: d.idVendor, productID: d.idProduct))
          }
          return 0
        }, Unmanaged.passUnretained(box).toOpaque(), &handle))
  }

  deinit { libusb_hotplug_deregister_callback(context.raw, handle) }
}
