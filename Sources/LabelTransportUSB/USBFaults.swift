import LabelCore
import LabelInterfaces
import LabelUSB

/// How labeld's udev rules are installed: named in every permission error.
package enum USBPermissions {
  package static let rulesFile = "/etc/udev/rules.d/70-labeld.rules"
  package static let advice =
    "install labeld's udev rules (sudo install -m 644 udev/70-labeld.rules \(rulesFile) && "
    + "sudo udevadm control --reload && sudo udevadm trigger), then unplug and replug the "
    + "printer; the daemon's user must be in group labeld or logged in at the seat"
}

/// The one table from libusb errors to the protocol's reasons, for USB printers.
package enum USBFaults {
  /// The reason a libusb error means while talking to a printer.
  package static func reason(_ error: USBError) -> Reason {
    switch error {
    case .access: return .permissionDenied
    case .busy: return .busy
    // The device went away between listing and use, or mid-transfer.
    case .noDevice, .notFound: return .disconnected
    // A transfer that did not finish in time, a stall, a babbling device: the link failed.
    case .timeout, .pipe, .io, .overflow, .interrupted: return .communication
    default: return .unknown
    }
  }

  /// A message a person can act on: what failed, on which device, and what to do.
  package static func message(
    _ error: USBError, printer name: String, device: String, doing: String
  )
    -> String
  {
    switch reason(error) {
    case .permissionDenied:
      return "\(name): permission denied opening \(device) (\(doing)); \(USBPermissions.advice)"
    case .busy:
      return "\(name): \(device) is held by another process or driver (usblp, ipp-usb, CUPS); "
        + "stop it or unbind it, labeld retries"
    case .disconnected:
      return "\(name): \(device) was unplugged (\(doing)); jobs wait until it is plugged in again"
    default:
      return "\(name): USB error \(doing) on \(device): \(error)"
    }
  }

  package static func transportError(
    _ error: USBError, printer name: String, device: String, doing: String
  ) -> TransportError {
    TransportError(
      reason: reason(error),
      message: message(error, printer: name, device: device, doing: doing))
  }
}
