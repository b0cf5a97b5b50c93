extension Bitmap {
  /// Row `y` as a Brother head takes it (QL and P-touch raster): a line of `bytes` bytes
  /// where bitmap dot x lands on head dot `lastDot - x`, counted from the most significant
  /// bit of the line's first byte. Works a byte at a time (bit-reversed bytes in reverse
  /// order, then shifted into place): the raster encoders' hot loop.
  func mirroredLine(row y: Int, lastDot: Int, bytes: Int) -> [UInt8] {
    var line = [UInt8](repeating: 0, count: bytes)
    let row = self.row(y)
    let rowBits = bytesPerRow * 8
    // Dot x goes to head dot `lastDot - x`; in the reversed row it sits at bit
    // `rowBits - 1 - x`, so every reversed bit moves by `lastDot + 1 - rowBits`.
    let shift = lastDot + 1 - rowBits
    let padding = rowBits - width  // bits past the width, not part of the image
    for (k, byte) in row.reversed().enumerated() where byte != 0 {
      var v = Self.reversedBits[Int(byte)]
      if k == 0 && padding > 0 { v &= 0xFF >> UInt8(padding) }
      if v == 0 { continue }
      let start = k * 8 + shift
      let index = start >> 3  // floor division, also for negative starts
      let offset = start & 7
      if index >= 0 && index < line.count { line[index] |= v >> UInt8(offset) }
      if offset > 0 && index + 1 >= 0 && index + 1 < line.count {
        line[index + 1] |= v << UInt8(8 - offset)
      }
    }
    return line
  }

  /// Each byte with its bits in reverse order.
  static let reversedBits: [UInt8] = (0..<256).map { b in
    var r: UInt8 = 0
    for i in 0..<8 where b & (1 << i) != 0 { r |= 0x80 >> UInt8(i) }
    return r
  }
}
