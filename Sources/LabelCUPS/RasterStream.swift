import CCUPS

/// A page of a raster document as labeld prints it: 8-bit grey, 0 black, 255 white, one
/// byte a pixel, at the resolution the stream says.
package struct RasterPage: Sendable, Equatable {
  package var width: Int
  package var height: Int
  package var xDPI: Int
  package var yDPI: Int
  package var pixels: [UInt8]

  package init(width: Int, height: Int, xDPI: Int, yDPI: Int, pixels: [UInt8]) {
    self.width = width
    self.height = height
    self.xDPI = xDPI
    self.yDPI = yDPI
    self.pixels = pixels
  }
}

/// A raster stream that cannot be read: the reason, for the job's state message.
package struct RasterError: Error, Sendable, Equatable {
  package var message: String
}

/// PWG raster (RaS2, PWG 5102.4) and Apple raster (UNIRAST, "URF") through libcups's
/// stream reader and writer (`cupsRasterOpenIO` over memory): labeld decodes no raster by
/// hand. Every page's size is checked against the caller's budget from its header,
/// before its pixels are read.
package enum RasterStream {
  package enum Format: Sendable { case pwg, urf }

  /// What to do with the next page, asked before its pixels are read (by its number).
  package enum PageChoice: Sendable, Equatable {
    /// Read it, as grey, for `page`.
    case read
    /// Read past it (libcups must decode it to find the next), without making it grey.
    case skip
    /// Stop reading, for this reason (the reader's deadline passed).
    case stop(String)
  }

  /// Each page of `bytes` in turn, as grey, until `page` returns false. Refuses a page
  /// past `maxPixels` (from its header), pages that come to more than `maxTotalPixels`
  /// together (skipped ones too: decoding them costs the same), more than `maxPages`
  /// pages, a color space labeld does not print, and a stream that ends early or is
  /// damaged. A compressed stream is small for its pixels (a 32-million-pixel white page
  /// takes a few KB), so these, not its size, bound what reading it costs.
  package static func read(
    _ bytes: ArraySlice<UInt8>, maxPixels: Int, maxPages: Int, maxTotalPixels: Int = .max,
    choose: (Int) -> PageChoice = { _ in .read }, page: (RasterPage) -> Bool
  ) throws(RasterError) {
    do {
      try CUPSLibrary.requireForIPP()
    } catch {
      throw RasterError(message: error.message)
    }
    let source = MemorySource(bytes)
    let context = Unmanaged.passUnretained(source).toOpaque()
    guard let stream = cupsRasterOpenIO(MemoryIO.read, context, CUPS_RASTER_READ) else {
      throw RasterError(message: "not a PWG or Apple raster stream")
    }
    defer { cupsRasterClose(stream) }
    var count = 0
    var total = 0
    var header = cups_page_header2_t()
    while cupsRasterReadHeader2(stream, &header) != 0 {
      count += 1
      guard count <= maxPages else {
        throw RasterError(message: "the document has more than \(maxPages) pages")
      }
      let width = Int(header.cupsWidth)
      let height = Int(header.cupsHeight)
      guard width > 0, height > 0, width <= maxPixels / height else {
        throw RasterError(
          message: "page \(count) is \(width) x \(height) pixels: more than \(maxPixels)")
      }
      total += width * height
      guard total <= maxTotalPixels else {
        throw RasterError(
          message: "the document's pages come to more than \(maxTotalPixels) pixels")
      }
      let kind = try Kind(header, page: count)
      let lineBytes = Int(header.cupsBytesPerLine)
      guard lineBytes == (width * kind.bitsPerPixel + 7) / 8 else {
        throw RasterError(message: "page \(count) has a line length that does not fit its width")
      }
      let wanted: Bool
      switch choose(count) {
      case .read: wanted = true
      case .skip: wanted = false
      case .stop(let why): throw RasterError(message: why)
      }
      var line = [UInt8](repeating: 0, count: lineBytes)
      var pixels = wanted ? [UInt8](repeating: 255, count: width * height) : []
      for y in 0..<height {
        let read = line.withUnsafeMutableBufferPointer {
          cupsRasterReadPixels(stream, $0.baseAddress, UInt32(lineBytes))
        }
        guard read == UInt32(lineBytes) else {
          throw RasterError(message: "page \(count) ends after \(y) of \(height) lines")
        }
        if wanted { kind.grey(line, into: &pixels, at: y * width, width: width) }
      }
      guard wanted else { continue }
      let more = page(
        RasterPage(
          width: width, height: height, xDPI: Int(header.HWResolution.0),
          yDPI: Int(header.HWResolution.1), pixels: pixels))
      if !more { return }
    }
    guard count > 0 else {
      throw RasterError(message: "the raster stream has no page (or its first header is damaged)")
    }
  }

  /// The bytes of `pages` as a raster stream (`type`: "sgray_8" or "black_1"): for tests
  /// and the benchmark, which make the documents IPP clients send.
  package static func write(_ pages: [RasterPage], format: Format, type: String = "sgray_8")
    throws(RasterError) -> [UInt8]
  {
    do {
      try CUPSLibrary.requireForIPP()
    } catch {
      throw RasterError(message: error.message)
    }
    let sink = MemorySink()
    let mode = format == .pwg ? CUPS_RASTER_WRITE_PWG : CUPS_RASTER_WRITE_APPLE
    guard
      let stream = cupsRasterOpenIO(
        MemoryIO.write, Unmanaged.passUnretained(sink).toOpaque(), mode)
    else {
      throw RasterError(message: "libcups cannot open a raster stream for writing")
    }
    defer { cupsRasterClose(stream) }
    for page in pages {
      // The media in hundredths of millimetres, from the page's size at its resolution.
      let widthHMM = Int32(page.width * 2540 / max(1, page.xDPI))
      let heightHMM = Int32(page.height * 2540 / max(1, page.yDPI))
      var header = cups_page_header2_t()
      guard let media = pwgMediaForSize(widthHMM, heightHMM),
        cupsRasterInitPWGHeader(
          &header, media, type, Int32(page.xDPI), Int32(page.yDPI), "one-sided", nil) != 0
      else {
        throw RasterError(message: "libcups cannot make a page header for \(type)")
      }
      header.cupsWidth = UInt32(page.width)
      header.cupsHeight = UInt32(page.height)
      let bits = Int(header.cupsBitsPerPixel)
      header.cupsBytesPerLine = UInt32((page.width * bits + 7) / 8)
      guard cupsRasterWriteHeader2(stream, &header) != 0 else {
        throw RasterError(message: "libcups cannot write the page header")
      }
      for y in 0..<page.height {
        var line = [UInt8](repeating: 0, count: Int(header.cupsBytesPerLine))
        let row = page.pixels[(y * page.width)..<((y + 1) * page.width)]
        if bits == 1 {
          for (x, grey) in row.enumerated() where grey < 128 {
            line[x >> 3] |= 0x80 >> UInt8(x & 7)
          }
        } else {
          line = Array(row)
        }
        _ = line.withUnsafeMutableBufferPointer {
          cupsRasterWritePixels(stream, $0.baseAddress, UInt32($0.count))
        }
      }
    }
    return sink.bytes
  }

  /// What one pixel is, by the header's color space and depth.
  private enum Kind {
    /// Luminance, 8 bits (sgray_8, URF W8): 0 black.
    case grey8
    /// Black, 1 bit (black_1): 1 black.
    case black1
    /// Black, 8 bits (black_8): 255 black.
    case black8
    /// sRGB, 8 bits a channel (srgb_8, URF SRGB24): luminance by Rec. 601.
    case rgb24

    init(_ h: cups_page_header2_t, page: Int) throws(RasterError) {
      let space = h.cupsColorSpace
      let bits = Int(h.cupsBitsPerPixel)
      switch (space, bits) {
      case (CUPS_CSPACE_SW, 8), (CUPS_CSPACE_W, 8): self = .grey8
      case (CUPS_CSPACE_K, 1): self = .black1
      case (CUPS_CSPACE_K, 8): self = .black8
      case (CUPS_CSPACE_SRGB, 24), (CUPS_CSPACE_RGB, 24): self = .rgb24
      default:
        throw RasterError(
          message: "page \(page) is in color space \(space.rawValue) at \(bits) bits a pixel; "
            + "labeld prints sgray_8, black_1, black_8 and srgb_8")
      }
    }

    var bitsPerPixel: Int {
      switch self {
      case .grey8, .black8: 8
      case .black1: 1
      case .rgb24: 24
      }
    }

    func grey(_ line: [UInt8], into pixels: inout [UInt8], at start: Int, width: Int) {
      switch self {
      case .grey8:
        pixels.replaceSubrange(start..<start + width, with: line.prefix(width))
      case .black8:
        for x in 0..<width { pixels[start + x] = 255 - line[x] }
      case .black1:
        for x in 0..<width where line[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 {
          pixels[start + x] = 0
        }
      case .rgb24:
        for x in 0..<width {
          let r = Int(line[3 * x])
          let g = Int(line[3 * x + 1])
          let b = Int(line[3 * x + 2])
          pixels[start + x] = UInt8((299 * r + 587 * g + 114 * b) / 1000)
        }
      }
    }
  }
}
