#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// IPP job states. Every accepted job ends in one of the terminal ones, and says so.
public enum JobState: String, Codable, Sendable, CaseIterable {
  case pending, held, processing, completed, canceled, aborted

  public var isTerminal: Bool {
    switch self {
    case .completed, .canceled, .aborted: return true
    case .pending, .held, .processing: return false
    }
  }
}

/// Who submitted a job: the peer's uid from SO_PEERCRED.
public struct JobOwner: Codable, Sendable, Equatable {
  public var uid: UInt32
  public init(uid: UInt32) { self.uid = uid }
}

/// Where a job came from: the front it was submitted through, and what that front knows
/// of who sent it and what it is called. Added field (absent: the Unix socket).
public struct JobOrigin: Codable, Sendable, Equatable {
  public enum Kind: String, Codable, Sendable, CaseIterable {
    /// The Unix socket (protocol v1): the owner's uid says who.
    case socket
    /// Protocol v1 over the web endpoint's WebSocket: `user` is the token's name.
    case web
    /// An IPP client (`--listen-ipp`): `user` is its requesting-user-name (or the token's
    /// name it signed in with), `name` its job-name.
    case ipp
  }
  public var kind: Kind
  /// Who sent it, as that front names them.
  public var user: String?
  /// The job's name as its sender gave it (IPP job-name).
  public var name: String?

  public init(kind: Kind, user: String? = nil, name: String? = nil) {
    self.kind = kind
    self.user = user
    self.name = name
  }

  public static let socket = JobOrigin(kind: .socket)
}

/// Why a job ended badly, or what it is waiting for.
public struct JobError: Codable, Sendable, Equatable {
  public var reason: Reason
  public var message: String
  /// Set when the job's document is what could not print (IPP's document-format-error and
  /// document-unprintable-error); `reason` is then `jobRejected`. Added field.
  public var document: DocumentFault?

  public init(reason: Reason, message: String, document: DocumentFault? = nil) {
    self.reason = reason
    self.message = message
    self.document = document
  }
}

/// Why a document could not print (RFC 8011 §5.3.8 job-state-reasons).
public enum DocumentFault: String, Codable, Sendable, CaseIterable {
  /// Not the format it says it is, or damaged: it cannot be read (document-format-error).
  case formatError
  /// Read, but it cannot print here: too large, too many pages, nothing to print
  /// (document-unprintable-error).
  case unprintable
}

/// A print job as the protocol shows it.
public struct Job: Codable, Sendable, Equatable {
  public var id: Int
  public var printer: String
  public var state: JobState
  public var copies: Int
  /// Copies confirmed printed so far.
  public var printed: Int
  public var createdAt: Date
  public var updatedAt: Date
  public var owner: JobOwner
  public var error: JobError?
  /// Where it came from; nil for jobs stored before labeld kept it (the socket's).
  public var origin: JobOrigin?

  public init(
    id: Int, printer: String, state: JobState = .pending, copies: Int, printed: Int = 0,
    createdAt: Date, updatedAt: Date, owner: JobOwner, error: JobError? = nil,
    origin: JobOrigin? = nil
  ) {
    self.id = id
    self.printer = printer
    self.state = state
    self.copies = copies
    self.printed = printed
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.owner = owner
    self.error = error
    self.origin = origin
  }
}
