/// Finds where an IPP message's attributes end in bytes as they arrive, so that libcups
/// parses the attributes once, whole, and what follows is the document (RFC 8010 §3.1:
/// header, attribute groups, end-of-attributes-tag, data). It reads only the framing —
/// each attribute's tag and two lengths — never a value: libcups does that.
///
/// It also keeps libcups from what it cannot bear: libcups before 2.4.12 (upstream commit
/// 80fe6815d, "Limit ippReadIO recursion"; Debian 12 has 2.4.2) reads a collection inside a
/// collection by recursing without limit, and a request of nested begCollection tags
/// overflows its stack (100,000 levels crashed a C test program here). Collections nest at
/// most `maxDepth` deep (upstream's limit), and the attributes take at most `maxBytes`.
package struct IPPFraming: Sendable {
  package enum Outcome: Sendable, Equatable {
    /// The attributes go on past what has arrived.
    case needMore
    /// They end here: `bytes[..<end]` is the header and attributes, the rest the document.
    case complete(end: Int)
    /// Not IPP, or beyond the bounds: the reason, for the refusal.
    case refused(String)
  }

  package static let maxDepth = 10

  package let maxBytes: Int
  private var offset = 8
  private var depth = 0
  private var done: Outcome?

  package init(maxBytes: Int = 1 << 20) { self.maxBytes = maxBytes }

  /// Scans on from where the last call stopped. `bytes` is everything received so far.
  ///
  /// It accepts only what libcups reads the same way, so that the depth it counts is the
  /// depth libcups will recurse to (a framing that reads a message differently from libcups
  /// can be made to see one level where libcups sees thousands): no extension tag 0x7F
  /// (RFC 8010 §3.5.2 reserves it, and libcups builds disagree on how to read it) and no
  /// tag past it; inside a collection no group delimiter and no attribute name (members
  /// are memberAttrName values, RFC 8010 §3.1.6); a begCollection value is empty; an
  /// endCollection ends an open collection.
  package mutating func scan(_ bytes: [UInt8]) -> Outcome {
    if let done { return done }
    guard bytes.count >= 8 else { return .needMore }
    while true {
      guard offset < bytes.count else { return limit(.needMore) }
      let tag = bytes[offset]
      if tag == 0x03 {
        guard depth == 0 else { return finish(.refused("a collection is not closed")) }
        return finish(.complete(end: offset + 1))
      }
      if tag < 0x10 {  // a group's delimiter
        guard depth == 0 else { return finish(.refused("a group delimiter inside a collection")) }
        offset += 1
        continue
      }
      guard tag < 0x7F else {
        return finish(.refused("value tag 0x\(String(tag, radix: 16)) is not one IPP clients send"))
      }
      // name-length, name, value-length, value.
      var at = offset + 1
      guard at + 2 <= bytes.count else { return limit(.needMore) }
      let nameLength = Int(bytes[at]) << 8 | Int(bytes[at + 1])
      if depth > 0 && nameLength != 0 {
        return finish(.refused("a named attribute inside a collection"))
      }
      at += 2 + nameLength
      guard at + 2 <= bytes.count else { return limit(.needMore) }
      let valueLength = Int(bytes[at]) << 8 | Int(bytes[at + 1])
      at += 2 + valueLength
      guard at <= bytes.count else { return limit(.needMore) }
      if tag == 0x34 {
        guard valueLength == 0 else {
          return finish(.refused("a begCollection value that is not empty"))
        }
        depth += 1
        if depth > Self.maxDepth {
          return finish(.refused("collections nest more than \(Self.maxDepth) deep"))
        }
      } else if tag == 0x37 {
        guard depth > 0 else { return finish(.refused("an endCollection outside a collection")) }
        depth -= 1
      }
      offset = at
      if offset > maxBytes { return limit(.needMore) }
    }
  }

  private mutating func limit(_ outcome: Outcome) -> Outcome {
    if offset > maxBytes {
      return finish(.refused("the request's attributes take more than \(maxBytes) bytes"))
    }
    return outcome
  }

  private mutating func finish(_ outcome: Outcome) -> Outcome {
    done = outcome
    return outcome
  }
}
