/// A seeded random number generator for tests and the bench: the same seed gives the same
/// cases on every run and machine (a failing seed can be replayed), which
/// `SystemRandomNumberGenerator` cannot. PCG's 64-bit LCG step, the high bits taken.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  public var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    // The low bits of an LCG repeat with short periods: two steps give 64 good bits.
    let high = state >> 32
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return high << 32 | state >> 32
  }

  /// A number in 0..<n (0 when n is 0 or less).
  public mutating func below(_ n: Int) -> Int {
    n <= 0 ? 0 : Int(next() % UInt64(n))
  }
}
