/// A label that cannot be produced from its template and data: names the template field
/// (`elements[2].data`) and why. The daemon answers it as -32602.
public struct LabelError: Error, Sendable, Equatable, CustomStringConvertible {
  public var field: String
  public var reason: String
  public init(field: String, reason: String) {
    self.field = field
    self.reason = reason
  }
  public var description: String { "\(field): \(reason)" }
}

/// Millimetres to device dots at `dpi`, rounded to the nearest dot: the one conversion
/// the encoders, the rasteriser and the daemon share.
@inline(__always)
public func dots(_ mm: Double, _ dpi: Int) -> Int {
  Int((mm * Double(dpi) / 25.4).rounded())
}
