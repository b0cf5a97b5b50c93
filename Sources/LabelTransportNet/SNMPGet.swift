import LabelPOSIX

/// One SNMPv2c GET of one object (RFC 3416 PDUs in RFC 3417's BER encoding), as labeld
/// asks a Brother QL network model its status: the printer answers its 32-byte status
/// block as an OCTET STRING. A few dozen lines rather than net-snmp's library: labeld
/// needs one GET of one object, and net-snmp would load its MIB machinery (and several MB)
/// into every labeld for it. Answers are parsed with bounds checks: no byte from the
/// network can trap.
enum SNMPGet {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The value of `oid` at `host`:`port` with `community`, as an OCTET STRING's bytes.
  static func octets(
    oid: [UInt32], host: String, port: Int, community: String, timeoutMS: Int32
  ) throws -> [UInt8] {
    let id = Int32.random(in: 1...Int32.max)
    let request = encodeGet(oid: oid, community: community, requestID: id)
    let answer: [UInt8]
    do {
      answer = try UDPExchange.request(
        request, host: host, port: port, timeoutMS: timeoutMS, attempts: 2,
        accept: { (try? decodeResponse($0, requestID: id)) != nil })
    } catch {
      throw Failure(description: "SNMP GET to \(host):\(port): \(error)")
    }
    return try decodeResponse(answer, requestID: id).get()
  }

  // MARK: BER

  static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    [tag] + length(content.count) + content
  }

  static func length(_ n: Int) -> [UInt8] {
    if n < 0x80 { return [UInt8(n)] }
    var bytes: [UInt8] = []
    var v = n
    while v > 0 {
      bytes.insert(UInt8(v & 0xFF), at: 0)
      v >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
  }

  static func integer(_ v: Int32) -> [UInt8] {
    var bytes = withUnsafeBytes(of: v.bigEndian) { Array($0) }
    // Minimal two's-complement form.
    while bytes.count > 1
      && ((bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xFF && bytes[1] & 0x80 != 0))
    {
      bytes.removeFirst()
    }
    return tlv(0x02, bytes)
  }

  static func objectID(_ oid: [UInt32]) -> [UInt8] {
    guard oid.count >= 2 else { return tlv(0x06, []) }
    var out: [UInt8] = [UInt8(truncatingIfNeeded: oid[0] * 40 + oid[1])]
    for arc in oid.dropFirst(2) {
      var chunk: [UInt8] = [UInt8(arc & 0x7F)]
      var v = arc >> 7
      while v > 0 {
        chunk.insert(UInt8(v & 0x7F) | 0x80, at: 0)
        v >>= 7
      }
      out += chunk
    }
    return tlv(0x06, out)
  }

  /// GetRequest-PDU (0xA0) for `oid` in an SNMPv2c message (version 1).
  static func encodeGet(oid: [UInt32], community: String, requestID: Int32) -> [UInt8] {
    let varbind = tlv(0x30, objectID(oid) + [0x05, 0x00])
    let pdu = tlv(0xA0, integer(requestID) + integer(0) + integer(0) + tlv(0x30, varbind))
    return tlv(0x30, integer(1) + tlv(0x04, Array(community.utf8)) + pdu)
  }

  /// A reader of BER elements within bounds.
  struct Reader {
    let bytes: [UInt8]
    var at: Int
    let end: Int

    init(_ bytes: [UInt8]) {
      self.bytes = bytes
      at = 0
      end = bytes.count
    }

    init(_ bytes: [UInt8], from: Int, to: Int) {
      self.bytes = bytes
      at = from
      end = to
    }

    /// The next element's tag and the range of its content.
    mutating func next() throws -> (tag: UInt8, content: Range<Int>) {
      guard at + 2 <= end else { throw Failure(description: "SNMP answer cut short") }
      let tag = bytes[at]
      var n = Int(bytes[at + 1])
      at += 2
      if n & 0x80 != 0 {
        let count = n & 0x7F
        guard count >= 1, count <= 3, at + count <= end else {
          throw Failure(description: "SNMP answer has a bad length")
        }
        n = 0
        for _ in 0..<count {
          n = n << 8 | Int(bytes[at])
          at += 1
        }
      }
      guard n <= end - at else { throw Failure(description: "SNMP answer cut short") }
      defer { at += n }
      return (tag, at..<(at + n))
    }

    mutating func expect(_ tag: UInt8, _ what: String) throws -> Range<Int> {
      let e = try next()
      guard e.tag == tag else {
        throw Failure(description: "SNMP answer: \(what) has tag \(e.tag)")
      }
      return e.content
    }

    func integer(_ range: Range<Int>) -> Int64 {
      guard !range.isEmpty, range.count <= 8 else { return 0 }
      var v: Int64 = bytes[range.lowerBound] & 0x80 != 0 ? -1 : 0
      for i in range { v = v << 8 | Int64(bytes[i]) }
      return v
    }
  }

  /// The OCTET STRING of a GetResponse (0xA2) to `requestID`, or why there is none.
  static func decodeResponse(_ bytes: [UInt8], requestID: Int32) throws -> Result<[UInt8], Failure>
  {
    var top = Reader(bytes)
    let message = try top.expect(0x30, "message")
    var m = Reader(bytes, from: message.lowerBound, to: message.upperBound)
    _ = try m.expect(0x02, "version")
    _ = try m.expect(0x04, "community")
    let pdu = try m.expect(0xA2, "GetResponse")
    var p = Reader(bytes, from: pdu.lowerBound, to: pdu.upperBound)
    let id = p.integer(try p.expect(0x02, "request-id"))
    guard id == Int64(requestID) else { throw Failure(description: "another request's answer") }
    let status = p.integer(try p.expect(0x02, "error-status"))
    _ = try p.expect(0x02, "error-index")
    guard status == 0 else {
      return .failure(Failure(description: "the printer's SNMP agent answered error \(status)"))
    }
    let list = try p.expect(0x30, "varbind list")
    var l = Reader(bytes, from: list.lowerBound, to: list.upperBound)
    let varbind = try l.expect(0x30, "varbind")
    var v = Reader(bytes, from: varbind.lowerBound, to: varbind.upperBound)
    _ = try v.expect(0x06, "name")
    let value = try v.next()
    switch value.tag {
    case 0x04: return .success(Array(bytes[value.content]))
    case 0x80, 0x81, 0x82:
      return .failure(Failure(description: "the printer has no such SNMP object"))
    default:
      return .failure(Failure(description: "the SNMP value is not an OCTET STRING"))
    }
  }
}
