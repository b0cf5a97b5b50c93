import CCUPS

/// An IPP status code (`ipp_status_t`), as libcups reports it for the last request.
public struct IPPStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: Int32
  public init(rawValue: Int32) { self.rawValue = rawValue }
  init(_ status: ipp_status_t) { rawValue = status.rawValue }

  /// `IPP_STATUS_OK`.
  public static let ok = IPPStatus(IPP_STATUS_OK)
  /// `IPP_STATUS_OK_CONFLICTING`: the highest status that is still a success.
  public static let okConflicting = IPPStatus(IPP_STATUS_OK_CONFLICTING)
  /// `IPP_STATUS_ERROR_NOT_FOUND` (0x0406): no such queue or job.
  public static let notFound = IPPStatus(IPP_STATUS_ERROR_NOT_FOUND)
  /// `IPP_STATUS_ERROR_NOT_POSSIBLE` (0x0404).
  public static let notPossible = IPPStatus(IPP_STATUS_ERROR_NOT_POSSIBLE)
  /// `IPP_STATUS_ERROR_FORBIDDEN` (0x0401).
  public static let forbidden = IPPStatus(IPP_STATUS_ERROR_FORBIDDEN)
  /// `IPP_STATUS_ERROR_NOT_AUTHORIZED` (0x0403).
  public static let notAuthorized = IPPStatus(IPP_STATUS_ERROR_NOT_AUTHORIZED)
  /// `IPP_STATUS_ERROR_DOCUMENT_FORMAT_NOT_SUPPORTED` (0x040A).
  public static let documentFormatNotSupported = IPPStatus(
    IPP_STATUS_ERROR_DOCUMENT_FORMAT_NOT_SUPPORTED)
  /// `IPP_STATUS_ERROR_INTERNAL` (0x0500): also what libcups reports for broken connections.
  public static let internalError = IPPStatus(IPP_STATUS_ERROR_INTERNAL)
  /// `IPP_STATUS_ERROR_SERVICE_UNAVAILABLE` (0x0503): the server cannot be reached.
  public static let serviceUnavailable = IPPStatus(IPP_STATUS_ERROR_SERVICE_UNAVAILABLE)
  /// `IPP_STATUS_ERROR_NOT_ACCEPTING_JOBS` (0x0506): the queue is rejecting jobs.
  public static let notAcceptingJobs = IPPStatus(IPP_STATUS_ERROR_NOT_ACCEPTING_JOBS)
  /// `IPP_STATUS_ERROR_CUPS_AUTHENTICATION_CANCELED`, and other local failures.
  public static let authenticationCanceled = IPPStatus(
    IPP_STATUS_ERROR_CUPS_AUTHENTICATION_CANCELED)

  public var isSuccess: Bool { rawValue <= Self.okConflicting.rawValue }

  /// The IPP keyword for the status (`client-error-not-found`).
  public var description: String {
    // libcups names it; before libcups is open (it could not be loaded), the number.
    guard CUPSLibrary.isOpen else { return "IPP status 0x" + String(rawValue, radix: 16) }
    return String(cString: ippErrorString(ipp_status_t(rawValue: rawValue)))
  }
}

/// A failed libcups call: the IPP status and `cupsLastErrorString()` read right after it.
public struct CUPSError: Error, Sendable, Equatable, CustomStringConvertible {
  public var status: IPPStatus
  public var message: String

  public init(status: IPPStatus, message: String) {
    self.status = status
    self.message = message
  }

  /// The error libcups recorded for the calling thread's last request. Must be read on the
  /// same thread, right after the call (libcups keeps it thread-local).
  static func last() -> CUPSError {
    CUPSError(status: IPPStatus(cupsLastError()), message: String(cString: cupsLastErrorString()))
  }

  /// True when the server itself could not be reached or the connection broke.
  public var isConnectionFailure: Bool {
    status == .serviceUnavailable || status == .internalError
  }

  public var description: String { "\(message) (\(status))" }
}
