import CLibUSB
import Dispatch
import Synchronization

/// A libusb context: the owner of `libusb_context`, freed on deinit.
///
/// libusb's context functions (device lists, event handling, hotplug registration) are
/// thread-safe, hence `@unchecked Sendable`; device handles are not, and are owned
/// elsewhere (`USBDeviceHandle`).
public final class USBContext: @unchecked Sendable {
  let raw: OpaquePointer

  /// Initialises libusb. Throws when there is no USB bus to use (no usbfs: a container, a
  /// machine without USB), `notSupported` or `other` then.
  public init() throws(USBError) {
    var ctx: OpaquePointer?
    try USBError.check(libusb_init(&ctx))
    guard let ctx else { throw USBError.other }
    raw = ctx
    _ = clibusb_set_log_level(ctx, Int32(LIBUSB_LOG_LEVEL_NONE.rawValue))
  }

  deinit { libusb_exit(raw) }

  /// Whether libusb reports device arrival and removal (`registerHotplug`).
  public var supportsHotplug: Bool {
    libusb_has_capability(UInt32(LIBUSB_CAP_HAS_HOTPLUG.rawValue)) != 0
  }

  /// The devices on the bus now.
  public func devices() throws(USBError) -> [USBDevice] {
    var list: UnsafeMutablePointer<OpaquePointer?>?
    let count = libusb_get_device_list(raw, &list)
    guard count >= 0, let list else { throw USBError(code: Int32(truncatingIfNeeded: count)) }
    defer { libusb_free_device_list(list, 1) }
    var out: [USBDevice] = []
    for i in 0..<count {
      if let device = list[i], let d = USBDevice(retaining: device, context: self) {
        out.append(d)
      }
    }
    return out
  }

  /// Handles pending libusb events (hotplug callbacks, completions) for up to `timeout`.
  /// Blocks: call it from the event thread only (`USBEventThread`).
  public func handleEvents(timeout: Duration) {
    let (seconds, attoseconds) = timeout.components
    var tv = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    _ = libusb_handle_events_timeout_completed(raw, &tv, nil)
  }

  /// Makes a blocked `handleEvents` return at once.
  public func interruptEventHandler() { libusb_interrupt_event_handler(raw) }
}

/// A thread that runs libusb's event handling (hotplug callbacks are delivered there), off
/// the Swift cooperative pool. `stop()` ends it and waits for it.
public final class USBEventThread: Sendable {
  private let context: USBContext
  private let stopped = Mutex(false)
  private let finished = DispatchSemaphore(value: 0)

  public init(context: USBContext) {
    self.context = context
    // The thread holds this object until `stop()`: events are handled until then.
    DispatchQueue(label: "labeld-usb-events").async { [self] in
      while !stopped.withLock({ $0 }) {
        context.handleEvents(timeout: .seconds(1))
      }
      finished.signal()
    }
  }

  public func stop() {
    let already = stopped.withLock { s in
      defer { s = true }
      return s
    }
    guard !already else { return }
    context.interruptEventHandler()
    finished.wait()
  }
}
