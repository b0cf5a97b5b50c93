/// IPP's delimiter tags: which group an attribute is in (RFC 8010 §3.5.1).
package enum IPPGroupTag: UInt8, Sendable, Equatable {
  case operation = 0x01
  case job = 0x02
  case printer = 0x04
  case unsupported = 0x05
  case subscription = 0x06
  case eventNotification = 0x07
  case resource = 0x08
  case document = 0x09
  case system = 0x0A
}

/// Out-of-band values (RFC 8010 §3.5.2).
package enum IPPOutOfBand: UInt8, Sendable, Equatable {
  case unsupported = 0x10
  case unknown = 0x12
  case noValue = 0x13
  case notSettable = 0x15
  case deleteAttribute = 0x16
  case adminDefine = 0x17
}

/// One value of an IPP attribute, by its syntax (RFC 8011 §5.1). Strings with a language
/// are read as their text (labeld answers in one language).
package enum IPPValue: Sendable, Equatable {
  case integer(Int32)
  case enumeration(Int32)
  case boolean(Bool)
  case text(String)
  case name(String)
  case keyword(String)
  case uri(String)
  case uriScheme(String)
  case charset(String)
  case naturalLanguage(String)
  case mimeMediaType(String)
  case memberName(String)
  case octetString([UInt8])
  /// Seconds since the epoch.
  case dateTime(Int)
  case resolution(x: Int32, y: Int32, perInch: Bool)
  case range(Int32, Int32)
  case collection([IPPAttribute])
  case outOfBand(IPPOutOfBand)

  /// The value as a string, for string syntaxes.
  package var string: String? {
    switch self {
    case .text(let s), .name(let s), .keyword(let s), .uri(let s), .uriScheme(let s),
      .charset(let s), .naturalLanguage(let s), .mimeMediaType(let s), .memberName(let s):
      s
    default: nil
    }
  }

  /// The value as an integer, for integer and enum syntaxes.
  package var integer: Int? {
    switch self {
    case .integer(let i), .enumeration(let i): Int(i)
    default: nil
    }
  }
}

/// An attribute: a name and its values (a 1setOf has several).
package struct IPPAttribute: Sendable, Equatable {
  package var name: String
  package var values: [IPPValue]

  package init(_ name: String, _ values: [IPPValue]) {
    self.name = name
    self.values = values
  }

  package init(_ name: String, _ value: IPPValue) {
    self.init(name, [value])
  }

  package var string: String? { values.first?.string }
  package var integer: Int? { values.first?.integer }
  package var boolean: Bool? {
    if case .boolean(let b) = values.first { return b }
    return nil
  }
}

/// A group of attributes (operation, job, printer, unsupported).
package struct IPPAttributeGroup: Sendable, Equatable {
  package var tag: IPPGroupTag
  package var attributes: [IPPAttribute]

  package init(_ tag: IPPGroupTag, _ attributes: [IPPAttribute] = []) {
    self.tag = tag
    self.attributes = attributes
  }

  package subscript(name: String) -> IPPAttribute? { attributes.first { $0.name == name } }
}

/// An IPP request or response (RFC 8010 §3.1): version, operation-id or status-code,
/// request-id, and its groups in order.
package struct IPPMessage: Sendable, Equatable {
  package var major: Int
  package var minor: Int
  /// The operation-id of a request, the status-code of a response.
  package var code: Int
  package var requestID: Int32
  package var groups: [IPPAttributeGroup]

  package init(major: Int, minor: Int, code: Int, requestID: Int32, groups: [IPPAttributeGroup]) {
    self.major = major
    self.minor = minor
    self.code = code
    self.requestID = requestID
    self.groups = groups
  }

  /// The first group tagged `tag`.
  package func group(_ tag: IPPGroupTag) -> IPPAttributeGroup? { groups.first { $0.tag == tag } }

  /// `name` in the operation group.
  package func operation(_ name: String) -> IPPAttribute? { group(.operation)?[name] }
}
