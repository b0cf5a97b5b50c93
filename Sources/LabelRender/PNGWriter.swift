import CZlib
import LabelLanguages

/// PNG files made from a label's dots, in the two forms a label needs (PNG, ISO/IEC 15948:
/// 1-bit greyscale for one colour, a 2-bit palette of white, black and red for two), rows
/// unfiltered (filter type 0: a label is long runs of white that deflate finds without a
/// filter's help) and deflated by zlib at `level`. cairo's writer, which this replaces,
/// took several times longer to encode a label than to render it: libpng's row transforms
/// and zlib's default level (docs/benchmarks.md, "PNG previews").
enum PNGWriter {
  /// zlib's fastest level: on rendered labels much faster than its default (6), for files
  /// somewhat larger (the measurement is in docs/benchmarks.md, "PNG previews").
  static let level: Int32 = 1

  /// Black where the bitmap has a dot, white elsewhere.
  static func greyscale(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
    let rowBytes = bitmap.bytesPerRow
    var rows = [UInt8](repeating: 0, count: bitmap.height * (rowBytes + 1))
    bitmap.bytes.withUnsafeBufferPointer { dots in
      rows.withUnsafeMutableBufferPointer { out in
        for y in 0..<bitmap.height {
          let from = y * rowBytes
          let to = y * (rowBytes + 1) + 1
          // PNG's greyscale 1 is white; a dot is ink.
          for i in 0..<rowBytes { out[to + i] = ~dots[from + i] }
        }
      }
    }
    return try file(
      width: bitmap.width, height: bitmap.height, depth: 1, colour: 0, palette: nil, rows: rows)
  }

  /// Black where `black` has a dot, else red where `red` has one, else white.
  static func palette(black: Bitmap, red: Bitmap) throws(ImageError) -> [UInt8] {
    let rowBytes = (black.width + 3) / 4
    var rows = [UInt8](repeating: 0, count: black.height * (rowBytes + 1))
    for y in 0..<black.height {
      let start = y * (rowBytes + 1) + 1
      for x in 0..<black.width {
        let index: UInt8 = black[x, y] ? 1 : red[x, y] ? 2 : 0
        guard index != 0 else { continue }
        rows[start + x / 4] |= index << UInt8(6 - 2 * (x % 4))
      }
    }
    let colours: [UInt8] = [0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x00, 0x00]
    return try file(
      width: black.width, height: black.height, depth: 2, colour: 3, palette: colours, rows: rows)
  }

  /// The file: signature, IHDR, PLTE for a palette, the deflated rows in IDAT chunks of at
  /// most 1 MiB, IEND.
  private static func file(
    width: Int, height: Int, depth: UInt8, colour: UInt8, palette: [UInt8]?, rows: [UInt8]
  ) throws(ImageError) -> [UInt8] {
    guard width > 0, height > 0, width <= Int32.max, height <= Int32.max else {
      throw ImageError("a \(width) x \(height) image cannot be a PNG")
    }
    try DrawingLibraries.requireZlib()
    var bound = compressBound(uLong(rows.count))
    var deflated = [UInt8](repeating: 0, count: Int(bound))
    let status = deflated.withUnsafeMutableBufferPointer { out in
      rows.withUnsafeBufferPointer { src in
        compress2(out.baseAddress, &bound, src.baseAddress, uLong(src.count), level)
      }
    }
    guard status == Z_OK else { throw ImageError("zlib could not deflate the image (\(status))") }
    deflated.removeLast(deflated.count - Int(bound))
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    png.reserveCapacity(deflated.count + 128)
    var header: [UInt8] = []
    header.append(bigEndian: UInt32(width))
    header.append(bigEndian: UInt32(height))
    header += [depth, colour, 0, 0, 0]
    chunk("IHDR", header, into: &png)
    if let palette { chunk("PLTE", palette, into: &png) }
    var at = 0
    repeat {
      let end = min(deflated.count, at + (1 << 20))
      chunk("IDAT", deflated[at..<end], into: &png)
      at = end
    } while at < deflated.count
    chunk("IEND", [], into: &png)
    return png
  }

  /// A chunk: length, type, data, and the CRC-32 of type and data.
  private static func chunk(
    _ type: StaticString, _ data: some Collection<UInt8>, into png: inout [UInt8]
  ) {
    let start = png.count
    png.append(bigEndian: UInt32(data.count))
    type.withUTF8Buffer { png.append(contentsOf: $0) }
    png.append(contentsOf: data)
    let crc = png[(start + 4)...].withUnsafeBufferPointer {
      crc32(0, $0.baseAddress, uInt($0.count))
    }
    png.append(bigEndian: UInt32(truncatingIfNeeded: crc))
  }
}

extension [UInt8] {
  fileprivate mutating func append(bigEndian value: UInt32) {
    append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
  }
}
