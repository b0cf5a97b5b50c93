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
      ink: InkImage(width: width, height: height, ink: grey.map { 255 - $0 }), xDPI: xDPI,
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
  /// The dots of this ink.
  public func bitmap(_ halftone: Halftone) -> Bitmap {
    let bytesPerRow = (width + 7) / 8
    var bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
    ink.withUnsafeBufferPointer { ink in
      bytes.withUnsafeMutableBufferPointer { out in
        for y in 0..<height {
          let row = y * width
          let base = y * bytesPerRow
          for x in 0..<width {
            let level = Int(ink[row + x])
            let black: Bool
            switch halftone {
            case .threshold: black = level >= 128
            case .ordered:
              // Thresholds 2..254 in the Bayer order: 0 stays paper, 255 stays black.
              black = level > Int(Self.bayer[(y & 7) << 3 | (x & 7)]) * 4 + 2
            }
            if black { out[base + (x >> 3)] |= 0x80 >> UInt8(x & 7) }
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
