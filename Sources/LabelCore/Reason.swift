/// A printer fault, as the protocol names it: a closed set, `unknown` for anything else.
///
/// Transports (CUPS, USB, the simulator) map their own states to these in exactly one
/// table each; nothing else in the daemon invents reasons.
public enum Reason: String, Codable, Sendable, CaseIterable, Hashable {
  case offline
  case disconnected
  case notFound
  case permissionDenied
  case busy
  case mediaEmpty
  case mediaJam
  case mediaMismatch
  case coverOpen
  case ribbonEmpty
  case cutterError
  case headError
  case paused
  case jobRejected
  case jobAborted
  case communication
  case unknown

  /// Decodes any unrecognised string as `unknown`, so a newer daemon never breaks a client.
  public init(from decoder: any Decoder) throws {
    let raw = try decoder.singleValueContainer().decode(String.self)
    self = Reason(rawValue: raw) ?? .unknown
  }

  /// Faults after which the job at hand cannot be printed at all: it is aborted rather
  /// than kept waiting for the fault to clear.
  public var abortsJob: Bool {
    switch self {
    case .jobRejected, .jobAborted: return true
    case .offline, .disconnected, .notFound, .permissionDenied, .busy, .mediaEmpty, .mediaJam,
      .mediaMismatch, .coverOpen, .ribbonEmpty, .cutterError, .headError, .paused,
      .communication, .unknown:
      return false
    }
  }

  /// A short phrase a person reads in an alert ("cover open").
  public var phrase: String {
    switch self {
    case .offline: return "printer is offline (not responding)"
    case .disconnected: return "printer was disconnected"
    case .notFound: return "printer not found"
    case .permissionDenied: return "permission denied opening the printer"
    case .busy: return "printer is held by another process or driver"
    case .mediaEmpty: return "out of labels (media empty)"
    case .mediaJam: return "media jam"
    case .mediaMismatch: return "loaded media does not fit the job"
    case .coverOpen: return "cover open"
    case .ribbonEmpty: return "ribbon empty"
    case .cutterError: return "cutter error"
    case .headError: return "print head error"
    case .paused: return "printer is paused"
    case .jobRejected: return "printer rejected the job"
    case .jobAborted: return "printer aborted the job"
    case .communication: return "communication error with the printer"
    case .unknown: return "unknown printer error"
    }
  }
}
