import LabelCUPS
import LabelCore

/// A request read whole: its message, the document after its attributes, and who sent it.
struct IPPRequest: Sendable {
  var message: IPPMessage
  var document: ArraySlice<UInt8>
  /// The HTTP Basic user and whether the token given with it signs in an operator.
  var caller: IPPCaller
  /// How this request reached labeld, for the URIs answered: `ipp://host:port`.
  var base: String
  var tls: Bool

  var operation: IPPOperation? { IPPOperation(rawValue: message.code) }

  func operation(_ name: String) -> IPPAttribute? { message.operation(name) }

  /// The Job Template attributes sent (the job group).
  var job: IPPAttributeGroup? { message.group(.job) }

  /// Who asked: the HTTP user, else requesting-user-name, else "anonymous".
  var user: String {
    if let user = caller.user, !user.isEmpty { return user }
    if let name = operation("requesting-user-name")?.string, !name.isEmpty { return name }
    return "anonymous"
  }
}

/// Who sent a request, as far as its HTTP Authorization says.
struct IPPCaller: Sendable, Equatable {
  /// HTTP Basic's user name.
  var user: String?
  /// The token (HTTP Basic's password) signs in an operator or an administrator.
  var mayPrint: Bool
  var isAdmin: Bool
  /// A token was given but signs in nobody, or only a viewer.
  var refused: Bool
  /// The token signs in a viewer (who may look, not print).
  var viewer = false
}

/// How a token signs in (the composition root answers from the web endpoint's tokens).
package enum IPPSignIn: Sendable {
  case unknown
  case viewer
  case `operator`
  case admin
}

/// An answer in the making: a status, and its groups after the operation group.
struct IPPAnswer: Sendable {
  var status: IPPStatus
  var message: String?
  var groups: [IPPAttributeGroup] = []

  init(_ status: IPPStatus, _ message: String? = nil, groups: [IPPAttributeGroup] = []) {
    self.status = status
    self.message = message
    self.groups = groups
  }

  static func error(_ error: RPCError) -> IPPAnswer {
    IPPAnswer(IPPStatus.of(error), error.message)
  }

  /// The whole response to `request`: its version and request-id, charset and language
  /// first (RFC 8011 §4.1.4), even on errors.
  func response(major: Int, minor: Int, requestID: Int32) -> IPPMessage {
    var operation = [
      IPPAttribute("attributes-charset", .charset("utf-8")),
      IPPAttribute("attributes-natural-language", .naturalLanguage("en")),
    ]
    if let message {
      operation.append(IPPAttribute("status-message", .text(clipped(message, bytes: 255))))
    }
    return IPPMessage(
      major: major, minor: minor, code: status.rawValue, requestID: requestID,
      groups: [IPPAttributeGroup(.operation, operation)] + groups)
  }
}

/// `text` cut to at most `bytes` UTF-8 bytes, at a character's end (IPP's text and name
/// values have byte limits).
func clipped(_ text: String, bytes: Int) -> String {
  guard text.utf8.count > bytes else { return text }
  var out = ""
  var used = 0
  for character in text {
    let size = character.utf8.count
    guard used + size <= bytes else { break }
    out.append(character)
    used += size
  }
  return out
}
