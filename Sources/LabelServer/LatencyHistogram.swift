import Synchronization

/// How long requests take to answer, as a Prometheus histogram (`/metrics`): counts per
/// bucket, a sum and a count under one short lock, so recording costs a clock read and a
/// few additions on any thread and nothing grows.
package final class LatencyHistogram: Sendable {
  /// Upper bounds in seconds (Prometheus's default buckets, with 0.25 ms and 0.5 ms below:
  /// most answers of labeld take less than 1 ms).
  package static let bounds: [Double] = [
    0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
  ]

  private struct State {
    var buckets = [Int](repeating: 0, count: LatencyHistogram.bounds.count)
    var nanoseconds = 0
    var count = 0
  }
  private let state = Mutex(State())

  package init() {}

  package func record(since start: ContinuousClock.Instant) {
    let (seconds, attoseconds) = (ContinuousClock.now - start).components
    let nanoseconds = max(
      0, Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000))
    let value = Double(nanoseconds) / 1e9
    let bucket = Self.bounds.firstIndex { value <= $0 }
    state.withLock { s in
      if let bucket { s.buckets[bucket] += 1 }
      s.nanoseconds &+= nanoseconds
      s.count += 1
    }
  }

  /// Cumulative counts per bound (the count is +Inf's), and the sum in seconds.
  package var snapshot: (cumulative: [(bound: Double, count: Int)], count: Int, sum: Double) {
    let s = state.withLock { $0 }
    var running = 0
    var cumulative: [(bound: Double, count: Int)] = []
    for (i, bound) in Self.bounds.enumerated() {
      running += s.buckets[i]
      cumulative.append((bound, running))
    }
    return (cumulative, s.count, Double(s.nanoseconds) / 1e9)
  }
}
