/// A label that cannot be produced from its template and data: names the template field
/// (`elements[2].data`) and why. The daemon answers it as -32602.
public struct DrawingError: Error, Sendable, Equatable, CustomStringConvertible {
  public var field: String
  public var reason: String
  public init(field: String, reason: String) {
    self.field = field
    self.reason = reason
  }
  public var description: String { "\(field): \(reason)" }
}

/// Millimetres to device dots at `dpi`, rounded to the nearest dot: the one conversion
/// the encoders, the rasteriser and the daemon share. Never traps: validation keeps sizes
/// to labels, and anything that slips past (a stored template, a printer's report) is
/// clamped to ±2^30 dots (a non-finite value is 0) rather than crashing the daemon.
@inline(__always)
public func dots(_ mm: Double, _ dpi: Int) -> Int {
  roundedClamped(mm * Double(dpi) / 25.4)
}

/// `value` rounded to the nearest whole number and clamped to `range`; NaN is 0 (or the
/// bound nearest to it). The conversion for numbers that come from outside: `Int(x)` traps
/// on NaN, infinity and anything beyond Int's range.
public func roundedClamped(_ value: Double, to range: ClosedRange<Int> = -(1 << 30)...(1 << 30))
  -> Int
{
  guard !value.isNaN else { return min(max(0, range.lowerBound), range.upperBound) }
  let r = value.rounded()
  if r <= Double(range.lowerBound) { return range.lowerBound }
  if r >= Double(range.upperBound) { return range.upperBound }
  return Int(r)
}
