import FoundationEssentials
import LabelCore
import LabelInterfaces
import LabelUSB
import Synchronization

/// How long labeld waits on a USB printer; every wait is bounded.
public struct USBTimeouts: Sendable, Equatable {
  /// A status reply (Brother `ESC i S`, Zebra `~HQES`).
  public var statusMS: UInt32 = 2000
  /// One chunk of a job accepted by the printer.
  public var writeMS: UInt32 = 10_000
  /// A page printed, from the last status heard (Brother "printing completed").
  public var pageMS: UInt32 = 20_000
  public init() {}
}

/// A cancellation request a blocking loop can check between transfers.
package final class CancelFlag: Sendable {
  private let flag = Atomic<Bool>(false)
  package func set() { flag.store(true, ordering: .relaxed) }
  package var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// An open, claimed printer interface for one operation (a job copy, a status poll):
/// chunked bulk OUT, bulk IN with deadlines, and the mapping of libusb errors to
/// `TransportError`. Lives on the printer's I/O queue only, and closes the device when it
/// goes away.
package final class USBLink {
  package let handle: USBDeviceHandle
  package let interface: USBPrinterInterface
  package let name: String
  package let node: String
  package let timeouts: USBTimeouts
  package let cancel: CancelFlag
  /// Bytes read from the printer and not consumed yet.
  package var input: [UInt8] = []
  /// Bytes written, for the benchmark's link accounting.
  package private(set) var written = 0

  package static let chunk = 16 * 1024

  /// Opens and claims `interface` of `device`, detaching usblp if it holds it.
  package init(
    device: USBDevice, interface: USBPrinterInterface, name: String, timeouts: USBTimeouts,
    cancel: CancelFlag
  ) throws(TransportError) {
    node = device.node
    self.interface = interface
    self.name = name
    self.timeouts = timeouts
    self.cancel = cancel
    do {
      handle = try device.open()
      if (try? handle.kernelDriverActive(interface.number)) == true {
        try handle.detachKernelDriver(interface.number)
      }
      try handle.claim(interface.number)
      if interface.alternate != 0 {
        try handle.setAlternate(interface.alternate, interface: interface.number)
      }
    } catch {
      throw USBFaults.transportError(error, printer: name, device: node, doing: "opening it")
    }
  }

  deinit { handle.release(interface.number) }

  package func checkCancelled() throws(CancellationError) {
    if cancel.isSet { throw CancellationError() }
  }

  /// Sends `bytes` in chunks, each with a bounded wait.
  package func write(_ bytes: [UInt8], doing: String) throws(USBLinkError) {
    var offset = 0
    while offset < bytes.count {
      do { try checkCancelled() } catch { throw .cancelled }
      let end = min(offset + Self.chunk, bytes.count)
      do {
        try handle.bulkWrite(
          bytes[offset..<end], endpoint: interface.outEndpoint, timeoutMS: timeouts.writeMS)
      } catch {
        throw .usb(error, doing: doing)
      }
      written += end - offset
      offset = end
    }
  }

  /// Reads what the printer sends within `timeoutMS` into `input`; false when nothing came.
  package func read(timeoutMS: UInt32, doing: String) throws(USBLinkError) -> Bool {
    guard let endpoint = interface.inEndpoint else { return false }
    do { try checkCancelled() } catch { throw .cancelled }
    do {
      let bytes = try handle.bulkRead(
        endpoint: endpoint, maxLength: max(interface.maxPacketSize, 64), timeoutMS: timeoutMS)
      input += bytes
      return !bytes.isEmpty
    } catch .timeout {
      return false
    } catch {
      throw .usb(error, doing: doing)
    }
  }

  package func transportError(_ error: USBLinkError) -> any Error {
    switch error {
    case .cancelled: return CancellationError()
    case .usb(let e, let doing):
      return USBFaults.transportError(e, printer: name, device: node, doing: doing)
    }
  }
}

/// A failure inside a link operation, before it is turned into the protocol's terms.
package enum USBLinkError: Error {
  case usb(USBError, doing: String)
  case cancelled
}

/// Milliseconds left until `deadline`, at least 1 while it has not passed.
package func millisecondsLeft(_ deadline: ContinuousClock.Instant) -> UInt32? {
  let left = deadline - .now
  guard left > .zero else { return nil }
  let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
  return UInt32(max(1, min(ms, 60_000)))
}
