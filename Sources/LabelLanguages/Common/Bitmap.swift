/// A 1-bit image as printers take it: rows of packed bytes, most significant bit first,
/// 1 = black (a dot the head burns). Rows are padded to whole bytes.
public struct Bitmap: Sendable, Equatable {
  public let width: Int
  public let height: Int
  /// Bytes per row: `(width + 7) / 8`.
  public let bytesPerRow: Int
  /// `height * bytesPerRow` bytes, row by row.
  public private(set) var bytes: [UInt8]

  public init(width: Int, height: Int) {
    precondition(width >= 0 && height >= 0, "negative bitmap size")
    self.width = width
    self.height = height
    self.bytesPerRow = (width + 7) / 8
    self.bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
  }

  /// A bitmap over existing packed rows.
  public init(width: Int, height: Int, bytes: [UInt8]) {
    self.init(width: width, height: height)
    precondition(bytes.count == bytesPerRow * height, "bitmap data does not match its size")
    self.bytes = bytes
  }

  public subscript(x: Int, y: Int) -> Bool {
    get {
      guard x >= 0, y >= 0, x < width, y < height else { return false }
      return bytes[y * bytesPerRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0
    }
    set {
      guard x >= 0, y >= 0, x < width, y < height else { return }
      let i = y * bytesPerRow + x / 8
      let bit: UInt8 = 0x80 >> UInt8(x % 8)
      if newValue { bytes[i] |= bit } else { bytes[i] &= ~bit }
    }
  }

  /// The packed bytes of row `y`.
  public func row(_ y: Int) -> ArraySlice<UInt8> {
    bytes[(y * bytesPerRow)..<((y + 1) * bytesPerRow)]
  }

  /// Sets every dot of a rectangle (clipped to the bitmap).
  public mutating func fill(x: Int, y: Int, width w: Int, height h: Int) {
    let x0 = max(0, x)
    let y0 = max(0, y)
    let x1 = min(width, x + w)
    let y1 = min(height, y + h)
    guard x0 < x1, y0 < y1 else { return }
    for yy in y0..<y1 {
      for xx in x0..<x1 { self[xx, yy] = true }
    }
  }

  /// The bitmap mirrored left to right (Brother QL heads print rows mirrored).
  public func mirrored() -> Bitmap {
    var out = Bitmap(width: width, height: height)
    for y in 0..<height {
      for x in 0..<width where self[x, y] { out[width - 1 - x, y] = true }
    }
    return out
  }

  /// The bitmap turned a quarter counter-clockwise: a label on tape becomes the page a tape
  /// printer's driver takes (`PageArea.tape`): the label's top edge along column 0, its
  /// right-hand end in row 0.
  public func turnedCounterClockwise() -> Bitmap {
    var out = Bitmap(width: height, height: width)
    for y in 0..<height {
      for x in 0..<width where self[x, y] { out[y, width - 1 - x] = true }
    }
    return out
  }

  /// The bitmap turned a quarter clockwise: a tape printer's page back to the label it
  /// prints, as a person reads it (the inverse of `turnedCounterClockwise`).
  public func turnedClockwise() -> Bitmap {
    var out = Bitmap(width: height, height: width)
    for y in 0..<height {
      for x in 0..<width where self[x, y] { out[height - 1 - y, x] = true }
    }
    return out
  }

  /// Number of black dots.
  public var blackCount: Int { bytes.reduce(0) { $0 + $1.nonzeroBitCount } }

  /// The dots of both bitmaps (`other` cut or padded to this one's size).
  public func union(_ other: Bitmap) -> Bitmap {
    guard other.width == width, other.height == height else {
      var out = self
      for y in 0..<min(height, other.height) {
        for x in 0..<min(width, other.width) where other[x, y] { out[x, y] = true }
      }
      return out
    }
    var out = self
    for i in 0..<bytes.count { out.bytes[i] |= other.bytes[i] }
    return out
  }

  /// These dots without `other`'s (same size; `other` cut or padded otherwise).
  public func subtracting(_ other: Bitmap) -> Bitmap {
    var out = self
    if other.width == width, other.height == height {
      for i in 0..<bytes.count { out.bytes[i] &= ~other.bytes[i] }
      return out
    }
    for y in 0..<min(height, other.height) {
      for x in 0..<min(width, other.width) where other[x, y] { out[x, y] = false }
    }
    return out
  }
}
