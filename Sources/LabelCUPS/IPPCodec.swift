import CCUPS
import FoundationEssentials

/// IPP messages to and from bytes, through libcups's own reader and writer (`ippReadIO`,
/// `ippWriteIO` with callbacks over memory): labeld never encodes or decodes IPP by hand.
/// Each `ipp_t` lives within one call and is freed before it returns; what crosses is a
/// value (`IPPMessage`).
package enum IPPCodec {
  package struct DecodeError: Error, Sendable, Equatable {
    package var message: String
  }

  /// Reads one message from `bytes`, which hold its header and attributes whole (as
  /// `IPPFraming` found them). A message libcups cannot read is a `DecodeError`.
  package static func decode(_ bytes: ArraySlice<UInt8>) throws(DecodeError) -> IPPMessage {
    try CUPSLibrary.requireForIPP()
    let source = MemorySource(bytes)
    guard let ipp = ippNew() else { throw DecodeError(message: "out of memory") }
    defer { ippDelete(ipp) }
    let state = withExtendedLifetime(source) {
      ippReadIO(Unmanaged.passUnretained(source).toOpaque(), MemoryIO.read, 1, nil, ipp)
    }
    guard state == IPP_STATE_DATA else {
      throw DecodeError(message: "not a well-formed IPP message")
    }
    var minor: Int32 = 0
    let major = ippGetVersion(ipp, &minor)
    return IPPMessage(
      major: Int(major), minor: Int(minor), code: Int(ippGetOperation(ipp).rawValue),
      requestID: ippGetRequestId(ipp), groups: groups(of: ipp))
  }

  /// The bytes of `message` (a response: `code` is its status-code).
  package static func encode(_ message: IPPMessage) throws(DecodeError) -> [UInt8] {
    try CUPSLibrary.requireForIPP()
    guard let ipp = ippNew() else { throw DecodeError(message: "out of memory") }
    defer { ippDelete(ipp) }
    ippSetVersion(ipp, Int32(clamping: message.major), Int32(clamping: message.minor))
    ippSetRequestId(ipp, message.requestID)
    ippSetStatusCode(ipp, ipp_status_t(rawValue: Int32(clamping: message.code)))
    for (index, group) in message.groups.enumerated() {
      if index > 0 && message.groups[index - 1].tag == group.tag { ippAddSeparator(ipp) }
      for attribute in group.attributes {
        add(attribute, to: ipp, group: ipp_tag_t(rawValue: Int32(group.tag.rawValue)))
      }
    }
    let sink = MemorySink()
    let state = withExtendedLifetime(sink) {
      ippWriteIO(Unmanaged.passUnretained(sink).toOpaque(), MemoryIO.write, 1, nil, ipp)
    }
    guard state == IPP_STATE_DATA else {
      throw DecodeError(message: "libcups could not write the response")
    }
    return sink.bytes
  }

  /// The same message written and read back (for tests of what a client would read).
  package static func roundTrip(_ message: IPPMessage) throws(DecodeError) -> IPPMessage {
    let bytes = try encode(message)
    return try decode(bytes[...])
  }

  // MARK: reading

  private static func groups(of ipp: OpaquePointer) -> [IPPAttributeGroup] {
    var out: [IPPAttributeGroup] = []
    var previousTag: IPPGroupTag?
    var attr = ippFirstAttribute(ipp)
    while let a = attr {
      attr = ippNextAttribute(ipp)
      // A separator (no name) starts a new group of the same kind.
      guard let cName = ippGetName(a) else {
        previousTag = nil
        continue
      }
      let groupTag = IPPGroupTag(rawValue: UInt8(truncatingIfNeeded: ippGetGroupTag(a).rawValue))
      guard let groupTag else { continue }
      if previousTag != groupTag {
        out.append(IPPAttributeGroup(groupTag))
        previousTag = groupTag
      }
      out[out.count - 1].attributes.append(
        IPPAttribute(String(cString: cName), values(of: a)))
    }
    return out
  }

  private static func values(of a: OpaquePointer) -> [IPPValue] {
    let tag = ippGetValueTag(a).rawValue
    let count = ippGetCount(a)
    if let oob = IPPOutOfBand(rawValue: UInt8(truncatingIfNeeded: tag)), tag < 0x20 {
      return [.outOfBand(oob)]
    }
    return (0..<max(0, count)).map { i -> IPPValue in
      func text() -> String { ippGetString(a, i, nil).map { String(cString: $0) } ?? "" }
      switch tag {
      case IPP_TAG_INTEGER.rawValue: return .integer(ippGetInteger(a, i))
      case IPP_TAG_ENUM.rawValue: return .enumeration(ippGetInteger(a, i))
      case IPP_TAG_BOOLEAN.rawValue: return .boolean(ippGetBoolean(a, i) != 0)
      case IPP_TAG_TEXT.rawValue, IPP_TAG_TEXTLANG.rawValue: return .text(text())
      case IPP_TAG_NAME.rawValue, IPP_TAG_NAMELANG.rawValue: return .name(text())
      case IPP_TAG_KEYWORD.rawValue: return .keyword(text())
      case IPP_TAG_URI.rawValue: return .uri(text())
      case IPP_TAG_URISCHEME.rawValue: return .uriScheme(text())
      case IPP_TAG_CHARSET.rawValue: return .charset(text())
      case IPP_TAG_LANGUAGE.rawValue: return .naturalLanguage(text())
      case IPP_TAG_MIMETYPE.rawValue: return .mimeMediaType(text())
      case IPP_TAG_MEMBERNAME.rawValue: return .memberName(text())
      case IPP_TAG_RANGE.rawValue:
        var upper: Int32 = 0
        let lower = ippGetRange(a, i, &upper)
        return .range(lower, upper)
      case IPP_TAG_RESOLUTION.rawValue:
        var y: Int32 = 0
        var units = IPP_RES_PER_INCH
        let x = ippGetResolution(a, i, &y, &units)
        return .resolution(x: x, y: y, perInch: units == IPP_RES_PER_INCH)
      case IPP_TAG_BEGIN_COLLECTION.rawValue:
        guard let c = ippGetCollection(a, i) else { return .collection([]) }
        return .collection(ungrouped(c))
      case IPP_TAG_DATE.rawValue:
        guard let date = ippGetDate(a, i) else { return .dateTime(0) }
        return .dateTime(Int(ippDateToTime(date)))
      default:
        var length: Int32 = 0
        guard let data = ippGetOctetString(a, i, &length), length > 0 else {
          return .octetString([])
        }
        return .octetString(
          Array(UnsafeRawBufferPointer(start: data, count: Int(length))))
      }
    }
  }

  /// A collection's members carry no group tag (IPP_TAG_ZERO): read them as they are.
  private static func ungrouped(_ ipp: OpaquePointer) -> [IPPAttribute] {
    var out: [IPPAttribute] = []
    var attr = ippFirstAttribute(ipp)
    while let a = attr {
      attr = ippNextAttribute(ipp)
      guard ippGetGroupTag(a) == IPP_TAG_ZERO, let name = ippGetName(a) else { continue }
      out.append(IPPAttribute(String(cString: name), values(of: a)))
    }
    return out
  }

  // MARK: writing

  private static func add(_ attribute: IPPAttribute, to ipp: OpaquePointer, group: ipp_tag_t) {
    let name = attribute.name
    let values = attribute.values
    guard let first = values.first else {
      ippAddOutOfBand(ipp, group, IPP_TAG_NOVALUE, name)
      return
    }
    let count = Int32(clamping: values.count)
    switch first {
    case .integer, .enumeration:
      let tag = if case .enumeration = first { IPP_TAG_ENUM } else { IPP_TAG_INTEGER }
      let ints = values.map { Int32(clamping: $0.integer ?? 0) }
      _ = ints.withUnsafeBufferPointer {
        ippAddIntegers(ipp, group, tag, name, count, $0.baseAddress)
      }
    case .boolean:
      let flags = values.map { v -> CChar in
        if case .boolean(let b) = v { return b ? 1 : 0 }
        return 0
      }
      _ = flags.withUnsafeBufferPointer {
        ippAddBooleans(ipp, group, name, count, $0.baseAddress)
      }
    case .text, .name, .keyword, .uri, .uriScheme, .charset, .naturalLanguage, .mimeMediaType,
      .memberName:
      let tag = stringTag(first)
      let strings = values.map { $0.string ?? "" }
      _ = withCStrings(strings) { pointers in
        ippAddStrings(ipp, group, tag, name, count, nil, pointers)
      }
    case .range:
      var lower: [Int32] = []
      var upper: [Int32] = []
      for v in values {
        if case .range(let l, let u) = v {
          lower.append(l)
          upper.append(u)
        }
      }
      ippAddRanges(ipp, group, name, Int32(lower.count), lower, upper)
    case .resolution(_, _, let perInch):
      var xs: [Int32] = []
      var ys: [Int32] = []
      for v in values {
        if case .resolution(let x, let y, _) = v {
          xs.append(x)
          ys.append(y)
        }
      }
      ippAddResolutions(
        ipp, group, name, Int32(xs.count), perInch ? IPP_RES_PER_INCH : IPP_RES_PER_CM, xs, ys)
    case .collection:
      var members: [OpaquePointer?] = []
      for v in values {
        guard case .collection(let attributes) = v, let c = ippNew() else { continue }
        for member in attributes { add(member, to: c, group: IPP_TAG_ZERO) }
        members.append(c)
      }
      // libcups keeps its own reference to each collection; ours is let go of after.
      _ = members.withUnsafeMutableBufferPointer {
        ippAddCollections(ipp, group, name, Int32($0.count), $0.baseAddress)
      }
      for c in members { ippDelete(c) }
    case .dateTime(let seconds):
      ippAddDate(ipp, group, name, ippTimeToDate(time_t(seconds)))
    case .octetString(let bytes):
      _ = bytes.withUnsafeBytes {
        ippAddOctetString(ipp, group, name, $0.baseAddress, Int32(clamping: $0.count))
      }
    case .outOfBand(let oob):
      ippAddOutOfBand(ipp, group, ipp_tag_t(rawValue: Int32(oob.rawValue)), name)
    }
  }

  private static func stringTag(_ value: IPPValue) -> ipp_tag_t {
    switch value {
    case .text: IPP_TAG_TEXT
    case .name: IPP_TAG_NAME
    case .keyword: IPP_TAG_KEYWORD
    case .uri: IPP_TAG_URI
    case .uriScheme: IPP_TAG_URISCHEME
    case .charset: IPP_TAG_CHARSET
    case .naturalLanguage: IPP_TAG_LANGUAGE
    case .mimeMediaType: IPP_TAG_MIMETYPE
    default: IPP_TAG_MEMBERNAME
    }
  }

  /// `body` with the strings as C strings; nil (and no call) for none.
  private static func withCStrings<R>(
    _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R
  ) -> R? {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { p in p.baseAddress.map(body) }
  }
}
