import LabelCore

/// Brother QL printers: pages as raster lines, status from the 32-byte `ESC i S` reply,
/// which the printer also sends unasked as each page prints (Brother's QL raster command
/// references, "Status information").
public struct BrotherQLDriver: LanguageDriver {
  public let model: ModelEntry
  public let ql: BrotherQLModel
  public var cut = true

  public init(model: ModelEntry) throws(DriverError) {
    guard model.language == .brotherQL, let ql = BrotherQLModel.named(model.name) else {
      throw DriverError("\(model.name) is not a Brother QL model")
    }
    self.model = model
    self.ql = ql
  }

  public var language: PrinterLanguage { .brotherQL }

  // MARK: pages

  /// A continuous roll as wide as the label (62 mm without one).
  public func assumedMedia(labelWidthMM: Double?) -> Media {
    Media(
      widthMM: labelWidthMM ?? language.profile.defaultMedia.widthMM, lengthMM: 0,
      kind: "continuous")
  }

  /// The roll that `media` describes (width, and length 0 for continuous; the red/black
  /// roll when it says it prints red).
  public func roll(for media: Media) throws(DriverError) -> BrotherQLMedia {
    let width = roundedClamped(media.widthMM, to: 0...10_000)
    if media.printsRed {
      guard media.lengthMM == 0,
        let red = BrotherQLMedia.all.first(where: {
          $0.redBlack && $0.widthMM == width
        })
      else {
        throw DriverError("no Brother QL red/black roll is \(media.widthMM) x \(media.lengthMM) mm")
      }
      guard ql.twoColor else {
        throw DriverError("\(ql.name) cannot print red/black (\(red.id)) rolls")
      }
      return red
    }
    let found =
      media.lengthMM == 0
      ? BrotherQLMedia.continuous(widthMM: width)
      : BrotherQLMedia.matching(
        widthMM: width, lengthMM: roundedClamped(media.lengthMM, to: 0...100_000), kind: .dieCut)
    guard let found else {
      throw DriverError("no Brother QL roll is \(media.widthMM) x \(media.lengthMM) mm")
    }
    return found
  }

  /// The roll's printable area: its printable width, and its printable length on die-cut
  /// labels or the model's longest page on continuous tape.
  public func pageArea(media: Media, dpi: Int) throws(DriverError) -> PageArea {
    let roll = try roll(for: media)
    let dieCut = roll.kind == .dieCut
    let limit = dieCut ? roll.printableLength : ql.lineRange.upperBound
    return PageArea(
      width: roll.printableWidth, length: dieCut ? roll.printableLength : nil,
      maxLength: dieCut ? nil : ql.lineRange.upperBound,
      description: "\(roll.id) mm roll prints \(roll.printableWidth) dots across and at most "
        + "\(limit) lines at \(dpi) dpi")
  }

  public func encode(pages: [Bitmap], media: Media, dpi: Int) throws(DriverError) -> [UInt8] {
    try encode(pages: pages, red: [], media: media, dpi: dpi)
  }

  /// A two-colour model with a red/black roll in (DK-22251).
  public func printsRed(on media: Media) -> Bool { ql.twoColor && media.printsRed }

  /// On a red/black roll, two-colour raster (a label with no red too: the printer wants
  /// two-colour mode for that roll); on any other, red prints black.
  public func encode(pages: [Bitmap], red: [Bitmap], media: Media, dpi: Int)
    throws(DriverError) -> [UInt8]
  {
    let roll = try roll(for: media)
    let black =
      roll.redBlack ? pages : zip(pages, red).map { $0.union($1) } + pages.dropFirst(red.count)
    do {
      let encoder = try BrotherQLEncoder(
        BrotherQLOptions(model: ql, media: roll, cut: cut, highResolution: dpi == 600))
      return try encoder.encode(black, red: roll.redBlack ? red : [])
    } catch {
      throw DriverError("\(ql.name): \(error)")
    }
  }

  // MARK: status

  public var statusRequest: [UInt8] { BrotherQLStatus.request }
  /// "Invalidate" NULs and `ESC @` clear a command the printer may be in the middle of.
  public var statusPreamble: [UInt8] {
    [UInt8](repeating: 0, count: ql.invalidateCount) + [0x1B, 0x40]
  }
  public var statusRequestName: String { "ESC i S" }
  /// Brother's network QL models print what arrives on TCP 9100 but send nothing back
  /// there (brother_ql reads no status over the network); their status is SNMP's.
  public var answersStatusOverSocket: Bool { false }
  /// Brother's network QL models give the same 32 bytes as the USB status reply as the
  /// value of 1.3.6.1.4.1.2435.3.3.9.1.6.1.0 (field reports, from Brother's own tools;
  /// Brother publishes no MIB for it).
  public var snmpStatusOID: [UInt32]? { [1, 3, 6, 1, 4, 1, 2435, 3, 3, 9, 1, 6, 1, 0] }

  /// One 32-byte status starting `80 20 42`; anything else is skipped a byte at a time,
  /// to find the next header.
  public func scanStatus(_ input: ArraySlice<UInt8>) -> StatusScan {
    BrotherStatusBlock.scan(input) { (try? BrotherQLStatus($0))?.deviceStatus }
  }

  public func faults(inStatus reply: [UInt8]) throws(DriverError) -> [Reason] {
    do {
      return try BrotherQLStatus(reply).reasons
    } catch {
      throw DriverError("\(ql.name): unreadable status reply: \(error)")
    }
  }

  /// The job's pages and the roll its first `ESC i z` asks for; a job that is not our
  /// encoder's shape (a native document from elsewhere) is one page for any roll.
  public func jobFacts(_ bytes: [UInt8]) -> JobFacts {
    guard
      let job = try? BrotherQLRasterDecoder(bytesPerLine: ql.bytesPerLine).decode(
        bytes, keepingLines: false)
    else { return JobFacts(pages: 1) }
    let wants = job.pages.first.map { page in
      let info = page.printInformation
      // `ESC i z` valid flags: 0x02 media type, 0x04 width, 0x08 length.
      return MediaWant(
        dieCut: info.validFlags & 0x02 != 0 ? info.mediaType == 0x0B : nil,
        widthMM: info.validFlags & 0x04 != 0 ? Double(info.widthMM) : nil,
        lengthMM: info.validFlags & 0x08 != 0 ? Double(info.lengthMM) : nil)
    }
    return JobFacts(pages: max(job.pages.count, 1), wants: wants)
  }
}

extension BrotherQLStatus {
  /// The loaded roll as the protocol shows it; nil when none is in.
  public var loadedMedia: Media? {
    guard mediaLoaded else { return nil }
    let continuous = mediaType != 0x0B || mediaLengthMM == 0
    return Media(
      widthMM: Double(mediaWidthMM), lengthMM: continuous ? 0 : Double(mediaLengthMM),
      kind: continuous ? "continuous" : "labels")
  }

  /// The error bits in hex, for messages.
  public var errorText: String {
    "error bits \(hexByte(UInt8(errors.rawValue & 0xFF))) \(hexByte(UInt8(errors.rawValue >> 8)))"
  }

  /// This reply as drivers report status.
  public var deviceStatus: DeviceStatus {
    DeviceStatus(kind: statusType.kind, faults: reasons, media: loadedMedia, detail: errorText)
  }
}
