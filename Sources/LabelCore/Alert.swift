#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The one alert channel's alert: exactly two kinds, both travelling one ordered channel.
///
/// Every consumer switches over it exhaustively (no `default:`), so adding a third kind
/// breaks the build wherever it would otherwise be silently ignored: the seed's bug
/// (a second alert that never showed) cannot be written here.
public enum Alert: Sendable, Equatable {
  case printerError(PrinterErrorDetails)
  case saveError(SaveErrorDetails)

  /// Names the subject: a newer alert with the same id replaces the older one.
  public var id: String {
    switch self {
    case .printerError(let d): return Self.id(printer: d.printer)
    case .saveError(let d): return "saveError:\(d.entity.rawValue):\(d.key)"
    }
  }

  /// The id of `printer`'s printerError: the one place it is spelled.
  public static func id(printer: String) -> String { "printerError:\(printer)" }

  public var message: String {
    switch self {
    case .printerError(let d): return d.message
    case .saveError(let d): return d.message
    }
  }

  /// The protocol's `kind` string.
  public var kind: String {
    switch self {
    case .printerError: return "printerError"
    case .saveError: return "saveError"
    }
  }
}

/// A printer fault, naming the job it holds up when there is one.
public struct PrinterErrorDetails: Sendable, Equatable {
  public var printer: String
  public var reason: Reason
  public var job: Int?
  public var message: String
  public init(printer: String, reason: Reason, job: Int? = nil, message: String) {
    self.printer = printer
    self.reason = reason
    self.job = job
    self.message = message
  }
}

/// What a failed save was saving.
public enum SaveEntity: String, Codable, Sendable, CaseIterable {
  case product, template, job, settings
}

/// Why a save failed.
public enum SaveReason: String, Codable, Sendable, CaseIterable {
  case storageFull, readOnly, busy, conflict, io, unavailable
}

/// A failure to keep valid data.
public struct SaveErrorDetails: Sendable, Equatable {
  public var entity: SaveEntity
  public var key: String
  public var reason: SaveReason
  public var message: String
  /// For a `conflict`: the version the client expected and the one stored (0: none), so a
  /// client can offer to reload without reading the message (labeld addition).
  public var expectedVersion: Int?
  public var storedVersion: Int?
  public init(
    entity: SaveEntity, key: String, reason: SaveReason, message: String,
    expectedVersion: Int? = nil, storedVersion: Int? = nil
  ) {
    self.entity = entity
    self.key = key
    self.reason = reason
    self.message = message
    self.expectedVersion = expectedVersion
    self.storedVersion = storedVersion
  }
}

/// `active` (raised or updated), `cleared` (condition went away), `dismissed` (acknowledged).
public enum AlertState: String, Codable, Sendable {
  case active, cleared, dismissed
}

/// One event on the channel: an alert at a point of the one sequence.
public struct AlertEvent: Sendable, Equatable {
  public var seq: UInt64
  public var state: AlertState
  public var time: Date
  public var alert: Alert

  public init(seq: UInt64, state: AlertState, time: Date, alert: Alert) {
    self.seq = seq
    self.state = state
    self.time = time
    self.alert = alert
  }

  public var id: String { alert.id }
}

extension AlertEvent: Codable {
  private enum Keys: String, CodingKey {
    case seq, id, kind, state, time, message, printer, reason, job, entity, key
    case expectedVersion, storedVersion
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Keys.self)
    try c.encode(seq, forKey: .seq)
    try c.encode(alert.id, forKey: .id)
    try c.encode(alert.kind, forKey: .kind)
    try c.encode(state, forKey: .state)
    try c.encode(time, forKey: .time)
    try c.encode(alert.message, forKey: .message)
    switch alert {
    case .printerError(let d):
      try c.encode(d.printer, forKey: .printer)
      try c.encode(d.reason, forKey: .reason)
      try c.encodeIfPresent(d.job, forKey: .job)
    case .saveError(let d):
      try c.encode(d.entity, forKey: .entity)
      try c.encode(d.key, forKey: .key)
      try c.encode(d.reason, forKey: .reason)
      try c.encodeIfPresent(d.expectedVersion, forKey: .expectedVersion)
      try c.encodeIfPresent(d.storedVersion, forKey: .storedVersion)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Keys.self)
    seq = try c.decode(UInt64.self, forKey: .seq)
    state = try c.decode(AlertState.self, forKey: .state)
    time = try c.decode(Date.self, forKey: .time)
    let message = try c.decode(String.self, forKey: .message)
    let kind = try c.decode(String.self, forKey: .kind)
    switch kind {
    case "printerError":
      alert = .printerError(
        PrinterErrorDetails(
          printer: try c.decode(String.self, forKey: .printer),
          reason: try c.decode(Reason.self, forKey: .reason),
          job: try c.decodeIfPresent(Int.self, forKey: .job), message: message))
    case "saveError":
      alert = .saveError(
        SaveErrorDetails(
          entity: try c.decode(SaveEntity.self, forKey: .entity),
          key: try c.decode(String.self, forKey: .key),
          reason: try c.decode(SaveReason.self, forKey: .reason), message: message,
          expectedVersion: try c.decodeIfPresent(Int.self, forKey: .expectedVersion),
          storedVersion: try c.decodeIfPresent(Int.self, forKey: .storedVersion)))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .kind, in: c, debugDescription: "unknown alert kind \(kind)")
    }
  }
}
