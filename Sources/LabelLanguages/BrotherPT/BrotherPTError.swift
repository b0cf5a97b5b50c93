/// What went wrong encoding a P-touch job, decoding one, or reading a status reply.
public struct BrotherPTError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Code: Sendable, Equatable {
    /// A page is wider than the tape's print area.
    case tooWide
    /// A page has more lines than the model prints on one page.
    case tooLong
    /// A tape the model's head does not take.
    case mediaMismatch
    /// An option out of its range, or a job without pages.
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

  public var description: String { "Brother P-touch: \(message)" }
}
