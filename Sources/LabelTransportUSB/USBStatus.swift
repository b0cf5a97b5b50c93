import Foundation
import LabelCore
import LabelLanguages

/// Status exchanges with the printer languages over a `USBLink` (blocking, I/O queue only).
extension USBLink {
  // MARK: Brother QL

  /// The next 32-byte Brother status, from what was read or the device, until `deadline`;
  /// nil when none came in time.
  package func brotherStatus(until deadline: ContinuousClock.Instant) throws(USBLinkError)
    -> BrotherQLStatus?
  {
    while true {
      while input.count >= BrotherQLStatus.length {
        if Array(input[0..<3]) == BrotherQLStatus.header,
          let status = try? BrotherQLStatus(input[0..<BrotherQLStatus.length])
        {
          input.removeFirst(BrotherQLStatus.length)
          return status
        }
        input.removeFirst()  // resynchronise on the next header
      }
      guard let ms = millisecondsLeft(deadline) else { return nil }
      _ = try read(timeoutMS: ms, doing: "reading its status")
    }
  }

  /// Clears the printer's command buffer and asks for its status (`ESC i S`): the reply,
  /// or nil when it does not answer within the status timeout. Statuses left over from
  /// earlier (phase changes, completions) are skipped.
  package func brotherRequestStatus(invalidate: Int) throws(USBLinkError) -> BrotherQLStatus? {
    input.removeAll()
    try write(
      [UInt8](repeating: 0, count: invalidate) + [0x1B, 0x40] + BrotherQLStatus.request,
      doing: "asking for its status")
    let deadline = ContinuousClock.now + .milliseconds(Int(timeouts.statusMS))
    while let status = try brotherStatus(until: deadline) {
      if status.statusType == .reply { return status }
    }
    return nil
  }

  // MARK: Zebra

  /// Sends `~HQES` and reads the reply (one STX…ETX block) within the status timeout.
  package func zebraStatus() throws(USBLinkError) -> ZebraReply {
    input.removeAll()
    try write(Array(ZebraExtendedStatus.request.utf8), doing: "asking for its status (~HQES)")
    let deadline = ContinuousClock.now + .milliseconds(Int(timeouts.statusMS))
    while true {
      if let stx = input.firstIndex(of: 0x02), let etx = input[stx...].firstIndex(of: 0x03) {
        let reply = Array(input[stx...etx])
        input.removeFirst(etx + 1)
        do {
          return .status(try ZebraExtendedStatus(reply))
        } catch {
          return .unreadable("\(error)")
        }
      }
      guard let ms = millisecondsLeft(deadline) else {
        // Bytes without a whole STX…ETX block are an answer, just not a status.
        return input.isEmpty ? .silent : .unreadable("\(input.count) bytes without a status block")
      }
      _ = try read(timeoutMS: ms, doing: "reading its status")
    }
  }
}

/// What a Zebra answered to `~HQES`.
package enum ZebraReply: Sendable {
  case status(ZebraExtendedStatus)
  /// Nothing within the status timeout.
  case silent
  /// An answer that is not a status (why).
  case unreadable(String)
}

/// What a Brother QL job asks of the printer: its pages and the roll they are for.
package struct BrotherJobNeeds: Sendable, Equatable {
  package var pages: Int
  /// `ESC i z` of the first page; nil when the job could not be decoded.
  package var media: BrotherQLPrintInformation?

  package init(_ bytes: [UInt8], bytesPerLine: Int) {
    if let job = try? BrotherQLRasterDecoder(bytesPerLine: bytesPerLine).decode(
      bytes, keepingLines: false)
    {
      pages = max(job.pages.count, 1)
      media = job.pages.first?.printInformation
    } else {
      // Not our encoder's shape (a native document from elsewhere): one page, whatever
      // roll is loaded.
      pages = 1
      media = nil
    }
  }

  /// Why the loaded roll cannot take this job, or nil when it can.
  package func mismatch(with status: BrotherQLStatus) -> String? {
    guard let info = media, status.mediaLoaded else { return nil }
    let describe = { (kind: UInt8, width: Int, length: Int) -> String in
      kind == 0x0B || length > 0
        ? "\(width) x \(length) mm die-cut labels" : "\(width) mm continuous tape"
    }
    let wantKind = info.validFlags & 0x02 != 0 ? info.mediaType : status.mediaType
    let wantWidth = info.validFlags & 0x04 != 0 ? info.widthMM : status.mediaWidthMM
    let wantLength = info.validFlags & 0x08 != 0 ? info.lengthMM : status.mediaLengthMM
    let fits =
      wantKind == status.mediaType && wantWidth == status.mediaWidthMM
      && (wantKind != 0x0B || wantLength == status.mediaLengthMM)
    if fits { return nil }
    return "the job is for \(describe(wantKind, wantWidth, wantLength)) but "
      + "\(describe(status.mediaType, status.mediaWidthMM, status.mediaLengthMM)) are loaded"
  }
}

extension BrotherQLStatus {
  /// The loaded roll as the protocol shows it.
  package var protocolMedia: Media? {
    guard mediaLoaded else { return nil }
    let continuous = mediaType != 0x0B || mediaLengthMM == 0
    return Media(
      widthMM: Double(mediaWidthMM), lengthMM: continuous ? 0 : Double(mediaLengthMM),
      kind: continuous ? "continuous" : "labels")
  }

  /// The error bits in hex, for messages.
  package var errorText: String {
    String(format: "error bits %02X %02X", errors.rawValue & 0xFF, errors.rawValue >> 8)
  }
}
