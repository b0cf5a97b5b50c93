/// IPP `printer-state`.
public enum CUPSPrinterState: Int, Sendable {
  case idle = 3
  case processing = 4
  case stopped = 5
}

/// A CUPS queue and the attributes labeld reads from it (Get-Printer-Attributes).
public struct CUPSQueue: Sendable, Equatable {
  public var name: String
  /// `printer-make-and-model` ("Local Raw Printer" for raw queues).
  public var makeAndModel: String = ""
  /// `printer-info`, the queue's description (`lpadmin -D`).
  public var info: String = ""
  /// `device-uri` (`ipp://host:port/ipp/print`, `usb://Zebra/...`).
  public var deviceURI: String = ""
  /// `printer-device-id`, an IEEE-1284 id when the queue has one.
  public var deviceID: String = ""
  public var state: CUPSPrinterState = .idle
  /// `printer-state-reasons` keywords as CUPS reports them (`none` left out).
  public var reasons: [String] = []
  /// `printer-state-message`.
  public var message: String = ""
  /// `printer-is-accepting-jobs`.
  public var accepting: Bool = true
  /// `media-ready` (PWG self-describing media names), else `media-default`.
  public var media: [String] = []

  public init(name: String) { self.name = name }
}

/// IPP `job-state`.
public enum CUPSJobState: Int, Sendable {
  case pending = 3
  case held = 4
  case processing = 5
  case stopped = 6
  case canceled = 7
  case aborted = 8
  case completed = 9

  public var isTerminal: Bool { rawValue >= CUPSJobState.canceled.rawValue }

  /// The IPP keyword (`processing-stopped` for 6).
  public var keyword: String {
    switch self {
    case .pending: "pending"
    case .held: "pending-held"
    case .processing: "processing"
    case .stopped: "processing-stopped"
    case .canceled: "canceled"
    case .aborted: "aborted"
    case .completed: "completed"
    }
  }
}

/// A CUPS job as Get-Job-Attributes / Get-Jobs report it.
public struct CUPSJob: Sendable, Equatable {
  public var id: Int
  public var name: String = ""
  public var state: CUPSJobState
  /// `job-state-reasons` keywords (`none` left out).
  public var reasons: [String] = []
  /// `job-printer-state-message`: what the printer said while it had the job.
  public var printerMessage: String = ""

  public init(id: Int, state: CUPSJobState) {
    self.id = id
    self.state = state
  }
}
