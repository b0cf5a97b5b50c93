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

/// Why a job ended badly, or what it is waiting for.
public struct JobError: Codable, Sendable, Equatable {
  public var reason: Reason
  public var message: String
  public init(reason: Reason, message: String) {
    self.reason = reason
    self.message = message
  }
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

  public init(
    id: Int, printer: String, state: JobState = .pending, copies: Int, printed: Int = 0,
    createdAt: Date, updatedAt: Date, owner: JobOwner, error: JobError? = nil
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
  }
}
