/// A Brother raster family (QL, P-touch): what its errors are called by.
public protocol BrotherFamily: Sendable {
  /// "Brother QL", "Brother P-touch": how its errors start.
  static var name: String { get }
}

/// The Brother QL family (`BrotherQLError`).
public enum QLFamily: BrotherFamily {
  public static let name = "Brother QL"
}

/// The Brother P-touch family (`BrotherPTError`).
public enum PTFamily: BrotherFamily {
  public static let name = "Brother P-touch"
}

/// What went wrong encoding a Brother raster job, decoding one, or reading a status
/// reply; one type for both families, which share the raster commands and the status
/// layout, named by `Family`.
public struct BrotherRasterError<Family: BrotherFamily>: Error, Sendable, Equatable,
  CustomStringConvertible
{
  public enum Code: Sendable, Equatable {
    /// A page is wider than the media's printable width (the roll's, the tape's).
    case tooWide
    /// A page has more lines than the label, or than the model prints on one page.
    case tooLong
    /// The media does not fit the model's head (wide media on a standard QL, a tape the
    /// P-touch's head does not take).
    case mediaMismatch
    /// An option out of its range (cut every 0 labels, a job without pages…).
    case invalidOption
    /// The data ends inside a command or without the final `^Z`.
    case truncated
    /// A byte that starts no command this decoder knows.
    case unknownCommand
    /// A command in the wrong place or with a bad argument.
    case malformed
    /// A page's raster lines differ from the count its `ESC i z` announced.
    case lineCountMismatch
    /// A status reply that is short, long or has the wrong header.
    case badStatus
  }

  public let code: Code
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(Family.name): \(message)" }
}

/// A cursor over a Brother raster job's bytes whose reads throw `truncated` past the end.
struct BrotherByteReader<Family: BrotherFamily> {
  let data: [UInt8]
  var offset = 0

  init(data: [UInt8]) { self.data = data }

  var atEnd: Bool { offset >= data.count }
  var remaining: Int { data.count - offset }

  mutating func next() -> UInt8? {
    guard offset < data.count else { return nil }
    defer { offset += 1 }
    return data[offset]
  }

  mutating func byte(_ what: String) throws(BrotherRasterError<Family>) -> UInt8 {
    guard let b = next() else {
      throw BrotherRasterError(.truncated, "data ends inside \(what)")
    }
    return b
  }

  mutating func bytes(_ n: Int, _ what: String) throws(BrotherRasterError<Family>) -> [UInt8] {
    guard n <= remaining else { throw BrotherRasterError(.truncated, "data ends inside \(what)") }
    defer { offset += n }
    return Array(data[offset..<(offset + n)])
  }
}
