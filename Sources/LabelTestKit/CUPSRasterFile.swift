import LabelLanguages

/// CUPS raster files as CUPS hands them to a printer's filter (version 3: uncompressed,
/// little-endian, "3SaR"), of 1-bit black (`CUPS_CSPACE_K`) pages: what the tests and the
/// bench give DYMO's filters. Only the `cups_page_header2_t` fields the filters read are
/// set, at their offsets in the 1796-byte header.
package enum CUPSRasterFile {
  /// One page: its dots (1 = black), page size in points, resolution and `cupsMediaType`
  /// (the DYMO LabelManager filter's tape, 0–4).
  package struct Page {
    package var bitmap: Bitmap
    package var points: (Double, Double)
    package var dpi: UInt32
    package var mediaType: UInt32

    package init(
      _ bitmap: Bitmap, points: (Double, Double), dpi: UInt32 = 300, mediaType: UInt32 = 0
    ) {
      self.bitmap = bitmap
      self.points = points
      self.dpi = dpi
      self.mediaType = mediaType
    }
  }

  /// The file: the sync word, then each page's header and lines.
  package static func bytes(_ pages: [Page]) -> [UInt8] {
    pages.reduce(Array("3SaR".utf8)) { $0 + page($1) }
  }

  static func page(_ p: Page) -> [UInt8] {
    var header = [UInt8](repeating: 0, count: 1796)
    func put(_ offset: Int, _ value: UInt32) {
      for k in 0..<4 { header[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }
    put(276, p.dpi)  // HWResolution
    put(280, p.dpi)
    put(340, 1)  // NumCopies
    put(352, UInt32(p.points.0))  // PageSize, points
    put(356, UInt32(p.points.1))
    put(372, UInt32(p.bitmap.width))  // cupsWidth
    put(376, UInt32(p.bitmap.height))  // cupsHeight
    put(380, p.mediaType)  // cupsMediaType
    put(384, 1)  // cupsBitsPerColor
    put(388, 1)  // cupsBitsPerPixel
    put(392, UInt32(p.bitmap.bytesPerRow))  // cupsBytesPerLine
    put(400, 3)  // cupsColorSpace: CUPS_CSPACE_K, 1 = black
    put(420, 1)  // cupsNumColors
    put(428, Float(p.points.0).bitPattern)  // cupsPageSize, points
    put(432, Float(p.points.1).bitPattern)
    return header + p.bitmap.bytes
  }
}
