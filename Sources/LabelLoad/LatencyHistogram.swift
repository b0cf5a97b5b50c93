/// Latencies in a fixed number of log-linear buckets: memory does not depend on how many
/// calls were counted (a long soak at thousands of calls per second keeps 10 KB per
/// histogram), and a percentile is within 1/32 (about 3%) of the true value.
///
/// Values below 64 ns have a bucket each; above, every power of two is cut into 32
/// buckets. Values past 2^40 ns (about 18 minutes) land in the last bucket.
public struct LatencyHistogram: Sendable, Equatable {
  private static let subBuckets = 32
  private static let maxShift = 35
  private static let bucketCount = 64 + maxShift * subBuckets
  private var buckets: [Int]
  public private(set) var count = 0
  /// The largest value counted (exact), in nanoseconds.
  public private(set) var maximum: UInt64 = 0

  public init() { buckets = [Int](repeating: 0, count: Self.bucketCount) }

  private static func index(_ ns: UInt64) -> Int {
    if ns < 64 { return Int(ns) }
    let msb = 63 - ns.leadingZeroBitCount  // ≥ 6
    let shift = min(msb - 5, maxShift)
    let sub = Int(min(ns >> UInt64(shift), 63)) - subBuckets  // 0..<32
    return 64 + (shift - 1) * subBuckets + sub
  }

  /// The middle of a bucket's range, in nanoseconds.
  private static func value(_ index: Int) -> Double {
    if index < 64 { return Double(index) }
    let shift = (index - 64) / subBuckets + 1
    let sub = (index - 64) % subBuckets + subBuckets
    return (Double(sub) + 0.5) * Double(UInt64(1) << UInt64(shift))
  }

  public mutating func record(_ ns: UInt64) {
    buckets[Self.index(ns)] += 1
    count += 1
    maximum = max(maximum, ns)
  }

  public mutating func merge(_ other: LatencyHistogram) {
    for i in buckets.indices { buckets[i] += other.buckets[i] }
    count += other.count
    maximum = max(maximum, other.maximum)
  }

  /// The `p` quantile (0...1) in milliseconds; 0 when nothing was counted.
  public func percentile(_ p: Double) -> Double {
    guard count > 0 else { return 0 }
    let rank = max(1, Int((Double(count) * p).rounded(.up)))
    var seen = 0
    for (i, n) in buckets.enumerated() where n > 0 {
      seen += n
      if seen >= rank { return min(Self.value(i), Double(maximum)) / 1e6 }
    }
    return Double(maximum) / 1e6
  }
}
