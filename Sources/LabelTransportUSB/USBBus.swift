import Dispatch
import Foundation
import LabelUSB

/// Runs blocking work on `queue` (a dispatch thread, never the Swift cooperative pool) and
/// resumes the caller with its result.
func onQueue<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T)
  async throws -> T
{
  try await withCheckedThrowingContinuation { continuation in
    queue.async { continuation.resume(with: Result { try body() }) }
  }
}

/// The USB bus as labeld uses it: one libusb context, the thread handling its events, the
/// hotplug registration, and the serial queue discovery runs on.
final class USBBus: Sendable {
  let context: USBContext
  let queue = DispatchQueue(label: "labeld.usb.discovery")
  private let events: USBEventThread?
  private let hotplug: USBHotplugRegistration?

  /// Opens the bus; `onChange` is called (on the event thread) whenever a device arrives
  /// or leaves. Throws when there is no USB to use.
  init(onChange: @escaping @Sendable () -> Void) throws(USBError) {
    context = try USBContext()
    if context.supportsHotplug {
      hotplug = try USBHotplugRegistration(context: context) { _ in onChange() }
      events = USBEventThread(context: context)
    } else {
      hotplug = nil
      events = nil
    }
  }

  var hasHotplug: Bool { hotplug != nil }

  func stop() { events?.stop() }
}
