import LabelCore

/// One alert for a screen: what an app shows in its single `.alert(item:)`. Exactly the
/// channel's two kinds, so a `switch` over it names both, and neither can be forgotten.
public enum AppAlert: Identifiable, Sendable, Equatable {
  /// A printer fault (cover open, out of labels, offline…), naming the job it holds up.
  case printerError(PrinterErrorDetails, seq: UInt64)
  /// Valid data that could not be kept (a conflicting change, a full disk…).
  case saveError(SaveErrorDetails, seq: UInt64)

  public init(_ event: AlertEvent) {
    switch event.alert {
    case .printerError(let d): self = .printerError(d, seq: event.seq)
    case .saveError(let d): self = .saveError(d, seq: event.seq)
    }
  }

  /// The alert's id on the channel (`printerError:sim:ql`): stable while the alert is
  /// updated, so a screen keeps presenting the same alert.
  public var id: String {
    switch self {
    case .printerError(let d, _): Alert.printerError(d).id
    case .saveError(let d, _): Alert.saveError(d).id
    }
  }

  /// The seq of the event it shows.
  public var seq: UInt64 {
    switch self {
    case .printerError(_, let seq), .saveError(_, let seq): seq
    }
  }

  /// A short title for the alert's kind.
  public var title: String {
    switch self {
    case .printerError: "Printer problem"
    case .saveError(let d, _): d.reason == .conflict ? "Changed elsewhere" : "Could not save"
    }
  }

  /// labeld's message for people ("ql: cover open; job 22 is waiting").
  public var message: String {
    switch self {
    case .printerError(let d, _): d.message
    case .saveError(let d, _): d.message
    }
  }
}
