/// An image that cannot be used: not a PNG, damaged, too large, or (for cairo) out of
/// memory. The daemon answers it as -32602 for template images and 1007 for documents
/// that do not fit the media.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
