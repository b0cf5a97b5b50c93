import LabelConcurrency
import LabelCore
import LabelUSB

/// The USB bus as labeld uses it: one libusb context, the thread handling its events, the
/// hotplug registration, and the serial queue discovery runs on.
package final class USBBus: Sendable {
  package let context: USBContext
  package let queue = BlockingQueue(label: "labeld.usb.discovery")
  private let events: USBEventThread?
  private let hotplug: USBHotplugRegistration?

  /// Opens the bus; `onChange` is called (on the event thread) whenever a device arrives
  /// or leaves. Throws when there is no USB to use.
  package init(onChange: @escaping @Sendable () -> Void) throws(USBError) {
    context = try USBContext()
    if context.supportsHotplug {
      hotplug = try USBHotplugRegistration(context: context) { _ in onChange() }
      events = USBEventThread(context: context)
    } else {
      hotplug = nil
      events = nil
    }
  }

  package var hasHotplug: Bool { hotplug != nil }

  package func stop() { events?.stop() }
}
