import LabelCore

/// IPP operation-ids (RFC 8011 §5.4.15, PWG 5100.11) labeld answers.
enum IPPOperation: Int, Sendable, CaseIterable {
  case printJob = 0x0002
  case validateJob = 0x0004
  case createJob = 0x0005
  case sendDocument = 0x0006
  case cancelJob = 0x0008
  case getJobAttributes = 0x0009
  case getJobs = 0x000A
  case getPrinterAttributes = 0x000B
  case cancelMyJobs = 0x0039
  case closeJob = 0x003B
  case identifyPrinter = 0x003C

  /// Operations that make or change jobs: they need an operator's sign-in (unless
  /// labeld.conf says `ipp-print = anyone`). Queries need none.
  var prints: Bool {
    switch self {
    case .printJob, .createJob, .sendDocument, .cancelJob, .cancelMyJobs, .closeJob: true
    case .validateJob, .getJobAttributes, .getJobs, .getPrinterAttributes, .identifyPrinter:
      false
    }
  }
}

/// IPP status-codes (RFC 8011 §5.4.20, PWG 5100.x); `IPPStatusTests` checks each number
/// against libcups's name for it.
enum IPPStatus: Int, Sendable, CaseIterable {
  case ok = 0x0000
  case okIgnoredOrSubstituted = 0x0001
  case badRequest = 0x0400
  case forbidden = 0x0401
  case notAuthenticated = 0x0402
  case notAuthorized = 0x0403
  case notPossible = 0x0404
  case notFound = 0x0406
  case requestEntityTooLarge = 0x0408
  case documentFormatNotSupported = 0x040A
  case attributesOrValuesNotSupported = 0x040B
  case charsetNotSupported = 0x040D
  case compressionNotSupported = 0x040F
  case documentFormatError = 0x0411
  case internalError = 0x0500
  case operationNotSupported = 0x0501
  case versionNotSupported = 0x0503
  case temporaryError = 0x0505
  case notAcceptingJobs = 0x0506
  case busy = 0x0507
  case jobCanceled = 0x0508
  case multipleDocumentJobsNotSupported = 0x0509
  case tooManyJobs = 0x050B

  /// The one table from labeld's errors (the print service speaks `RPCError`) to IPP's.
  static func of(_ error: RPCError) -> IPPStatus {
    switch error.knownCode {
    case .printerNotFound, .jobNotFound, .notFound: .notFound
    case .printerNotAccepting: .notAcceptingJobs
    case .saveFailed: .temporaryError
    case .notPermitted: .notAuthorized
    case .unsupported: .attributesOrValuesNotSupported
    case .tooManyJobs: .tooManyJobs
    case .invalidParams, .parseError, .invalidRequest, .methodNotFound: .badRequest
    case .internalError, nil: .internalError
    }
  }
}

/// IPP job-state (RFC 8011 §5.3.7) of a labeld job: labeld's states are IPP's, and a job
/// held by a printer fault is processing-stopped.
extension JobState {
  var ipp: Int32 {
    switch self {
    case .pending: 3
    case .held: 6
    case .processing: 5
    case .canceled: 7
    case .aborted: 8
    case .completed: 9
    }
  }
}
