/// PackBits run-length coding (Apple/TIFF), as Brother QL raster lines use it with `M 02`.
///
/// A header byte n: 0...127 → n+1 literal bytes follow; -127...-1 (129...255) → the next
/// byte repeats 1-n times; -128 (128) is a no-op.
public enum PackBits {
  public static func encode(_ data: some Collection<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(data.count + data.count / 128 + 1)
    encode(data, into: &out)
    return out
  }

  /// Appends the encoding of `data` to `out` (the raster encoder's hot path: no
  /// intermediate arrays).
  public static func encode(_ data: some Collection<UInt8>, into out: inout [UInt8]) {
    if let done: Void = data.withContiguousStorageIfAvailable({ encode($0, into: &out) }) {
      return done
    }
    Array(data).withUnsafeBufferPointer { encode($0, into: &out) }
  }

  private static func encode(_ input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
    var i = 0
    while i < input.count {
      // A run of 2+ equal bytes (up to 128) is worth a repeat header (3+ always, 2 at the
      // start of a block saves nothing but costs nothing).
      var run = 1
      while i + run < input.count && run < 128 && input[i + run] == input[i] { run += 1 }
      if run >= 2 {
        out.append(UInt8(bitPattern: Int8(1 - run)))
        out.append(input[i])
        i += run
        continue
      }
      // Literals until the next run of 3 or the 128-byte limit.
      var end = i + 1
      while end < input.count && end - i < 128 {
        if end + 2 < input.count && input[end] == input[end + 1] && input[end] == input[end + 2] {
          break
        }
        end += 1
      }
      out.append(UInt8(end - i - 1))
      out.append(contentsOf: UnsafeBufferPointer(rebasing: input[i..<end]))
      i = end
    }
  }

  /// Decodes; nil when the data ends inside a block.
  public static func decode(_ data: some Collection<UInt8>) -> [UInt8]? {
    let input = Array(data)
    var out: [UInt8] = []
    var i = 0
    while i < input.count {
      let n = Int(Int8(bitPattern: input[i]))
      i += 1
      if n >= 0 {
        guard i + n + 1 <= input.count else { return nil }
        out.append(contentsOf: input[i...(i + n)])
        i += n + 1
      } else if n != -128 {
        guard i < input.count else { return nil }
        out.append(contentsOf: repeatElement(input[i], count: 1 - n))
        i += 1
      }
    }
    return out
  }
}
