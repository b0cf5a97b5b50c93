import LabelCore
import LabelLanguages

/// What a printer answered to a status request.
package enum StatusRead: Sendable {
  case status(DeviceStatus)
  /// Nothing within the status timeout.
  case silent
  /// An answer that is not a status (why).
  case unreadable(String)
}

/// Status exchanges over a `USBLink` (blocking, I/O queue only), in whatever language the
/// printer's driver reads: the driver splits statuses off the bytes that come in.
extension USBLink {
  /// The next status the printer sends, of any kind, until `deadline`: nil when none came
  /// in time. Bytes that are not a status are passed over.
  package func nextStatus(_ driver: any LanguageDriver, until deadline: ContinuousClock.Instant)
    throws(USBLinkError) -> DeviceStatus?
  {
    while true {
      switch scan(driver) {
      case .status(let status): return status
      case .unreadable, .silent: break
      }
      guard let ms = millisecondsLeft(deadline) else { return nil }
      _ = try read(timeoutMS: ms, doing: "reading its status")
    }
  }

  /// Clears what was read, asks for the printer's status (after the driver's preamble)
  /// and reads the answer within the status timeout. Statuses it sends unasked meanwhile
  /// (phase changes, completions) are passed over; bytes that are not a status, with no
  /// status after them, are an unreadable answer.
  package func requestStatus(_ driver: any LanguageDriver) throws(USBLinkError) -> StatusRead {
    input.removeAll()
    try write(
      driver.statusPreamble + driver.statusRequest,
      doing: "asking for its status (\(driver.statusRequestName))")
    let deadline = ContinuousClock.now + .milliseconds(Int(timeouts.statusMS))
    var passedOver = 0
    while true {
      let before = input.count
      switch scan(driver) {
      case .status(let status) where status.kind == .reply: return .status(status)
      case .status: continue
      case .unreadable(let why): return .unreadable(why)
      case .silent: passedOver += before - input.count
      }
      guard let ms = millisecondsLeft(deadline) else {
        let left = passedOver + input.count
        return left == 0 ? .silent : .unreadable("\(left) bytes without a status")
      }
      _ = try read(timeoutMS: ms, doing: "reading its status")
    }
  }

  /// Reads the answers to the `replies` status requests a job carried, each within the
  /// status timeout: the last is the job's status. Silence before the last is `.silent`.
  package func carriedStatus(_ driver: any LanguageDriver, replies: Int) throws(USBLinkError)
    -> StatusRead
  {
    var last: DeviceStatus?
    var heard = 0
    while heard < replies {
      let deadline = ContinuousClock.now + .milliseconds(Int(timeouts.statusMS))
      guard let status = try nextStatus(driver, until: deadline) else {
        return input.isEmpty && heard == 0
          ? .silent : .unreadable("\(heard) of \(replies) status answers, then silence")
      }
      guard status.kind == .reply else { continue }
      last = status
      heard += 1
    }
    return last.map { .status($0) } ?? .silent
  }

  /// Takes the first status (or unreadable message) off `input`, dropping bytes the driver
  /// skips; `.silent` when none is there yet.
  private func scan(_ driver: any LanguageDriver) -> StatusRead {
    while true {
      switch driver.scanStatus(input[...]) {
      case .status(let status, let consumed):
        input.removeFirst(min(max(consumed, 1), input.count))
        return .status(status)
      case .unreadable(let why, let consumed):
        input.removeFirst(min(max(consumed, 1), input.count))
        return .unreadable(why)
      case .skip(let count):
        input.removeFirst(min(max(count, 1), input.count))
      case .needMore:
        return .silent
      }
      if input.isEmpty { return .silent }
    }
  }
}
