import CJPEG
import LabelPOSIX

/// JPEG in, through libjpeg (the C side, CJPEG, catches its errors): a page of ink with the
/// JFIF resolution, its size checked against the budget from the header first.
public enum JPEGCodec {
  private static let names = ["libjpeg.so.62", "libjpeg.so"]

  /// libjpeg's handle bound (0), or not (any other code: a function missing).
  private static let opened: Result<Int32, SharedLibrary.LoadError> = SharedLibrary.open(names)
    .map { cjpeg_bind($0) }

  public static func decode(_ jpeg: [UInt8], maxPixels: Int) throws(ImageError) -> DocumentPage {
    switch opened {
    case .failure(let error): throw ImageError("labeld cannot load libjpeg: \(error.message)")
    case .success(let bound) where bound != 0:
      throw ImageError("labeld cannot use libjpeg: a function it calls is missing")
    case .success: break
    }
    var pixels: UnsafeMutablePointer<UInt8>?
    var width: Int32 = 0
    var height: Int32 = 0
    var xDPI: Int32 = 0
    var yDPI: Int32 = 0
    var error = [CChar](repeating: 0, count: 256)
    let rc = jpeg.withUnsafeBytes { data in
      error.withUnsafeMutableBufferPointer {
        cjpeg_decode_grey(
          data.baseAddress, data.count, max(0, maxPixels), &pixels, &width, &height, &xDPI, &yDPI,
          $0.baseAddress, $0.count)
      }
    }
    guard rc == 0, let pixels else {
      throw ImageError(
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    defer { cjpeg_free(pixels) }
    let grey = Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height)))
    return DocumentPage(
      width: Int(width), height: Int(height), grey: grey, xDPI: xDPI > 0 ? Int(xDPI) : nil,
      yDPI: yDPI > 0 ? Int(yDPI) : nil)
  }
}
