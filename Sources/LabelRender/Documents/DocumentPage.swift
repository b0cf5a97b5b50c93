import LabelLanguages

/// A page of a document an IPP client sent, as labeld places it: its ink (255 black, 0
/// paper), one byte a pixel, and its resolution (nil when the file does not say).
public struct DocumentPage: Sendable, Equatable {
  public var ink: InkImage
  public var xDPI: Int?
  public var yDPI: Int?

  public init(ink: InkImage, xDPI: Int?, yDPI: Int?) {
    self.ink = ink
    self.xDPI = xDPI
    self.yDPI = yDPI
  }

  /// From 8-bit grey (0 black).
  public init(width: Int, height: Int, grey: [UInt8], xDPI: Int?, yDPI: Int?) {
    self.init(
      ink: InkImage(width: width, height: height, ink: InkImage.inverted(grey)), xDPI: xDPI,
      yDPI: yDPI)
  }
}

/// How grey becomes dots on a bi-level head (IPP print-color-mode).
public enum Halftone: Sendable, Equatable {
  /// Black where the ink is at least half (`bi-level`): edges of text and bars stay sharp.
  case threshold
  /// Greys as patterns of dots (`monochrome`): an 8 x 8 ordered dither (Bayer), which
  /// leaves black and white exactly as they are.
  case ordered
}

extension InkImage {
  /// Grey (0 black) as ink (0 paper): 255 - g, which for a byte is its complement.
  public static func inverted(_ grey: [UInt8]) -> [UInt8] {
    var ink = grey
    ink.withUnsafeMutableBufferPointer { p in
      for i in p.indices { p[i] = ~p[i] }
    }
    return ink
  }

  /// The dots of this ink.
  public func bitmap(_ halftone: Halftone) -> Bitmap {
    let bytesPerRow = (width + 7) / 8
    var bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
    ink.withUnsafeBufferPointer { ink in
      bytes.withUnsafeMutableBufferPointer { out in
        for y in 0..<height {
          let row = y * width
          var index = y * bytesPerRow
          var x = 0
          // Eight pixels a byte; the halftone chosen once a row, not once a pixel.
          switch halftone {
          case .threshold:
            // Ink of at least 128 is its top bit: eight pixels a byte without a branch.
            guard let p = ink.baseAddress.map({ $0 + row }) else { break }
            while x + 8 <= width {
              let q = p + x
              let high =
                (q[0] & 0x80) | (q[1] & 0x80) >> 1 | (q[2] & 0x80) >> 2 | (q[3] & 0x80) >> 3
              let low = (q[4] & 0x80) >> 4 | (q[5] & 0x80) >> 5 | (q[6] & 0x80) >> 6 | q[7] >> 7
              out[index] = high | low
              index += 1
              x += 8
            }
            if x < width {
              var byte: UInt8 = 0
              for i in x..<width where p[i] >= 128 { byte |= 0x80 >> UInt8(i - x) }
              out[index] = byte
            }
          case .ordered:
            // Thresholds 2..254 in the Bayer order: 0 stays paper, 255 stays black.
            let bayerRow = (y & 7) << 3
            while x < width {
              var byte: UInt8 = 0
              let end = min(width, x + 8)
              for i in x..<end
              where Int(ink[row + i]) > Int(Self.bayer[bayerRow | (i & 7)]) * 4 + 2 {
                byte |= 0x80 >> UInt8(i - x)
              }
              out[index] = byte
              index += 1
              x = end
            }
          }
        }
      }
    }
    return Bitmap(width: width, height: height, bytes: bytes)
  }

  /// The 8 x 8 Bayer index matrix (0...63).
  static let bayer: [UInt8] = [
    0, 32, 8, 40, 2, 34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26,
    12, 44, 4, 36, 14, 46, 6, 38, 60, 28, 52, 20, 62, 30, 54, 22,
    3, 35, 11, 43, 1, 33, 9, 41, 51, 19, 59, 27, 49, 17, 57, 25,
    15, 47, 7, 39, 13, 45, 5, 37, 63, 31, 55, 23, 61, 29, 53, 21,
  ]
}
