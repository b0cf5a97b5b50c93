/// What went wrong encoding a Brother QL job, decoding one, or reading a status reply.
public struct BrotherQLError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Code: Sendable, Equatable {
    /// A page bitmap is wider than the media's printable width.
    case tooWide
    /// A die-cut page has more lines than the label, or a page more than the model takes.
    case tooLong
    /// The media does not fit the model's head (wide media on a standard model).
    case mediaMismatch
    /// An option out of its range (cut every 0 labels, no pages…).
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

  public var description: String { "Brother QL: \(message)" }
}
