import CCUPS

/// One IPP request or response (`ipp_t`), owned by exactly one instance: `ippDelete` in
/// `deinit`. Not Sendable: built and read on the CUPS client's queue.
final class IPPHandle {
  /// The handle; nil once it was handed to libcups (which frees requests it sends).
  private(set) var raw: OpaquePointer?

  /// A new request for `operation`, with the charset and language attributes set.
  init(request operation: ipp_op_t) {
    raw = ippNewRequest(operation)
  }

  /// Takes ownership of a response libcups allocated.
  init?(response: OpaquePointer?) {
    guard let response else { return nil }
    raw = response
  }

  deinit {
    if let raw { ippDelete(raw) }
  }

  /// Gives the request to a libcups call that frees it (`cupsDoRequest`).
  func release() -> OpaquePointer? {
    defer { raw = nil }
    return raw
  }

  func add(uri name: String, _ value: String) {
    ippAddString(raw, IPP_TAG_OPERATION, IPP_TAG_URI, name, nil, value)
  }

  func add(name: String, _ value: String) {
    ippAddString(raw, IPP_TAG_OPERATION, IPP_TAG_NAME, name, nil, value)
  }

  func add(keyword name: String, _ value: String) {
    ippAddString(raw, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, name, nil, value)
  }

  func add(integer name: String, _ value: Int32) {
    ippAddInteger(raw, IPP_TAG_OPERATION, IPP_TAG_INTEGER, name, value)
  }

  /// `requested-attributes` (a 1setOf keyword).
  func requestAttributes(_ names: [String]) {
    guard
      let attr = ippAddStrings(
        raw, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "requested-attributes", Int32(names.count), nil,
        nil)
    else { return }
    var attribute: OpaquePointer? = attr
    for (i, name) in names.enumerated() {
      ippSetString(raw, &attribute, Int32(i), name)
    }
  }

  // MARK: reading

  private func find(_ name: String) -> OpaquePointer? {
    ippFindAttribute(raw, name, IPP_TAG_ZERO)
  }

  func string(_ name: String) -> String? {
    strings(name).first
  }

  func strings(_ name: String) -> [String] {
    guard let attr = find(name) else { return [] }
    return (0..<ippGetCount(attr)).compactMap { i in
      ippGetString(attr, i, nil).map { String(cString: $0) }
    }
  }

  func integer(_ name: String) -> Int? {
    guard let attr = find(name), ippGetCount(attr) > 0 else { return nil }
    return Int(ippGetInteger(attr, 0))
  }

  func boolean(_ name: String) -> Bool? {
    guard let attr = find(name), ippGetCount(attr) > 0 else { return nil }
    return ippGetBoolean(attr, 0) != 0
  }

  /// Every group of attributes tagged `tag` (one per job in a Get-Jobs response), each
  /// read by `body`. Groups are delimited by a change of tag or a separator attribute.
  func groups<T>(_ tag: ipp_tag_t, _ body: (IPPGroup) -> T) -> [T] {
    var out: [T] = []
    var current: IPPGroup?
    var attr = ippFirstAttribute(raw)
    while let a = attr {
      attr = ippNextAttribute(raw)
      guard ippGetGroupTag(a) == tag, let cName = ippGetName(a) else {
        if let c = current { out.append(body(c)) }
        current = nil
        continue
      }
      let values = (0..<ippGetCount(a)).map { i -> String in
        switch ippGetValueTag(a) {
        case IPP_TAG_INTEGER, IPP_TAG_ENUM: return String(ippGetInteger(a, i))
        case IPP_TAG_BOOLEAN: return ippGetBoolean(a, i) != 0 ? "true" : "false"
        default: return ippGetString(a, i, nil).map { String(cString: $0) } ?? ""
        }
      }
      current = current ?? IPPGroup()
      current?.values[String(cString: cName)] = values
    }
    if let c = current { out.append(body(c)) }
    return out
  }
}

/// The attributes of one group of a response, as strings (integers in decimal).
struct IPPGroup {
  var values: [String: [String]] = [:]
  func string(_ name: String) -> String? { values[name]?.first }
  func integer(_ name: String) -> Int? { values[name]?.first.flatMap { Int($0) } }
}
